package pagerank

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/parallel"
)

var benchPageRankScale = flag.Int("pagerank.scale", 18, "Kronecker scale of BenchmarkPageRankIteration")

// BenchmarkPageRankIteration times one PageRank iteration (SpMV, update at
// home and the sparse allreduce) on a Kronecker graph, tuples as directed
// edges, for 1 rank (the fused iteration) with 1 and 2 threads, and 2 and 4 ranks with 1 thread; setup
// is outside the clock. Besides wall time it reports the process's CPU
// time per iteration (cpu-ms/op, all threads), which a machine loaded by
// other work inflates much less than the wall time.
//
//	go test -run '^$' -bench PageRankIteration ./spmv/
//	go test -run '^$' -bench 'PageRankIteration/ranks=1/threads=2' -benchtime 30x ./spmv/ -pagerank.scale 20
func BenchmarkPageRankIteration(b *testing.B) {
	benchKronecker(b, DefaultConfig())
}

// BenchmarkPageRankPersonalized is BenchmarkPageRankIteration with a
// personalization (the sources of the graph's first 4096 tuples, uniform)
// and a start vector, the teleport's per-vertex update; the bar is
// within 1.2× the plain iteration's time at scale 22.
//
//	go test -run '^$' -bench 'PageRank(Iteration|Personalized)/ranks=1/threads=2' -benchtime 20x ./spmv/pagerank -pagerank.scale 22
func BenchmarkPageRankPersonalized(b *testing.B) {
	benchKronecker(b, personalizedConfig())
}

// BenchmarkPageRankWeighted is BenchmarkPageRankIteration with the
// generator's edge weights (kernel 3's): weighted column sums.
func BenchmarkPageRankWeighted(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Weighted = true
	benchKronecker(b, cfg)
}

// BenchmarkPageRankWeightedPersonalized is BenchmarkPageRankPersonalized
// with the generator's edge weights: the bar is within 1.2× the plain
// iteration's time at scale 22.
//
//	go test -run '^$' -bench 'PageRank(Iteration|WeightedPersonalized)/ranks=1/threads=2' -benchtime 20x ./spmv/pagerank -pagerank.scale 22
func BenchmarkPageRankWeightedPersonalized(b *testing.B) {
	cfg := personalizedConfig()
	cfg.Weighted = true
	benchKronecker(b, cfg)
}

// personalizedConfig is BenchmarkPageRankPersonalized's configuration.
func personalizedConfig() Config {
	params := kronecker.DefaultParams(*benchPageRankScale)
	tuples := make([]graph.Edge, 4096)
	params.GenerateParallel(0, tuples, 1)
	seen := map[int64]bool{}
	var seeds []int64
	for _, e := range tuples {
		if !seen[e.U] {
			seen[e.U] = true
			seeds = append(seeds, e.U)
		}
	}
	cfg := DefaultConfig()
	cfg.Personalization, cfg.NStart = UniformVector(seeds), UniformVector(seeds)
	return cfg
}

// benchKronecker runs benchPageRank with cfg on the Kronecker graph of
// the bench's scale, each rank generating its share as a run does (with
// the weights if cfg.Weighted), for the rank and thread counts of
// BenchmarkPageRankIteration.
func benchKronecker(b *testing.B, cfg Config) {
	for _, tc := range []struct{ ranks, threads int }{{1, 1}, {1, 2}, {2, 1}, {4, 1}} {
		b.Run(fmt.Sprintf("ranks=%d/threads=%d", tc.ranks, tc.threads), func(b *testing.B) {
			src := &Source{Kron: kronecker.DefaultParams(*benchPageRankScale), Threads: tc.threads, Weighted: cfg.Weighted}
			benchPageRank(b, tc.ranks, tc.threads, cfg, func(c comm.Comm) graph.EdgeShare {
				share, err := src.load(context.Background(), c.Rank(), c.Size())
				if err != nil {
					b.Fatal(err)
				}
				return share
			})
		})
	}
}

// BenchmarkPageRankFile is BenchmarkPageRankIteration on the graph file
// named by GRAPHRUN_PAGERANK_FILE (any format graphrun reads, e.g. a gapbs
// .sg, so that the edges are exactly those gapbs iterates over), on one
// rank with 1 and 2 threads and on 2 ranks with 1 thread. It is skipped
// without the variable.
//
//	GRAPHRUN_PAGERANK_FILE=$PWD/testdata/road-luxembourg-osm.mtx go test -run '^$' -bench PageRankFile ./spmv/
func BenchmarkPageRankFile(b *testing.B) {
	path := os.Getenv("GRAPHRUN_PAGERANK_FILE")
	if path == "" {
		b.Skip("GRAPHRUN_PAGERANK_FILE names no graph file")
	}
	file, err := edgelist.ReadEdges(path, "")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ ranks, threads int }{{1, 1}, {1, 2}, {2, 1}} {
		b.Run(fmt.Sprintf("ranks=%d/threads=%d", tc.ranks, tc.threads), func(b *testing.B) {
			benchPageRank(b, tc.ranks, tc.threads, DefaultConfig(), func(c comm.Comm) graph.EdgeShare {
				lo, hi := parallel.Span(len(file.Edges), c.Rank(), c.Size())
				return graph.EdgeChunks{file.Edges[lo:hi]}
			})
		})
	}
}

// benchPageRank times PageRank iterations of cfg on ranks in-process ranks, each
// with threads threads and its share of the edges from share; the set-up
// is outside the clock. Besides wall time it reports the process's CPU
// time per iteration (cpu-ms/op, all threads).
func benchPageRank(b *testing.B, ranks, threads int, cfg Config, share func(comm.Comm) graph.EdgeShare) {
	cfg.Threads = threads
	var cpu0 time.Duration
	err := inproc.Run(context.Background(), ranks, func(ctx context.Context, c comm.Comm) error {
		run, res, err := preparePageRank(ctx, c, share(c), cfg)
		if err != nil {
			return err
		}
		if err := run.fuse(c, res.NumVertices, cfg.Threads, false); err != nil {
			return err
		}
		defer run.close()
		if err := c.Barrier(ctx, "bench"); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.ResetTimer()
			cpu0 = cpuTime()
		}
		for range b.N {
			if _, err := run.step(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}
