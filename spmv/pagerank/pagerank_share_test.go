// Tests of PageRank's streamed set-up (pagerank_route.go, the in-place
// pagerank_matrix.go): the result does not depend on which rank reads which
// edge nor on the chunks a share comes in, bit for bit; the routing rounds
// and a skewed owner's growing array give the serial answer; a share that
// changes between its two passes fails every rank instead of hanging.

package pagerank

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
)

// chunked cuts edges into chunks of random lengths.
func chunked(rng *rand.Rand, edges []graph.Edge) graph.EdgeChunks {
	var s graph.EdgeChunks
	for len(edges) > 0 {
		n := 1 + rng.IntN(len(edges))
		s, edges = append(s, edges[:n]), edges[n:]
	}
	return s
}

// TestPageRankShareSpreadInvariant runs PageRank on random graphs with the
// edges given to the ranks in two unrelated ways (consecutive shares in
// one piece; every p-th edge in random chunks): the scores are the same
// bits. This is why a stream spread by rank 0 gives a file's result.
func TestPageRankShareSpreadInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := range 12 {
		edges := randomPRGraph(rng)
		p := 1 + trial%4
		cfg := DefaultConfig()
		cfg.Undirected = trial%3 == 2
		cfg.Partition = []Partition{PartitionRandomEdge, PartitionBlock1D}[trial%2]
		cfg.Allreduce = []Allreduce{AllreduceKylix, AllreduceDense, AllreduceBinary}[trial%3]
		byBlock := make([]graph.EdgeShare, p)
		byStride := make([]graph.EdgeShare, p)
		for r := range p {
			byBlock[r] = graph.EdgeChunks{edges[len(edges)*r/p : len(edges)*(r+1)/p]}
			var mine []graph.Edge
			for i := r; i < len(edges); i += p {
				mine = append(mine, edges[i])
			}
			byStride[r] = chunked(rng, mine)
		}
		resA, a, _ := runShares(t, p, byBlock, cfg, 3)
		resB, b, _ := runShares(t, p, byStride, cfg, 3)
		if resA.NumEdges != resB.NumEdges || resA.Iterations != resB.Iterations || resA.Residual != resB.Residual || resA.InputEdges != int64(len(edges)) {
			t.Fatalf("trial %d: %+v and %+v differ", trial, resA, resB)
		}
		for v, s := range a {
			if b[v] != s {
				t.Fatalf("trial %d p=%d %s %s: vertex %d: %v and %v", trial, p, cfg.Allreduce, cfg.Partition, v, s, b[v])
			}
		}
	}
}

// TestPageRankShareRoundsAndGrowth routes a star of 70000 edges, whose
// source owns every edge under the 1d partition (far beyond the even
// spread the owner's array is sized for, so it grows), in several rounds
// per rank, and a random-edge run of the same graph: both give the serial
// scores.
func TestPageRankShareRoundsAndGrowth(t *testing.T) {
	const m = 70000
	edges := make([]graph.Edge, 0, m+10)
	for i := range m {
		edges = append(edges, graph.Edge{U: 7, V: int64(1000 + i%(m/2))}) // duplicates too
	}
	for i := range 10 {
		edges = append(edges, graph.Edge{U: int64(1000 + i), V: 7})
	}
	want, _ := serialPageRank(edges, DefaultAlpha, 1e-12, 1000, 0)
	for _, part := range []Partition{PartitionBlock1D, PartitionRandomEdge} {
		const p = 4
		shares := make([]graph.EdgeShare, p)
		for r := range p {
			shares[r] = graph.EdgeChunks{edges[len(edges)*r/p : len(edges)*(r+1)/p]}
		}
		cfg := DefaultConfig()
		cfg.Tol, cfg.Partition = 1e-12, part
		res, got, _ := runShares(t, p, shares, cfg, 3)
		if res.NumEdges != m/2+10 {
			t.Fatalf("%s: %d distinct edges, want %d", part, res.NumEdges, m/2+10)
		}
		for v, w := range want {
			if math.Abs(got[v]-w) > 1e-12 {
				t.Fatalf("%s: vertex %d: %v, want %v", part, v, got[v], w)
			}
		}
	}
}

// changingShare yields edges on its first pass and other edges on later
// ones, as a file rewritten between the passes would.
type changingShare struct {
	first, later []graph.Edge
	passes       int
}

func (s *changingShare) Scan(ctx context.Context, emit func([]graph.Edge) error) error {
	s.passes++
	if s.passes == 1 {
		return graph.EdgeChunks{s.first}.Scan(ctx, emit)
	}
	return graph.EdgeChunks{s.later}.Scan(ctx, emit)
}

// TestPageRankShareChanged checks that a share whose second pass differs
// from its first (an unknown id, more edges, fewer edges) fails with
// graph.ErrShareChanged, and that the other ranks fail too rather than
// wait.
func TestPageRankShareChanged(t *testing.T) {
	base := []graph.Edge{{U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 1}}
	for name, later := range map[string][]graph.Edge{
		"unknown id": {{U: 1, V: 2}, {U: 2, V: 99}, {U: 3, V: 1}},
		"more edges": append(slices.Clone(base), graph.Edge{U: 1, V: 3}),
		"fewer":      base[:2],
	} {
		for _, p := range []int{1, 3} {
			var changed atomic.Bool
			err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
				var s graph.EdgeShare = graph.EdgeChunks{base}
				if c.Rank() == 0 {
					s = &changingShare{first: base, later: later}
				}
				_, err := RunShare(ctx, c, s, DefaultConfig())
				if errors.Is(err, graph.ErrShareChanged) {
					changed.Store(true)
				}
				return err
			})
			if err == nil || !changed.Load() {
				t.Errorf("%s on %d ranks: %v, want graph.ErrShareChanged", name, p, err)
			}
		}
	}
}

// TestTopScores compares the bounded selection of the top k with a full
// sort, ties included.
func TestTopScores(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for trial := range 50 {
		n := rng.IntN(300)
		scores := make([]float64, n)
		ids := make([]int64, n)
		for i := range scores {
			scores[i] = float64(rng.IntN(20)) // many ties
			ids[i] = rng.Int64N(1000)*1000 + int64(i)
		}
		all := make([]VertexScore, n)
		for i := range all {
			all[i] = VertexScore{ID: ids[i], Score: scores[i]}
		}
		slices.SortFunc(all, lessScore)
		for _, k := range []int{0, 1, 5, n, n + 3} {
			got := topScores(scores, ids, k)
			if want := all[:min(k, n)]; !slices.Equal(got, want) {
				t.Fatalf("trial %d k %d: %v, want %v", trial, k, got, want)
			}
		}
	}
	if cmp.Compare(lessScore(VertexScore{1, 2}, VertexScore{2, 2}), 0) >= 0 {
		t.Fatal("ties go to the smaller id")
	}
}

// TestPageRankSetupDone checks that the hook runs once per rank after the
// set-up, and that the result does not change.
func TestPageRankSetupDone(t *testing.T) {
	edges := randomPRGraph(rand.New(rand.NewPCG(35, 36)))
	for _, kind := range []Allreduce{AllreduceKylix, AllreduceDense} {
		cfg := DefaultConfig()
		cfg.Allreduce = kind
		_, want, _ := runPageRank(t, 3, edges, cfg, 3)
		var calls atomic.Int32
		cfg.SetupDone = func() { calls.Add(1) }
		_, got, _ := runPageRank(t, 3, edges, cfg, 3)
		if calls.Load() != 3 {
			t.Errorf("%s: SetupDone called %d times on 3 ranks", kind, calls.Load())
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: the hook changed the scores", kind)
		}
	}
}
