package graph500

// Tests that map the driver to the Graph500 Benchmark Specification
// (version 3.0): the search keys of kernel 2 (64 of them, distinct, each
// of degree ≥ 1 not counting self-loops), the nedge of TEPS (the input
// tuples inside the searched component), the validation of every search,
// and the statistics of the output block (harmonic mean of the TEPS).
// The graph's tuples are regenerated serially here and the component of
// every key found by a union-find, independently of the distributed
// engine.

import (
	"context"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/results"
)

// serialTuples returns every tuple of cfg's Kronecker graph, generated on
// one rank.
func serialTuples(t *testing.T, cfg Config) []graph.Edge {
	t.Helper()
	share := cfg.Graph.Share(0, 1, 1)
	tuples := make([]graph.Edge, share.Len())
	if err := share.Read(context.Background(), 0, tuples); err != nil {
		t.Fatal(err)
	}
	return tuples
}

// components returns, per vertex of n, its component's representative
// over the tuples.
func components(n int64, tuples []graph.Edge) []int64 {
	parent := make([]int64, n)
	for v := range parent {
		parent[v] = int64(v)
	}
	var find func(v int64) int64
	find = func(v int64) int64 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for _, e := range tuples {
		if a, b := find(e.U), find(e.V); a != b {
			parent[a] = b
		}
	}
	for v := range parent {
		parent[v] = find(int64(v))
	}
	return parent
}

// TestSearchKeys_Spec: a run samples DefaultRoots = 64 search keys, all
// distinct, each a vertex with at least one tuple to another vertex (a
// self-loop gives no degree), and validates the search from every one.
func TestSearchKeys_Spec(t *testing.T) {
	cfg := testConfig(10, 3)
	cfg.NumRoots = DefaultRoots
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if DefaultRoots != 64 || len(run.Searches) != 64 {
		t.Fatalf("%d searches (DefaultRoots %d), want 64", len(run.Searches), DefaultRoots)
	}
	degree := make([]int, cfg.Graph.NumVertices())
	for _, e := range serialTuples(t, cfg) {
		if e.U != e.V {
			degree[e.U]++
			degree[e.V]++
		}
	}
	var keys []int64
	for i, s := range run.Searches {
		if degree[s.Root] < 1 {
			t.Errorf("key %d, vertex %d, has no tuple to another vertex", i, s.Root)
		}
		if !s.Validated {
			t.Errorf("search %d from %d not validated", i, s.Root)
		}
		keys = append(keys, s.Root)
	}
	slices.Sort(keys)
	if len(slices.Compact(keys)) != 64 {
		t.Errorf("the 64 keys are not distinct")
	}
}

// TestTEPSCountsTheComponentsTuples_Spec: the nedge of every search, the
// numerator of its TEPS, is the number of input tuples (u, v), u ≠ v,
// duplicates counted, whose ends lie in the searched component; the
// output block's TEPS statistics average them harmonically.
func TestTEPSCountsTheComponentsTuples_Spec(t *testing.T) {
	cfg := testConfig(9, 4)
	cfg.Graph.EdgeFactor = 4 // sparse: components other than the giant one
	cfg.NumRoots = 16
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	tuples := serialTuples(t, cfg)
	comp := components(cfg.Graph.NumVertices(), tuples)
	var inverse float64
	for i, s := range run.Searches {
		var want int64
		for _, e := range tuples {
			if e.U != e.V && comp[e.U] == comp[s.Root] {
				want++
			}
		}
		if s.NEdge != want {
			t.Errorf("search %d from %d: nedge %d, want %d tuples of its component", i, s.Root, s.NEdge, want)
		}
		inverse += s.Time / float64(s.NEdge)
	}
	if got, want := results.ComputeTEPS(run.Searches).HarmonicMean, float64(len(run.Searches))/inverse; !near(got, want) {
		t.Errorf("harmonic mean TEPS %g, want %g", got, want)
	}
}

// near reports whether a and b agree to 1e-9 relative.
func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-9*max(a, b, -a, -b)
}
