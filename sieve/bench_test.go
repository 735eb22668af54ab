package sieve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// kroneckerCSRs builds the Graph500 graph of the given scale (edgefactor 16)
// on p in-process ranks and returns the partition and every rank's CSR.
func kroneckerCSRs(b *testing.B, scale, p int) (partition.Block1D, []*graph.CSR) {
	b.Helper()
	csrs := make([]*graph.CSR, p)
	var part partition.Block1D
	csrtest.OnKronecker(b, kronecker.DefaultParams(scale), p, 1, func(_ context.Context, c comm.Comm, g *graph.CSR, pt partition.Block1D) error {
		csrs[c.Rank()], part = g, pt
		return nil
	})
	return part, csrs
}

// BenchmarkBuild times the directory construction on a scale-20 Graph500
// graph (2^20 vertices, 16·2^20 tuples) over 2 ranks: Build on both ranks
// one after the other, and BuildExchanged on 2 in-process ranks (its
// exchange included). edges/s counts stored adjacency entries of both ranks.
func BenchmarkBuild(b *testing.B) {
	const scale, p = 20, 2
	part, csrs := kroneckerCSRs(b, scale, p)
	var stored int64
	for _, g := range csrs {
		stored += g.NumEdges()
	}
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("local/threads%d", threads), func(b *testing.B) {
			var dirs [p]*Directory
			for b.Loop() {
				for r, g := range csrs {
					d, err := Build(g, part, r, threads)
					if err != nil {
						b.Fatal(err)
					}
					dirs[r] = d
				}
			}
			b.ReportMetric(float64(stored)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(dirs[0].Density(1), "density(1,0)")
			b.ReportMetric(dirs[1].Density(0), "density(0,1)")
			b.ReportMetric(float64(dirs[0].Bytes()+dirs[1].Bytes())/p, "B/rank")
		})
	}
	b.Run("exchanged/threads1", func(b *testing.B) {
		for b.Loop() {
			buildExchangedAll(b, part, csrs, 1)
		}
		b.ReportMetric(float64(stored)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
	})
}

// BenchmarkSieve measures Sieve's throughput on a stored (mixed) vector, in
// bytes of frontier bitmap per second, for a rank of 2^19 vertices (scale 20
// on 2 ranks: 64 KiB, cache resident) and of 2^26 vertices (8 MiB, from
// memory); and for an empty and a full vector.
func BenchmarkSieve(b *testing.B) {
	for _, logN := range []int{19, 26} {
		n := int64(1) << logN
		part, err := partition.NewBlock1D(2*n, 2)
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(9, uint64(logN)))
		words := part.Words(0)
		col := make(frontier.Bitmap, words)
		f := make(frontier.Bitmap, words)
		for k := range col {
			col[k], f[k] = rng.Uint64(), rng.Uint64()
		}
		// Peer 0's vector is mixed, peer 1's empty (set below); the full one
		// is built separately.
		d := newDirectory(part, 0, []frontier.Bitmap{col, make(frontier.Bitmap, words)}, []int64{col.Count(), 0})
		all := make(frontier.Bitmap, words)
		for k := range all {
			all[k] = ^uint64(0)
		}
		full := newDirectory(part, 0, []frontier.Bitmap{all, slices.Clone(all)}, []int64{n, n})
		for _, c := range []struct {
			name string
			d    *Directory
			peer int
		}{{"mixed", d, 0}, {"empty", d, 1}, {"full", full, 0}} {
			b.Run(fmt.Sprintf("2^%d/%s", logN, c.name), func(b *testing.B) {
				if c.d.Kind(c.peer).String() != c.name {
					b.Fatalf("vector is %v, want %s", c.d.Kind(c.peer), c.name)
				}
				dst := c.d.Sieve(nil, f, c.peer) // fault the pages in outside the timing
				b.SetBytes(int64(words) * 8)
				for b.Loop() {
					dst = c.d.Sieve(dst, f, c.peer)
				}
				b.ReportMetric(float64(words*8)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}

// BenchmarkPackUnpack measures the packed sieve's gather (Pack) and scatter
// (Unpack) on one peer's 2^16 vertices (scale 20 on 16 ranks) with 30 % of
// them live, for sparse, medium and dense frontiers; each iteration restores
// the live positions first (a 8 KiB copy, included). MB/s counts the plain
// bitmap's bytes.
func BenchmarkPackUnpack(b *testing.B) {
	const words = 1 << 10
	rng := rand.New(rand.NewPCG(3, 3))
	live := make(frontier.Bitmap, words)
	for v := range words * 64 {
		if rng.Float64() < 0.3 {
			live.Set(int64(v))
		}
	}
	count := int(live.Count())
	for _, density := range []float64{0.001, 0.05, 0.5} {
		f := make(frontier.Bitmap, words)
		for v := range words * 64 {
			if rng.Float64() < density {
				f.Set(int64(v))
			}
		}
		scratch := make(frontier.Bitmap, words)
		packed := make(frontier.Bitmap, frontier.WordsFor(int64(count)))
		out := make(frontier.Bitmap, words)
		b.Run(fmt.Sprintf("pack/density%g", density), func(b *testing.B) {
			b.SetBytes(words * 8)
			for b.Loop() {
				copy(scratch, live)
				clear(packed)
				PackBits(packed, f, scratch)
			}
		})
		copy(scratch, live)
		clear(packed)
		PackBits(packed, f, scratch)
		b.Run(fmt.Sprintf("unpack/density%g", density), func(b *testing.B) {
			b.SetBytes(words * 8)
			for b.Loop() {
				copy(scratch, live)
				UnpackBits(out, packed, scratch)
			}
		})
	}
}
