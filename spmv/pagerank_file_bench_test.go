//go:build unix

package spmv

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
)

// BenchmarkPageRankFile times one PageRank iteration on the graph file
// named by GRAPHRUN_PAGERANK_FILE (any format graphrun reads, e.g. a gapbs
// .sg, so that the edges are exactly those gapbs iterates over), on one
// rank with 1 and 2 threads and on 2 ranks with 1 thread; set-up is outside
// the clock. It is skipped without the variable.
//
//	GRAPHRUN_PAGERANK_FILE=../../shared/data/road-luxembourg-osm.mtx go test -run '^$' -bench PageRankFile ./spmv/
func BenchmarkPageRankFile(b *testing.B) {
	path := os.Getenv("GRAPHRUN_PAGERANK_FILE")
	if path == "" {
		b.Skip("GRAPHRUN_PAGERANK_FILE names no graph file")
	}
	file, err := graph.ReadEdges(path, "")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ ranks, threads int }{{1, 1}, {1, 2}, {2, 1}} {
		b.Run(fmt.Sprintf("ranks=%d/threads=%d", tc.ranks, tc.threads), func(b *testing.B) {
			cfg := DefaultPageRankConfig()
			cfg.Threads = tc.threads
			var cpu0 time.Duration
			err := inproc.Run(context.Background(), tc.ranks, func(ctx context.Context, c comm.Comm) error {
				lo := len(file.Edges) * c.Rank() / c.Size()
				hi := len(file.Edges) * (c.Rank() + 1) / c.Size()
				run, res, err := preparePageRank(ctx, c, graph.EdgeChunks{file.Edges[lo:hi]}, cfg)
				if err != nil {
					return err
				}
				run.fuse(c, res.NumVertices, cfg.Threads)
				if err := c.Barrier(ctx, "bench"); err != nil {
					return err
				}
				if c.Rank() == 0 {
					b.ResetTimer()
					cpu0 = processCPU()
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
			b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
