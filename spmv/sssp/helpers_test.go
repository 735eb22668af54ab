package sssp

import (
	"container/heap"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// weightedGraph is a test input: tuples with weights, duplicates and
// self-loops included.
type weightedGraph struct {
	n       int64
	edges   []graph.Edge
	weights []float32
}

// randomWeighted returns m tuples on n vertices with uniform weights in
// [0, 1), some duplicated with another weight, some self-loops, some zero
// weights, and (when m is small) several components.
func randomWeighted(rng *rand.Rand, n int64, m int) weightedGraph {
	g := weightedGraph{n: n}
	for len(g.edges) < m {
		e := graph.Edge{U: rng.Int64N(n), V: rng.Int64N(n)}
		w := rng.Float32()
		switch k := rng.IntN(20); {
		case k == 0:
			e.V = e.U
		case k == 1 && len(g.edges) > 0:
			e = g.edges[rng.IntN(len(g.edges))]
		case k == 2:
			w = 0
		}
		g.edges = append(g.edges, e)
		g.weights = append(g.weights, w)
	}
	return g
}

// share is rank r's contiguous share of g's tuples on p ranks.
func (g weightedGraph) share(r, p int) graph.WeightedEdges {
	lo, hi := graph.ShareStart(int64(len(g.edges)), r, p), graph.ShareStart(int64(len(g.edges)), r+1, p)
	return graph.WeightedEdges{Edges: g.edges[lo:hi], Weights: g.weights[lo:hi]}
}

// dijkstra is the serial reference: distances in float32 arithmetic (each
// the minimum over paths of the path's weights summed from the root), over
// the smallest weight of each pair's tuples; +Inf unreached.
func dijkstra(g weightedGraph, root int64) []float32 {
	adj := make([][]halfEdge, g.n)
	for i, e := range g.edges {
		if e.U != e.V {
			adj[e.U] = append(adj[e.U], halfEdge{e.V, g.weights[i]})
			adj[e.V] = append(adj[e.V], halfEdge{e.U, g.weights[i]})
		}
	}
	dist := make([]float32, g.n)
	for i := range dist {
		dist[i] = float32(math.Inf(1))
	}
	dist[root] = 0
	q := &queue{{root, 0}}
	for q.Len() > 0 {
		it := heap.Pop(q).(item)
		if it.d > dist[it.v] {
			continue
		}
		for _, h := range adj[it.v] {
			if nd := it.d + h.w; nd < dist[h.v] {
				dist[h.v] = nd
				heap.Push(q, item{h.v, nd})
			}
		}
	}
	return dist
}

type halfEdge struct {
	v int64
	w float32
}

type item struct {
	v int64
	d float32
}

type queue []item

func (q queue) Len() int           { return len(q) }
func (q queue) Less(i, j int) bool { return q[i].d < q[j].d }
func (q queue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)        { *q = append(*q, x.(item)) }
func (q *queue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// run is one search's gathered result.
type run struct {
	dist   []float32
	parent []int64
	delta  float64
	stats  []Stats // per rank
}

// buildWeighted is kernel 1 and the weights of src on this rank.
func buildWeighted(ctx context.Context, c comm.Comm, part partition.Block1D, src graph.WeightSource, threads int) (*graph.CSR, []float32, error) {
	g, _, err := graph.BuildUndirectedFrom(ctx, c, part, src, threads)
	if err != nil {
		return nil, nil, err
	}
	w, err := graph.BuildWeights(ctx, c, part, g, src, threads)
	return g, w, err
}

// rankFunc is what a test does on every rank with its engine and
// validator after the search from root.
type rankFunc func(ctx context.Context, c comm.Comm, s *SSSP, v *Validator, res *Result) error

// search builds g on p in-process ranks, searches from root with cfg and
// returns the whole result; after, when not nil, runs on every rank.
func search(t testing.TB, g weightedGraph, p int, root int64, cfg Config, after rankFunc) (run, error) {
	t.Helper()
	part, err := partition.NewBlock1D(g.n, p)
	if err != nil {
		t.Fatal(err)
	}
	out := run{dist: make([]float32, g.n), parent: make([]int64, g.n), stats: make([]Stats, p)}
	err = inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		src := g.share(r, p)
		csr, w, err := buildWeighted(ctx, c, part, src, cfg.Threads)
		if err != nil {
			return err
		}
		s, err := New(ctx, c, csr, w, part, cfg)
		if err != nil {
			return err
		}
		res, err := s.Run(ctx, root)
		if err != nil {
			return err
		}
		copy(out.dist[csr.FirstGlobal:], res.Dist)
		copy(out.parent[csr.FirstGlobal:], res.Parent)
		out.stats[r] = res.Stats
		if r == 0 {
			out.delta = s.Delta()
		}
		if after == nil {
			return nil
		}
		val, err := NewValidator(ctx, c, csr, w, part, cfg.Threads)
		if err != nil {
			return err
		}
		return after(ctx, c, s, val, res)
	})
	return out, err
}

// applyAll applies the requests src sent (compact or fixed) as the owner
// threads do, each to its own vertices.
func (s *SSSP) applyAll(src int, msg []byte, compact bool) error {
	apply := s.apply
	if compact {
		apply = s.applyCompact
	}
	for o := range s.bins {
		lo := uint32(o) << s.ownerShift
		hi := uint32(min(int64(len(s.dist)), int64(o+1)<<s.ownerShift))
		if err := apply(&s.bins[o], src, msg, lo, hi); err != nil {
			return err
		}
	}
	return nil
}
