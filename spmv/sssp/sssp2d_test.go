package sssp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// grids2D are the process grids the 2D tests run (rows × columns).
var grids2D = [][2]int{{1, 1}, {1, 2}, {2, 1}, {2, 2}, {2, 3}, {3, 2}}

// build2D is the 2D kernel 1 and the weights of src on this rank.
func build2D(ctx context.Context, c comm.Comm, grid partition.Grid, src graph.WeightSource, threads int) (*graph.Block2D, []float32, error) {
	blk, _, err := graph.BuildUndirected2DFrom(ctx, c, grid, src, threads)
	if err != nil {
		return nil, nil, err
	}
	w, err := graph.BuildWeights2D(ctx, c, blk, src, threads)
	return blk, w, err
}

// search2D builds g on an r×c grid of in-process ranks, searches from root
// with cfg, validates the result after applying mutate (when not nil) to
// every rank's share, and returns the whole result and every rank's
// verdict.
func search2D(t testing.TB, g weightedGraph, r, c int, root int64, cfg Config,
	mutate func(first int64, dist []float32, parent []int64)) (run, []error, error) {
	t.Helper()
	grid, err := partition.NewGrid(g.n, r, c)
	if err != nil {
		t.Fatal(err)
	}
	p := grid.P()
	out := run{dist: make([]float32, g.n), parent: make([]int64, g.n), stats: make([]Stats, p)}
	verdicts := make([]error, p)
	err = inproc.Run(context.Background(), p, func(ctx context.Context, cm comm.Comm) error {
		k := cm.Rank()
		src := g.share(k, p)
		blk, w, err := build2D(ctx, cm, grid, src, cfg.Threads)
		if err != nil {
			return err
		}
		e, err := New2D(ctx, cm, blk, w, cfg)
		if err != nil {
			return err
		}
		val, err := NewValidator2D(cm, blk, w, cfg.Threads)
		if err != nil {
			return err
		}
		// A warm-up from another root: the second search reuses the state.
		if _, err := e.Run(ctx, (root+1)%g.n); err != nil {
			return err
		}
		e.Prepare()
		res, err := e.Run(ctx, root)
		if err != nil {
			return err
		}
		copy(out.dist[blk.OwnedFirst:], res.Dist)
		copy(out.parent[blk.OwnedFirst:], res.Parent)
		out.stats[k] = res.Stats
		if k == 0 {
			out.delta = e.Delta()
		}
		if mutate != nil {
			mutate(blk.OwnedFirst, res.Dist, res.Parent)
		}
		verdicts[k] = val.Validate(ctx, root, res.Dist, res.Parent)
		if IsInvalid(verdicts[k]) {
			return nil
		}
		return verdicts[k]
	})
	return out, verdicts, err
}

