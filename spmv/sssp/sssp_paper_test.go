package sssp

// Tests named after what they check in the sources this package follows:
// Meyer and Sanders's Δ-stepping (§2 the buckets and the light/heavy
// split, §3 the distributed phases, §4 the choice of Δ). The Graph500
// spec's kernel 3 validation rules are tested in validate_test.go:
// TestMutationsAreRejected breaks a valid result each way the rules forbid
// (root distance or parent, a distance without a parent, a tree edge that
// is not an edge or whose distances differ from its weight, an edge with
// |d(u) − d(v)| > w, an edge joining a reached and an unreached vertex, a
// cycle of parents) and TestValidResultsPass checks the engine's results on
// 1 to 4 ranks. The sources are cited in full in the package documentation
// (doc.go).

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// positiveWeights is a random graph whose weights are all > 0.
func positiveWeights(rng *rand.Rand, n int64, m int) weightedGraph {
	g := randomWeighted(rng, n, m)
	for i := range g.weights {
		g.weights[i] = 0.01 + 0.99*g.weights[i]
	}
	return g
}

// totalRequests sums the requests of every rank.
func totalRequests(r run) (n int64) {
	for _, s := range r.stats {
		n += s.Requests
	}
	return n
}

// storedEntries is the number of adjacency entries of g (each distinct
// pair twice, self-loops dropped).
func storedEntries(g weightedGraph) int64 {
	seen := map[[2]int64]bool{}
	for _, e := range g.edges {
		if e.U != e.V {
			seen[[2]int64{e.U, e.V}], seen[[2]int64{e.V, e.U}] = true, true
		}
	}
	return int64(len(seen))
}

// §2: with Δ at least the largest distance every vertex is in bucket 0 and
// the search is one bucket of light phases (the Bellman–Ford end of the
// range of Δ); with Δ below every weight each edge is heavy, every vertex
// is settled before its edges are relaxed, and no edge is relaxed twice
// (the Dijkstra end). Either way the distances are Dijkstra's.
func TestPaperSection2DeltaRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	g := positiveWeights(rng, 200, 1200)
	root := g.edges[0].U
	want := dijkstra(g, root)
	wide, err := search(t, g, 2, root, Config{Threads: 1, Delta: 1e6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if wide.stats[0].Buckets != 1 {
		t.Errorf("Δ = 1e6: %d buckets, want 1", wide.stats[0].Buckets)
	}
	narrow, err := search(t, g, 2, root, Config{Threads: 1, Delta: 0.005}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, most := totalRequests(narrow), storedEntries(g); got > most {
		t.Errorf("Δ below every weight: %d requests for %d adjacency entries; an edge was relaxed twice", got, most)
	}
	if narrow.stats[0].Buckets <= wide.stats[0].Buckets {
		t.Errorf("Δ below every weight: %d buckets, no more than Δ = 1e6's", narrow.stats[0].Buckets)
	}
	for v := range want {
		if wide.dist[v] != want[v] || narrow.dist[v] != want[v] {
			t.Fatalf("dist[%d]: Δ = 1e6 %v, Δ = 0.005 %v, Dijkstra %v", v, wide.dist[v], narrow.dist[v], want[v])
		}
	}
}

// §2, Fig. 1: a bucket is emptied by light phases followed by one heavy
// phase, so a search makes at least two phases per non-empty bucket; with
// every edge light there are no heavy requests, so a second search with Δ
// above every weight makes no more requests than light phases allow.
func TestPaperSection2LightThenHeavy(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	g := positiveWeights(rng, 300, 2000)
	root := g.edges[0].U
	for _, delta := range []float64{0.05, 0.2, 1} {
		r, err := search(t, g, 3, root, Config{Threads: 2, Delta: delta}, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := r.stats[0]
		if st.Phases < 2*st.Buckets {
			t.Errorf("Δ = %v: %d phases for %d buckets, want ≥ 2 per bucket", delta, st.Phases, st.Buckets)
		}
		for _, s := range r.stats[1:] {
			if s.Phases != st.Phases || s.Buckets != st.Buckets {
				t.Errorf("Δ = %v: ranks disagree on phases (%d, %d) and buckets (%d, %d)", delta, s.Phases, st.Phases, s.Buckets, st.Buckets)
			}
		}
	}
}

// §3: the distributed phases send each request to its target's owner and
// synchronise once per phase; the result does not depend on the number of
// processors (distances and parents identical on 1 to 4 ranks:
// TestDistancesEqualDijkstra), and a rank sends nothing to itself over the
// network.
func TestPaperSection3Distributed(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	g := positiveWeights(rng, 256, 1500)
	root := g.edges[0].U
	one, err := search(t, g, 1, root, Config{Threads: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if one.stats[0].BytesSent != 0 {
		t.Errorf("1 rank sent %d bytes", one.stats[0].BytesSent)
	}
	four, err := search(t, g, 4, root, Config{Threads: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sent int64
	for _, s := range four.stats {
		sent += s.BytesSent
	}
	if sent == 0 {
		t.Errorf("4 ranks sent nothing for %d requests", totalRequests(four))
	}
}

// §4: for random weights in [0, 1) Δ = Θ(1/d) (d the degree) keeps the
// work linear; DefaultDelta is twice the heaviest weight over the average
// degree of the vertices with an edge, the same on every rank.
func TestPaperSection4DefaultDelta(t *testing.T) {
	// A star of 4 leaves (weights 0.2, 0.4, 0.6, 0.8) and vertex 9 alone:
	// 8 entries over 5 vertices with edges, so Δ = 2 · 0.8 / (8/5) = 1.
	edges := []graph.Edge{{U: 0, V: 1}, {U: 0, V: 2}, {U: 0, V: 3}, {U: 0, V: 4}}
	weights := []float32{0.2, 0.4, 0.6, 0.8}
	for _, p := range []int{1, 2} {
		part, err := partition.NewBlock1D(128, p)
		if err != nil {
			t.Fatal(err)
		}
		err = inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			src := graph.WeightedEdges{Edges: edges, Weights: weights}
			if c.Rank() > 0 {
				src = graph.WeightedEdges{}
			}
			g, w, err := buildWeighted(ctx, c, part, src, 1)
			if err != nil {
				return err
			}
			d, err := DefaultDelta(ctx, c, g, w)
			if err != nil {
				return err
			}
			if want := 2 * float64(float32(0.8)) / 1.6; d != want {
				t.Errorf("%d ranks, rank %d: Δ = %v, want %v", p, c.Rank(), d, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
