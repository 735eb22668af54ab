package sssp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
)

// validateAfter returns a rankFunc that applies mutate to the owning
// rank's share of the result (mutate gets the global id of local 0 and
// the slices), validates, and stores every rank's error in errs.
func validateAfter(root int64, mutate func(first int64, dist []float32, parent []int64), errs []error) rankFunc {
	return func(ctx context.Context, c comm.Comm, s *SSSP, v *Validator, res *Result) error {
		if mutate != nil {
			mutate(s.g.FirstGlobal, res.Dist, res.Parent)
		}
		err := v.Validate(ctx, root, res.Dist, res.Parent)
		errs[c.Rank()] = err
		if IsInvalid(err) {
			return nil
		}
		return err
	}
}

// Results of the engine pass validation on any rank count.
func TestValidResultsPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 4 {
		n := int64(100 + rng.IntN(400))
		g := randomWeighted(rng, n, int(n)*(1+rng.IntN(6)))
		root := g.edges[0].U
		for p := 1; p <= 4; p++ {
			errs := make([]error, p)
			if _, err := search(t, g, p, root, Config{Threads: 2}, validateAfter(root, nil, errs)); err != nil {
				t.Fatal(err)
			}
			for r, err := range errs {
				if err != nil {
					t.Fatalf("trial %d, %d ranks: rank %d: %v", trial, p, r, err)
				}
			}
		}
	}
}

// mutation changes one vertex's entry of a valid result; kind is the
// violation it must cause.
type mutation struct {
	name string
	kind int
	fn   func(x int64, dist []float32, parent []int64, l int) // l: x's local id
	x    int64                                                // the vertex changed
}

// Each of the specification's checks rejects a result broken its way, on
// 1 and 3 ranks, and every rank returns the same verdict.
func TestMutationsAreRejected(t *testing.T) {
	// A path 0 −0.5− 1 −0.25− 2 −0− 3, a chord 0 −0.9− 2, vertex 4 joined
	// to 3 by 0.5, and 5 isolated; from root 0: d = 0, 0.5, 0.75, 0.75, 1.25.
	g := weightedGraph{n: 128,
		edges:   []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 2, V: 3}, {U: 0, V: 2}, {U: 3, V: 4}, {U: 5, V: 5}},
		weights: []float32{0.5, 0.25, 0, 0.9, 0.5, 0.1},
	}
	muts := []mutation{
		{"root distance", violRoot, func(_ int64, d []float32, _ []int64, l int) { d[l] = 0.1 }, 0},
		{"distance without parent", violReach, func(_ int64, _ []float32, p []int64, l int) { p[l] = -1 }, 4},
		{"parent not a neighbour", violTree, func(_ int64, _ []float32, p []int64, l int) { p[l] = 0 }, 4},
		{"tree edge too long", violTree, func(_ int64, d []float32, _ []int64, l int) { d[l] = 1.5 }, 4},
		{"edge shorter than the distances", violEdge, func(_ int64, d []float32, p []int64, l int) { d[l], p[l] = 0.95, 0 }, 2},
		{"span", violSpan, func(_ int64, d []float32, p []int64, l int) { d[l], p[l] = float32(math.Inf(1)), -1 }, 4},
		{"cycle", violCycle, func(_ int64, _ []float32, p []int64, l int) { p[l] = 3 }, 2},
	}
	for _, m := range muts {
		for _, p := range []int{1, 3} {
			errs := make([]error, p)
			mutate := func(first int64, dist []float32, parent []int64) {
				if l := m.x - first; l >= 0 && l < int64(len(dist)) {
					m.fn(m.x, dist, parent, int(l))
				}
			}
			if _, err := search(t, g, p, 0, Config{Threads: 1}, validateAfter(0, mutate, errs)); err != nil {
				t.Fatalf("%s, %d ranks: %v", m.name, p, err)
			}
			for r, err := range errs {
				var ve *ValidationError
				if !errors.As(err, &ve) || ve.Counts[m.kind] == 0 {
					t.Fatalf("%s, %d ranks: rank %d got %v, want a %s violation", m.name, p, r, err, violNames[m.kind])
				}
			}
		}
	}
}
