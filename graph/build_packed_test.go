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
// the range buffer of width wide, the budget and chunk tuples per round.
func runBuildPacked(part partition.Block1D, perRank [][]Edge, threads int, wide bool, budget, chunk int64) ([]*CSR, []BuildStats, error) {
	out := make([]*CSR, part.P)
	stats := make([]BuildStats, part.P)
	err := inproc.Run(context.Background(), part.P, func(ctx context.Context, c comm.Comm) error {
		var g *CSR
		var st BuildStats
		var err error
		src := EdgeSlice(perRank[c.Rank()])
		if wide {
			g, st, err = buildPacked[int64](ctx, c, part, src, threads, budget, chunk)
		} else {
			g, st, err = buildPacked[uint32](ctx, c, part, src, threads, budget, chunk)
		}
		out[c.Rank()], stats[c.Rank()] = g, st
		return err
	})
	return out, stats, err
}

// TestBuildPackedMatchesPacking: kernel 1 building the compressed layout a
// range at a time gives, byte for byte, the plain build's rows packed, on
// random graphs over 1 to 5 ranks, with budgets from none (one range) to
// the least (the most ranges), both buffer widths,
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
		threads, wide := 1+i%3, i%4 == 3
		budget := []int64{0, 1, int64(len(edges)), 3 * int64(len(edges))}[i%4]
		chunk := int64(0)
		if i%2 == 1 {
			chunk = int64(1 + len(edges)/(2+i%7))
		}
		what := fmt.Sprintf("case %d: n=%d, %d tuples, %d ranks, %d threads, budget %d, wide %v, chunk %d", i, n, len(edges), p, threads, budget, wide, chunk)
		plain, err := runBuildChunk(part, perRank, threads, false, chunk)
		if err != nil {
			t.Fatalf("%s: plain: %v", what, err)
		}
		packed, stats, err := runBuildPacked(part, perRank, threads, wide, budget, chunk)
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
			if stats[r].PackedRanges < 1 || stats[r].PackedRanges > MaxPackedRanges || (budget == 0 && stats[r].PackedRanges != 1) ||
				stats[r].PackedRanges != stats[0].PackedRanges {
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

// TestBuildPackedRangesOnKronecker: on a skewed graph the ranges follow
// the budget, the same on every rank: one without a budget, at most
// MaxPackedRanges with the least, and in between the fewer the larger the
// budget; the rows are the same whatever the ranges.
func TestBuildPackedRangesOnKronecker(t *testing.T) {
	const scale = 14
	n := int64(1) << scale
	edges := rmatEdges(scale, int(n)*16, 3)
	for _, p := range []int{1, 3} {
		part := block1D(t, n, p)
		perRank := splitEdges(rand.New(rand.NewPCG(1, 1)), edges, p)
		plain, err := runBuildChunk(part, perRank, 2, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The largest rank's plain rows, 4 bytes a half-edge.
		var rows int64
		for _, g := range plain {
			rows = max(rows, 4*sumDegrees(g.TupleDegree))
		}
		last := MaxPackedRanges + 1
		for _, budget := range []int64{1, rows / 4, rows / 2, rows, 0} {
			gs, stats, err := runBuildPacked(part, perRank, 2, false, budget, 0)
			if err != nil {
				t.Fatal(err)
			}
			ranges := stats[0].PackedRanges
			if ranges > last || ranges < 1 || ranges > MaxPackedRanges || (budget == 0 && ranges != 1) || (budget == 1 && ranges < 4) {
				t.Fatalf("%d ranks, budget %d: %d fill ranges (%d with a smaller budget)", p, budget, ranges, last)
			}
			last = ranges
			for r, g := range gs {
				if stats[r].PackedRanges != ranges {
					t.Fatalf("%d ranks, budget %d: rank %d ran %d fill ranges, rank 0 %d", p, budget, r, stats[r].PackedRanges, ranges)
				}
				if want := PackCSR(plain[r], 2); !slices.Equal(g.Packed, want.Packed) {
					t.Fatalf("%d ranks, budget %d: rank %d: packed rows differ", p, budget, r)
				}
			}
		}
	}
}

func sumDegrees(d []uint32) int64 {
	var s int64
	for _, x := range d {
		s += int64(x)
	}
	return s
}
