package bfs

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// BenchmarkValidate times the validation of one direction-optimised search
// on a scale-18 Kronecker graph over 1, 2 and 4 in-process ranks (2 threads
// in all), and reports beside it the search's own time on the same graph in
// the same run ("search-ns"), their ratio ("x-search", which should stay
// below 5), the same ratio of the CPU time the process used in
// either phase ("cpu-x-search", steadier on a shared machine), and the bytes
// each rank sends per validation. The
// allocations it reports are per validation, all ranks together: a few
// goroutine closures, nothing in proportion to the graph.
//
//	go test -run '^$' -bench Validate ./spmv/bfs/
func BenchmarkValidate(b *testing.B) {
	params := kronecker.DefaultParams(18)
	for _, ranks := range []int{1, 2, 4} {
		threads := max(1, 2/ranks)
		b.Run(fmt.Sprintf("ranks=%d", ranks), func(b *testing.B) {
			csrtest.OnKronecker(b, params, ranks, threads, func(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D) error {
				bfs, err := New(c, g, part, Config{Threads: threads})
				if err != nil {
					return err
				}
				val, err := NewValidator(ctx, c, g, part, ValidatorConfig{Threads: threads, Share: bfs})
				if err != nil {
					return err
				}
				root := params.Permute(0)
				const searches = 10
				var search, searchCPU time.Duration
				var res *Result
				for range searches {
					bfs.Prepare()
					if err := c.Barrier(ctx, "bench"); err != nil {
						return err
					}
					t0, c0 := time.Now(), cpuTime()
					if res, err = bfs.Run(ctx, root); err != nil {
						return err
					}
					if err := c.Barrier(ctx, "bench"); err != nil {
						return err
					}
					search, searchCPU = search+time.Since(t0), searchCPU+cpuTime()-c0
				}
				nedge, err := ComponentEdges(ctx, c, g.TupleDegree, res.Parent)
				if err != nil {
					return err
				}
				if _, err := val.Validate(ctx, root, res.Parent, res.Level, nedge); err != nil {
					return err
				}
				if err := c.Barrier(ctx, "bench"); err != nil {
					return err
				}
				before, c0 := c.Stats().Total(), cpuTime()
				if c.Rank() == 0 {
					b.ReportAllocs()
					b.ResetTimer()
				}
				for i := 0; i < b.N; i++ {
					if _, err := val.Validate(ctx, root, res.Parent, res.Level, nedge); err != nil {
						return err
					}
				}
				if err := c.Barrier(ctx, "bench"); err != nil {
					return err
				}
				if c.Rank() == 0 {
					b.StopTimer()
					perSearch := float64(search.Nanoseconds()) / searches
					b.ReportMetric(perSearch, "search-ns")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/perSearch, "x-search")
					if searchCPU > 0 {
						cpu := float64(cpuTime()-c0) / float64(b.N)
						b.ReportMetric(cpu, "cpu-ns/op")
						b.ReportMetric(cpu/(float64(searchCPU)/searches), "cpu-x-search")
					}
					b.ReportMetric(float64(c.Stats().Total().Sub(before).BytesSent)/float64(b.N), "B/rank")
				}
				return nil
			})
		})
	}
}
