package graph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/partition"
)

// runBuildPacked runs the compressed kernel 1 on p in-process ranks with
// the range buffer of width wide, ranges ranges and chunk tuples per round.
func runBuildPacked(part partition.Block1D, perRank [][]Edge, threads int, wide bool, ranges int, chunk int64) ([]*CSR, []BuildStats, error) {
	out := make([]*CSR, part.P)
	stats := make([]BuildStats, part.P)
	err := inproc.Run(context.Background(), part.P, func(ctx context.Context, c comm.Comm) error {
		var g *CSR
		var st BuildStats
		var err error
		src := EdgeSlice(perRank[c.Rank()])
		if wide {
			g, st, err = buildPacked[int64](ctx, c, part, src, threads, ranges, chunk)
		} else {
			g, st, err = buildPacked[uint32](ctx, c, part, src, threads, ranges, chunk)
		}
		out[c.Rank()], stats[c.Rank()] = g, st
		return err
	})
	return out, stats, err
}

// TestBuildPackedMatchesPacking: kernel 1 building the compressed layout a
// range at a time gives, byte for byte, the plain build's rows packed, on
// random graphs over 1 to 5 ranks, with 1 to 9 ranges, both buffer widths,
// small and default rounds; and its rows decode to the reference's.
func TestBuildPackedMatchesPacking(t *testing.T) {
	cases := 40
	if testing.Short() {
		cases = 12
	}
	for i := range cases {
		n := int64(1 + i*37%900)
		rng, edges, ref := randomCase(uint64(i), 36, n, int(n)*(1+i%9))
		p := 1 + i%5
		if int64(p)*64 > n+63 {
			p = 1
		}
		part := block1D(t, n, p)
		perRank := splitEdges(rng, edges, p)
		threads, ranges, wide := 1+i%3, 1+i%9, i%4 == 3
		chunk := int64(0)
		if i%2 == 1 {
			chunk = int64(1 + len(edges)/(2+i%7))
		}
		what := fmt.Sprintf("case %d: n=%d, %d tuples, %d ranks, %d threads, %d ranges, wide %v, chunk %d", i, n, len(edges), p, threads, ranges, wide, chunk)
		plain, err := runBuildChunk(part, perRank, threads, false, chunk)
		if err != nil {
			t.Fatalf("%s: plain: %v", what, err)
		}
		packed, stats, err := runBuildPacked(part, perRank, threads, wide, ranges, chunk)
		if err != nil {
			t.Fatalf("%s: packed: %v", what, err)
		}
		for r, g := range packed {
			want := PackCSR(plain[r], 1)
			if err := CheckPacked(g); err != nil {
				t.Fatalf("%s: rank %d: %v", what, r, err)
			}
			if !slices.Equal(g.Packed, want.Packed) || !slices.Equal(g.Offsets, want.Offsets) || g.PackedEdges != want.PackedEdges ||
				!slices.Equal(g.TupleDegree, want.TupleDegree) || g.SelfLoops != want.SelfLoops {
				t.Fatalf("%s: rank %d: packed build differs from the packed plain build", what, r)
			}
			if stats[r].PackedRanges < 1 || stats[r].PackedRanges > ranges {
				t.Fatalf("%s: rank %d: %d fill ranges", what, r, stats[r].PackedRanges)
			}
			var row []int64
			for l := range uint32(g.NumLocal) {
				if row = g.Row(l, row); !slices.Equal(row, ref.adj[g.FirstGlobal+int64(l)]) {
					t.Fatalf("%s: rank %d vertex %d: row %v, want %v", what, r, l, row, ref.adj[g.FirstGlobal+int64(l)])
				}
			}
		}
	}
}

// TestBuildPackedRangesOnKronecker: on a skewed graph the ranges are about
// equal and every rank runs the same number of fill passes.
func TestBuildPackedRangesOnKronecker(t *testing.T) {
	const scale = 14
	n := int64(1) << scale
	edges := rmatEdges(scale, int(n)*16, 3)
	for _, p := range []int{1, 3} {
		part := block1D(t, n, p)
		perRank := splitEdges(rand.New(rand.NewPCG(1, 1)), edges, p)
		gs, stats, err := runBuildPacked(part, perRank, 2, false, PackedRanges, 0)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := runBuildChunk(part, perRank, 2, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		for r, g := range gs {
			if stats[r].PackedRanges != PackedRanges {
				t.Fatalf("%d ranks: rank %d ran %d fill ranges, want %d", p, r, stats[r].PackedRanges, PackedRanges)
			}
			if want := PackCSR(plain[r], 2); !slices.Equal(g.Packed, want.Packed) {
				t.Fatalf("%d ranks: rank %d: packed rows differ", p, r)
			}
		}
	}
}
