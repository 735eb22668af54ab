package spmv

import (
	"math"
	"testing"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
)

// kronPREdges is a Kronecker graph's tuples as directed edges: at scale 13
// it has several update blocks (prBlock) of vertices.
func kronPREdges(scale int) []graph.Edge {
	kp := kronecker.DefaultParams(scale)
	edges := make([]graph.Edge, kp.NumEdges())
	kp.Generate(0, edges)
	return edges
}

// TestPageRankThreadsInvariant: for a given rank count the scores, the
// residual and the total are the same bits on any thread count — the
// one-rank fused iteration and the multi-rank update at home both sum their
// scalars per fixed block, combined in block order — and the one-rank and
// two-rank runs agree up to rounding; on the sparse and the dense
// allreduce.
func TestPageRankThreadsInvariant(t *testing.T) {
	for _, kind := range []PageRankAllreduce{AllreduceKylix, AllreduceDense} {
		t.Run(kind.String(), func(t *testing.T) {
			cfg := DefaultPageRankConfig()
			cfg.Iterations, cfg.Allreduce = 12, kind
			checkThreadsInvariant(t, kronPREdges(13), cfg)
		})
	}
}

func checkThreadsInvariant(t *testing.T, edges []graph.Edge, cfg PageRankConfig) {
	var one *PageRankResult
	var oneScores map[int64]float64
	for _, p := range []int{1, 2} {
		cfg.Threads = 1
		base, baseScores, _ := runPageRank(t, p, edges, cfg, 0)
		if base.NumVertices <= 2*prBlock {
			t.Fatalf("%d vertices: not several blocks", base.NumVertices)
		}
		for _, threads := range []int{2, 3, 7} {
			cfg.Threads = threads
			res, scores, _ := runPageRank(t, p, edges, cfg, 0)
			if res.Residual != base.Residual || res.Total != base.Total {
				t.Errorf("%d ranks, %d threads: residual %v total %v; 1 thread: %v %v", p, threads, res.Residual, res.Total, base.Residual, base.Total)
			}
			for v, s := range baseScores {
				if scores[v] != s {
					t.Fatalf("%d ranks, %d threads: vertex %d: %v, 1 thread: %v", p, threads, v, scores[v], s)
				}
			}
		}
		if p == 1 {
			one, oneScores = base, baseScores
			continue
		}
		if math.Abs(base.Residual-one.Residual) > 1e-12 {
			t.Errorf("residual %v on 2 ranks, %v on 1", base.Residual, one.Residual)
		}
		for v, s := range baseScores {
			if math.Abs(oneScores[v]-s) > 1e-15 {
				t.Fatalf("vertex %d: %v on 2 ranks, %v on 1", v, s, oneScores[v])
			}
		}
	}
}

// TestPrPartialsCombine: the blocks' scalars add in block order, whatever
// the thread count that filled them.
func TestPrPartialsCombine(t *testing.T) {
	var p prPartials
	p.resize(3*prBlock + 1)
	if len(p) != 4*numPRScalars {
		t.Fatalf("%d partials for 4 blocks", len(p))
	}
	for b := range 4 {
		p[b*numPRScalars+prL1], p[b*numPRScalars+prDangling], p[b*numPRScalars+prTotal] = float64(b), 1, 0.25
	}
	got := make([]float64, numPRScalars)
	p.combine(got)
	if got[prL1] != 6 || got[prDangling] != 4 || got[prTotal] != 1 {
		t.Errorf("combined %v", got)
	}
	for _, threads := range []int{1, 2, 5} {
		seen := make([]int, 3*prBlock+1)
		forBlocks(len(seen), threads, func(lo, hi int) {
			if lo%prBlock != 0 {
				t.Errorf("block starts at %d", lo)
			}
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("%d threads: vertex %d updated %d times", threads, i, c)
			}
		}
	}
}
