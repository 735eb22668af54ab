package sssp

import (
	"context"
	"fmt"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// BenchmarkSSSP times one search on a Kronecker graph (scale 18, or
// GRAPHRUN_BENCH_SCALE) with the generator's weights over 1, 2 and 4
// in-process ranks of one thread and 1 rank of 2 threads, and reports the
// stored adjacency entries per second of search (TEPS counts the input
// tuples of the component instead), the relaxation requests per entry
// (Meyer and Sanders's work measure), the phases and the bytes sent
// between ranks per search. The timed loop includes Prepare, which the
// Graph500 driver does outside its clock.
//
//	go test -run '^$' -bench SSSP ./spmv/sssp/
//	GRAPHRUN_BENCH_SCALE=16 go test -run '^$' -bench 'SSSP/ranks=2' -benchtime 5x ./spmv/sssp/
func BenchmarkSSSP(b *testing.B) {
	params := kronecker.DefaultParams(csrtest.BenchScale(b, 18))
	for _, run := range []struct{ ranks, threads int }{{1, 1}, {2, 1}, {4, 1}, {1, 2}} {
		ranks, threads := run.ranks, run.threads
		b.Run(fmt.Sprintf("ranks=%d/threads=%d", ranks, threads), func(b *testing.B) {
			csrtest.OnKronecker(b, params, ranks, threads, func(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D) error {
				w, err := graph.BuildWeights(ctx, c, part, g, params.Share(c.Rank(), ranks, threads), threads)
				if err != nil {
					return err
				}
				s, err := New(ctx, c, g, w, part, Config{Threads: threads})
				if err != nil {
					return err
				}
				root := params.Permute(0)
				if err := c.Barrier(ctx, "bench"); err != nil {
					return err
				}
				if c.Rank() == 0 {
					b.ResetTimer()
				}
				var st Stats
				for i := 0; i < b.N; i++ {
					s.Prepare()
					if err := c.Barrier(ctx, "bench"); err != nil {
						return err
					}
					res, err := s.Run(ctx, root)
					if err != nil {
						return err
					}
					st = res.Stats
				}
				edges := []int64{g.NumEdges(), st.Requests, st.BytesSent}
				if err := c.AllreduceInt64(ctx, "bench", edges, comm.Sum); err != nil {
					return err
				}
				if c.Rank() == 0 {
					b.StopTimer()
					b.ReportMetric(float64(edges[0])*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
					b.ReportMetric(float64(edges[1])/float64(edges[0]), "requests/entry")
					b.ReportMetric(float64(st.Phases), "phases")
					b.ReportMetric(float64(edges[2]), "bytes/search")
				}
				return nil
			})
		})
	}
}
