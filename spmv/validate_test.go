package spmv

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// mutationGraph is a random graph with one big component, a second small
// component and isolated vertices, so that every mutation class has material.
func mutationGraph() (testGraph, int64) {
	rng := rand.New(rand.NewPCG(11, 13))
	g := testGraph{name: "mutation", n: 500}
	for e := 0; e < 1500; e++ {
		g.edges = append(g.edges, graph.Edge{U: rng.Int64N(400), V: rng.Int64N(400)})
	}
	for v := int64(401); v < 420; v++ { // a path component 400..419
		g.edges = append(g.edges, graph.Edge{U: v - 1, V: v})
	}
	g.edges = append(g.edges, graph.Edge{U: 3, V: 3}, graph.Edge{U: 5, V: 9}, graph.Edge{U: 9, V: 5})
	return g, g.edges[0].U
}

func adjacency(g testGraph) []map[int64]bool {
	adj := make([]map[int64]bool, g.n)
	for i := range adj {
		adj[i] = map[int64]bool{}
	}
	for _, e := range g.edges {
		if e.U != e.V {
			adj[e.U][e.V] = true
			adj[e.V][e.U] = true
		}
	}
	return adj
}

// TestValidatorRejectsMutations: every class of corrupt result is rejected,
// with the check that catches it named, on 1, 3 and 4 ranks.
func TestValidatorRejectsMutations(t *testing.T) {
	g, root := mutationGraph()
	parent, level, nedge := serialBFS(g, root)
	adj := adjacency(g)

	// findVertex returns the first vertex satisfying ok.
	findVertex := func(ok func(v int64) bool) int64 {
		for v := int64(0); v < g.n; v++ {
			if ok(v) {
				return v
			}
		}
		t.Fatal("test graph has no vertex for this mutation")
		return -1
	}
	reachedNonRoot := func(v int64) bool { return v != root && level[v] > 0 }

	type mutation struct {
		name, want string
		apply      func(p []int64, l []int32) (claimed int64)
	}
	mutations := []mutation{
		{"parent is not a neighbour", "check 5", func(p []int64, l []int32) int64 {
			v := findVertex(func(v int64) bool { return level[v] >= 2 })
			w := findVertex(func(w int64) bool { return level[w] == level[v]-1 && !adj[v][w] })
			p[v] = w
			return nedge
		}},
		{"two vertices are each other's parent", "check 1", func(p []int64, l []int32) int64 {
			a := findVertex(func(v int64) bool { return level[v] >= 2 })
			b := findVertex(func(w int64) bool { return adj[a][w] && w != root && level[w] > 0 })
			p[a], p[b] = b, a
			return nedge
		}},
		{"level off by one", "check 2", func(p []int64, l []int32) int64 {
			v := findVertex(reachedNonRoot)
			l[v]++
			return nedge
		}},
		{"leaf re-hung under a neighbour of its own level", "check 3", func(p []int64, l []int32) int64 {
			// v is a leaf with a neighbour u on its own level. Hanging v under
			// u with a matching level keeps checks 1, 2 and 5 happy, but the
			// edge to v's old parent now spans two levels.
			isLeaf := func(v int64) bool {
				for w := int64(0); w < g.n; w++ {
					if p[w] == v && w != v {
						return false
					}
				}
				return true
			}
			v := findVertex(func(v int64) bool {
				if !reachedNonRoot(v) || !isLeaf(v) {
					return false
				}
				for u := range adj[v] {
					if level[u] == level[v] {
						return true
					}
				}
				return false
			})
			for u := int64(0); u < g.n; u++ {
				if adj[v][u] && level[u] == level[v] {
					p[v] = u
					break
				}
			}
			l[v] = level[v] + 1
			return nedge
		}},
		{"reached vertex claimed unreached", "check 4", func(p []int64, l []int32) int64 {
			v := findVertex(func(v int64) bool {
				if !reachedNonRoot(v) {
					return false
				}
				for w := int64(0); w < g.n; w++ {
					if p[w] == v && w != v {
						return false // a leaf, so that nothing else breaks first
					}
				}
				return true
			})
			p[v], l[v] = -1, -1
			return -1
		}},
		{"root's parent is another vertex", "root", func(p []int64, l []int32) int64 {
			for u := range adj[root] {
				p[root] = u
				break
			}
			return nedge
		}},
		{"parent out of range", "out of range", func(p []int64, l []int32) int64 {
			p[findVertex(reachedNonRoot)] = g.n + 5
			return nedge
		}},
		{"negative parent other than -1", "out of range", func(p []int64, l []int32) int64 {
			p[findVertex(reachedNonRoot)] = -7
			return nedge
		}},
		{"unreached vertex claims a level", "reached and unreached", func(p []int64, l []int32) int64 {
			l[findVertex(func(v int64) bool { return level[v] < 0 })] = 2
			return nedge
		}},
		{"vertex of another component hung on its neighbour", "check 1", func(p []int64, l []int32) int64 {
			p[410], l[410] = 409, 3
			return nedge
		}},
		{"vertex is its own parent", "check 1", func(p []int64, l []int32) int64 {
			v := findVertex(reachedNonRoot)
			p[v] = v
			return nedge
		}},
		{"wrong nedge", "nedge", func(p []int64, l []int32) int64 { return nedge + 1 }},
	}
	for _, ranks := range []int{1, 3, 4} {
		if err := validateGlobal(t, g, ranks, root, parent, level, nedge); err != nil {
			t.Fatalf("%d ranks: the correct result is rejected: %v", ranks, err)
		}
		for _, m := range mutations {
			p, l := slices.Clone(parent), slices.Clone(level)
			claimed := m.apply(p, l)
			err := validateGlobal(t, g, ranks, root, p, l, claimed)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("%d ranks, %s: got %v, want a ValidationError", ranks, m.name, err)
			}
			if !strings.Contains(err.Error(), m.want) {
				t.Errorf("%d ranks, %s: error does not mention %q:\n%v", ranks, m.name, m.want, err)
			}
		}
	}
}

// TestValidatorRejectsDepthFirstTree: a spanning tree that is a tree and uses
// only input edges, but is not breadth-first, fails check 3.
func TestValidatorRejectsDepthFirstTree(t *testing.T) {
	g := testGraph{name: "square", n: 4, edges: []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 0}}}
	parent := []int64{0, 0, 1, 2}
	level := []int32{0, 1, 2, 3}
	for _, ranks := range []int{1, 2, 4} {
		err := validateGlobal(t, g, ranks, 0, parent, level, 4)
		if err == nil || !strings.Contains(err.Error(), "check 3") {
			t.Fatalf("%d ranks: depth-first tree: got %v, want a check 3 violation", ranks, err)
		}
	}
}

// TestValidatorWithoutLevels: a result with parents only is still validated.
func TestValidatorWithoutLevels(t *testing.T) {
	g, root := mutationGraph()
	parent, _, nedge := serialBFS(g, root)
	if err := validateGlobal(t, g, 3, root, parent, nil, nedge); err != nil {
		t.Fatal(err)
	}
	p := slices.Clone(parent)
	p[410] = 409
	if err := validateGlobal(t, g, 3, root, p, nil, -1); err == nil {
		t.Fatal("parents into another component accepted without levels")
	}
}
