package sssp

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// Distances equal a serial Dijkstra's on random graphs, and distances and
// parents are identical on 1, 2, 3 and 4 ranks and any thread count.
func TestDistancesEqualDijkstra(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 6 {
		n := int64(64 + rng.IntN(500))
		g := randomWeighted(rng, n, int(n)*(1+rng.IntN(8)))
		root := g.edges[rng.IntN(len(g.edges))].U
		want := dijkstra(g, root)
		var first run
		for p := 1; p <= 4; p++ {
			for _, cfg := range []Config{{Threads: 1}, {Threads: 3}, {Threads: 2, Delta: 0.3}, {Threads: 1, Delta: 5}} {
				got, err := search(t, g, p, root, cfg, nil)
				if err != nil {
					t.Fatalf("trial %d, %d ranks, %+v: %v", trial, p, cfg, err)
				}
				for v := range want {
					if got.dist[v] != want[v] {
						t.Fatalf("trial %d, %d ranks, %+v: dist[%d] = %v, Dijkstra %v", trial, p, cfg, v, got.dist[v], want[v])
					}
				}
				if cfg.Delta != 0 {
					continue
				}
				if first.parent == nil {
					first = got
				} else if !slices.Equal(got.parent, first.parent) {
					t.Fatalf("trial %d, %d ranks, %+v: parents differ from 1 rank's", trial, p, cfg)
				}
			}
		}
	}
}

// On a Graph500 Kronecker graph with the generator's weights, built from
// the ranks' shares, the search and its validation agree with Dijkstra on
// 1, 2 and 4 ranks.
func TestKroneckerEqualsDijkstra(t *testing.T) {
	params := kronecker.DefaultParams(11)
	g := weightedGraph{n: params.NumVertices(), edges: make([]graph.Edge, params.NumEdges()), weights: make([]float32, params.NumEdges())}
	params.Generate(0, g.edges)
	params.Weights(0, g.weights, 2)
	root := g.edges[5].U
	want := dijkstra(g, root)
	searchesEqual(t, g, root, want, []int{1, 2, 4}, "Dijkstra")
}

// searchesEqual searches g from root on each rank count, validating every
// search, and fails unless every distance equals want (ref names where
// want comes from).
func searchesEqual(t *testing.T, g weightedGraph, root int64, want []float32, ranks []int, ref string) {
	t.Helper()
	for _, p := range ranks {
		errs := make([]error, p)
		got, err := search(t, g, p, root, Config{Threads: 2}, validateAfter(root, nil, errs))
		if err != nil {
			t.Fatal(err)
		}
		for v := range want {
			if got.dist[v] != want[v] {
				t.Fatalf("%d ranks: dist[%d] = %v, %s %v", p, v, got.dist[v], ref, want[v])
			}
		}
		for r, err := range errs {
			if err != nil {
				t.Fatalf("%d ranks, rank %d: %v", p, r, err)
			}
		}
	}
}

// A CSR with 64-bit columns (graphs beyond 2^32 vertices) gives the same
// distances: its rows take the generic sort and expansion.
func TestWideColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	g := randomWeighted(rng, 300, 2000)
	root := g.edges[0].U
	want := dijkstra(g, root)
	const p = 3
	part, err := partition.NewBlock1D(g.n, p)
	if err != nil {
		t.Fatal(err)
	}
	dist := make([]float32, g.n)
	err = inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		csr, w, err := buildWeighted(ctx, c, part, g.share(c.Rank(), p), 1)
		if err != nil {
			return err
		}
		for _, x := range csr.Cols32 {
			csr.Cols64 = append(csr.Cols64, int64(x))
		}
		csr.Cols32 = nil
		s, err := New(ctx, c, csr, w, part, Config{Threads: 2})
		if err != nil {
			return err
		}
		res, err := s.Run(ctx, root)
		if err != nil {
			return err
		}
		copy(dist[csr.FirstGlobal:], res.Dist)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for v := range want {
		if dist[v] != want[v] {
			t.Fatalf("dist[%d] = %v, Dijkstra %v", v, dist[v], want[v])
		}
	}
}
