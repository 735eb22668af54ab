package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// splitWeighted deals tuples and their weights out to p ranks as splitEdges
// does.
func splitWeighted(rng *rand.Rand, edges []Edge, weights []float32, p int) []WeightedEdges {
	parts := splitEdges(rng, edges, p)
	out := make([]WeightedEdges, p)
	lo := 0
	for r, es := range parts {
		out[r] = WeightedEdges{Edges: es, Weights: weights[lo : lo+len(es)]}
		lo += len(es)
	}
	return out
}

// runWeights builds the CSR and its weights on part.P in-process ranks.
func runWeights(t *testing.T, n int64, shares []WeightedEdges, threads int) ([]*CSR, [][]float32, error) {
	t.Helper()
	part := block1D(t, n, len(shares))
	gs, ws := make([]*CSR, part.P), make([][]float32, part.P)
	err := inproc.Run(context.Background(), part.P, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		g, _, err := BuildUndirectedFrom(ctx, c, part, shares[r], threads)
		if err != nil {
			return err
		}
		w, err := BuildWeights(ctx, c, part, g, shares[r], threads)
		gs[r], ws[r] = g, w
		return err
	})
	return gs, ws, err
}

// Every adjacency entry gets the smallest weight of the tuples joining its
// vertices, in either direction, on any number of ranks and threads.
func TestBuildWeightsKeepsTheMinimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 300
	edges := randomGraph(rng, n, 2500)
	weights := make([]float32, len(edges))
	best := map[[2]int64]float32{}
	for i, e := range edges {
		weights[i] = rng.Float32()
		for _, k := range [][2]int64{{e.U, e.V}, {e.V, e.U}} {
			if w, ok := best[k]; !ok || weights[i] < w {
				best[k] = weights[i]
			}
		}
	}
	for _, p := range []int{1, 2, 3, 4} {
		for _, threads := range []int{1, 3} {
			gs, ws, err := runWeights(t, n, splitWeighted(rng, edges, weights, p), threads)
			if err != nil {
				t.Fatalf("%d ranks: %v", p, err)
			}
			entries := 0
			for r, g := range gs {
				for l := range g.NumLocal {
					for i := g.Offsets[l]; i < g.Offsets[l+1]; i++ {
						k := [2]int64{g.FirstGlobal + int64(l), g.Neighbor(i)}
						if ws[r][i] != best[k] {
							t.Fatalf("%d ranks, %d threads: edge %v has weight %v, want %v", p, threads, k, ws[r][i], best[k])
						}
						entries++
					}
				}
			}
			if entries != len(best)-countLoops(best) {
				t.Fatalf("%d ranks: %d entries, want %d", p, entries, len(best)-countLoops(best))
			}
		}
	}
}

func countLoops(m map[[2]int64]float32) int {
	n := 0
	for k := range m {
		if k[0] == k[1] {
			n++
		}
	}
	return n
}

// A weight that is negative, not a number or infinite stops the build with
// an error naming the tuple, on every rank.
func TestBuildWeightsRefusesBadWeights(t *testing.T) {
	for _, bad := range []float32{-0.5, float32(math.NaN()), float32(math.Inf(1))} {
		edges := []Edge{{0, 1}, {1, 2}, {2, 3}, {3, 0}}
		weights := []float32{0.1, 0.2, bad, 0.3}
		rng := rand.New(rand.NewPCG(1, 1))
		_, _, err := runWeights(t, 64, splitWeighted(rng, edges, weights, 2), 1)
		if err == nil || !strings.Contains(err.Error(), "(2, 3)") {
			t.Fatalf("weight %v: got %v, want an error naming tuple (2, 3)", bad, err)
		}
	}
}

// Weights of tuples that kernel 1 did not see are refused: the CSR has no
// entry for them.
func TestBuildWeightsRefusesForeignTuples(t *testing.T) {
	part := block1D(t, 64, 1)
	err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
		g, err := BuildUndirected(ctx, c, part, []Edge{{0, 1}}, 1)
		if err != nil {
			return err
		}
		_, err = BuildWeights(ctx, c, part, g, WeightedEdges{Edges: EdgeSlice{{0, 2}}, Weights: []float32{0.5}}, 1)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "not in the graph") {
		t.Fatalf("got %v, want an error saying the edge is not in the graph", err)
	}
}
