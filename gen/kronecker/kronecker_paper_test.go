package kronecker

// Tests named for the "Graph generation" section of the Graph500
// specification (version 3.0; cited in full in the package doc), which Lv
// et al. §VII-A also use as their input: the initiator, the edge factor, the
// vertex count, a tuple list that does not depend on how it is generated,
// and the vertex label permutation.

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// TestDefaultsAreTheSpec_GraphGeneration checks the benchmark's parameters:
// initiator A = 0.57, B = C = 0.19 (so D = 0.05), edge factor 16, N = 2^scale
// vertices and M = 16·N tuples.
func TestDefaultsAreTheSpec_GraphGeneration(t *testing.T) {
	for _, scale := range []int{1, 10, 26, MaxScale} {
		p := DefaultParams(scale)
		if err := p.Validate(); err != nil {
			t.Fatalf("scale %d: %v", scale, err)
		}
		if p.A != 0.57 || p.B != 0.19 || p.C != 0.19 || math.Abs(1-p.A-p.B-p.C-0.05) > 1e-12 {
			t.Fatalf("scale %d: initiator %v, %v, %v", scale, p.A, p.B, p.C)
		}
		if p.EdgeFactor != 16 || p.NumVertices() != 1<<scale || p.NumEdges() != 16<<scale {
			t.Fatalf("scale %d: edge factor %d, %d vertices, %d tuples", scale, p.EdgeFactor, p.NumVertices(), p.NumEdges())
		}
	}
}

// TestQuadrantsFollowTheInitiator_GraphGeneration checks the recursive
// descent: at every one of the scale levels a tuple picks the quadrant
// (u bit, v bit) = (0,0), (0,1), (1,0), (1,1) with probability A, B, C, D.
// Before the permutation, the count of each bit pair over all tuples and
// levels is within 5 standard deviations of the binomial mean.
func TestQuadrantsFollowTheInitiator_GraphGeneration(t *testing.T) {
	p := DefaultParams(12)
	raw := make([]graph.Edge, p.NumEdges())
	p.generateRaw(0, raw)
	var counts [4]int
	for _, e := range raw {
		for l := range p.Scale {
			counts[(e.U>>l&1)<<1|e.V>>l&1]++
		}
	}
	n := float64(len(raw) * p.Scale)
	for q, prob := range [4]float64{p.A, p.B, p.C, 1 - p.A - p.B - p.C} {
		z := (float64(counts[q]) - n*prob) / math.Sqrt(n*prob*(1-prob))
		if math.Abs(z) > 5 {
			t.Errorf("quadrant %02b: %.4f of the choices, want %.2f (z = %.1f)", q, float64(counts[q])/n, prob, z)
		}
	}
}

// TestSameTuplesOnAnyRankCount_GraphGeneration checks that the tuple list
// is one list: rank r of s reads tuples RankRange(r, s) through its Share,
// and the ranks' shares, concatenated, are the list Generate makes in one
// piece, for any number of ranks and threads.
func TestSameTuplesOnAnyRankCount_GraphGeneration(t *testing.T) {
	p := DefaultParams(10)
	p.Seed = 500
	want := make([]graph.Edge, p.NumEdges())
	p.Generate(0, want)
	for _, size := range []int{1, 2, 3, 5, 8} {
		var got []graph.Edge
		for rank := range size {
			s := p.Share(rank, size, 1+rank%3)
			part := make([]graph.Edge, s.Len())
			if err := s.Read(context.Background(), 0, part); err != nil {
				t.Fatal(err)
			}
			got = append(got, part...)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d ranks: the shares are not the one tuple list", size)
		}
	}
}

// TestPermutationIsABijection_GraphGeneration checks the vertex label
// permutation the specification asks for: Permute maps [0, 2^scale) onto
// itself one to one, Unpermute inverts it, and the generated tuples are
// the raw descent's tuples with both labels permuted.
func TestPermutationIsABijection_GraphGeneration(t *testing.T) {
	for scale := 1; scale <= 16; scale++ {
		p := DefaultParams(scale)
		p.Seed = uint64(scale)
		n := p.NumVertices()
		hit := make([]bool, n)
		for x := range n {
			y := p.Permute(x)
			if y < 0 || y >= n || hit[y] {
				t.Fatalf("scale %d: Permute(%d) = %d, outside [0, %d) or hit twice", scale, x, y, n)
			}
			hit[y] = true
			if p.Unpermute(y) != x {
				t.Fatalf("scale %d: Unpermute(Permute(%d)) = %d", scale, x, p.Unpermute(y))
			}
		}
	}
	p := DefaultParams(9)
	raw := make([]graph.Edge, p.NumEdges())
	p.generateRaw(0, raw)
	got := make([]graph.Edge, p.NumEdges())
	p.Generate(0, got)
	for k, e := range raw {
		if want := (graph.Edge{U: p.Permute(e.U), V: p.Permute(e.V)}); got[k] != want {
			t.Fatalf("tuple %d: %v, want the raw %v permuted, %v", k, got[k], e, want)
		}
	}
}