// equal2D searches g from root on every grid of grids2D with cfg and fails
// unless every search is valid, its distances equal want and its parents
// and Δ those of the 1D engine on one rank.
func equal2D(t *testing.T, g weightedGraph, root int64, want []float32, cfg Config, ref string) {
	t.Helper()
	one, err := search(t, g, 1, root, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range grids2D {
		name := fmt.Sprintf("%dx%d %+v", rc[0], rc[1], cfg)
		got, verdicts, err := search2D(t, g, rc[0], rc[1], root, cfg, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k, v := range verdicts {
			if v != nil {
				t.Fatalf("%s: rank %d: %v", name, k, v)
			}
		}
		for v := range want {
			if got.dist[v] != want[v] {
				t.Fatalf("%s: dist[%d] = %v, %s %v", name, v, got.dist[v], ref, want[v])
			}
		}
		if !slices.Equal(got.parent, one.parent) || got.delta != one.delta {
			t.Fatalf("%s: parents (or Δ %v against %v) differ from the 1D engine's", name, got.delta, one.delta)
		}
	}
}

// On random graphs (duplicates, self-loops, zero weights, several
// components), the 2D engine's distances equal Dijkstra's and its parents
// the 1D engine's, for every grid, thread count, Δ and request form.
func TestSearch2DEqualsDijkstraAnd1D(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	cfgs := []Config{{Threads: 1}, {Threads: 3, Compact: true}, {Threads: 2, Delta: 0.3}, {Threads: 1, Delta: 5, Compact: true}}
	for trial := range 3 {
		n := int64(64 + rng.IntN(700))
		g := randomWeighted(rng, n, int(n)*(1+rng.IntN(8)))
		root := g.edges[rng.IntN(len(g.edges))].U
		want := dijkstra(g, root)
		equal2D(t, g, root, want, cfgs[trial%len(cfgs)], "Dijkstra")
		equal2D(t, g, root, want, cfgs[(trial+2)%len(cfgs)], "Dijkstra")
	}
}

// On a Graph500 Kronecker graph with the generator's weights, 2D equals
// Dijkstra and the 1D engine's tree.
func TestKronecker2DEqualsDijkstra(t *testing.T) {
	params := kronecker.DefaultParams(11)
	g := weightedGraph{n: params.NumVertices(), edges: make([]graph.Edge, params.NumEdges()), weights: make([]float32, params.NumEdges())}
	params.Generate(0, g.edges)
	params.Weights(0, g.weights, 2)
	root := g.edges[5].U
	equal2D(t, g, root, dijkstra(g, root), Config{Threads: 2}, "Dijkstra")
}

// The golden weighted graph on the 2D grids equals NetworkX's distances.
func TestGoldenWeighted2DEqualsNetworkX(t *testing.T) {
	g, want := goldenWeighted(t)
	equal2D(t, g, g.edges[0].U, want, Config{Threads: 2, Compact: true}, "NetworkX")
}

// Each of the specification's checks rejects, on the 2D grids, a result
// broken its way, and every rank returns the same verdict.
func TestMutationsAreRejected2D(t *testing.T) {
	g := weightedGraph{n: 256,
		edges:   []graph.Edge{{U: 0, V: 1}, {U: 1, V: 200}, {U: 200, V: 130}, {U: 0, V: 200}, {U: 130, V: 70}, {U: 5, V: 5}},
		weights: []float32{0.5, 0.25, 0, 0.9, 0.5, 0.1},
	}
	// From root 0: d(1) = 0.5, d(200) = 0.75, d(130) = 0.75, d(70) = 1.25.
	muts := []mutation{
		{"root distance", violRoot, func(_ int64, d []float32, _ []int64, l int) { d[l] = 0.1 }, 0},
		{"distance without parent", violReach, func(_ int64, _ []float32, p []int64, l int) { p[l] = -1 }, 70},
		{"parent not a neighbour", violTree, func(_ int64, _ []float32, p []int64, l int) { p[l] = 0 }, 70},
		{"parent not a vertex", violTree, func(_ int64, _ []float32, p []int64, l int) { p[l] = 256 }, 70},
		{"tree edge too long", violTree, func(_ int64, d []float32, _ []int64, l int) { d[l] = 1.5 }, 70},
		{"edge shorter than the distances", violEdge, func(_ int64, d []float32, p []int64, l int) { d[l], p[l] = 0.95, 0 }, 200},
		{"span", violSpan, func(_ int64, d []float32, p []int64, l int) { d[l], p[l] = float32(math.Inf(1)), -1 }, 70},
		{"cycle", violCycle, func(_ int64, _ []float32, p []int64, l int) { p[l] = 130 }, 200},
	}
	for _, m := range muts {
		for _, rc := range [][2]int{{1, 1}, {2, 2}, {2, 3}} {
			mutate := func(first int64, dist []float32, parent []int64) {
				if l := m.x - first; l >= 0 && l < int64(len(dist)) {
					m.fn(m.x, dist, parent, int(l))
				}
			}
			_, verdicts, err := search2D(t, g, rc[0], rc[1], 0, Config{Threads: 2}, mutate)
			if err != nil {
				t.Fatalf("%s, %dx%d: %v", m.name, rc[0], rc[1], err)
			}
			for k, err := range verdicts {
				var ve *ValidationError
				if !errors.As(err, &ve) || ve.Counts[m.kind] == 0 {
					t.Fatalf("%s, %dx%d: rank %d got %v, want a %s violation", m.name, rc[0], rc[1], k, err, violNames[m.kind])
				}
			}
		}
	}
}
