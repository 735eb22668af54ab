package sssp

import (
	"context"
	"fmt"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// BenchmarkSSSP2D times one search on a Kronecker graph (scale 18, or
// GRAPHRUN_BENCH_SCALE) with the generator's weights on the 2D grids 1×1,
// 2×1, 1×2 and 2×2 of in-process ranks of one thread, and reports what
// BenchmarkSSSP reports: stored entries per second of search, requests per
// entry, phases and the bytes sent between ranks per search. The timed
// loop includes Prepare.
//
//	go test -run '^$' -bench SSSP2D ./spmv/sssp/
//	GRAPHRUN_BENCH_SCALE=20 go test -run '^$' -bench 'SSSP2D/grid=2x2' -benchtime 5x ./spmv/sssp/
func BenchmarkSSSP2D(b *testing.B) {
	params := kronecker.DefaultParams(csrtest.BenchScale(b, 18))
	for _, rc := range [][2]int{{1, 1}, {2, 1}, {1, 2}, {2, 2}} {
		b.Run(fmt.Sprintf("grid=%dx%d", rc[0], rc[1]), func(b *testing.B) {
			grid, err := partition.NewGrid(params.NumVertices(), rc[0], rc[1])
			if err != nil {
				b.Fatal(err)
			}
			p := grid.P()
			err = inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
				blk, w, err := build2D(ctx, c, grid, params.Share(c.Rank(), p, 1), 1)
				if err != nil {
					return err
				}
				e, err := New2D(ctx, c, blk, w, Config{Threads: 1})
				if err != nil {
					return err
				}
				if err := c.Barrier(ctx, "bench"); err != nil {
					return err
				}
				if c.Rank() == 0 {
					b.ResetTimer()
				}
				var st Stats
				for range b.N {
					e.Prepare()
					if err := c.Barrier(ctx, "bench"); err != nil {
						return err
					}
					res, err := e.Run(ctx, params.Permute(0))
					if err != nil {
						return err
					}
					st = res.Stats
				}
				sums := []int64{blk.NumEdges(), st.Requests, st.BytesSent}
				if err := c.AllreduceInt64(ctx, "bench", sums, comm.Sum); err != nil {
					return err
				}
				if c.Rank() == 0 {
					b.StopTimer()
					b.ReportMetric(float64(sums[0])*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
					b.ReportMetric(float64(sums[1])/float64(sums[0]), "requests/entry")
					b.ReportMetric(float64(st.Phases), "phases")
					b.ReportMetric(float64(sums[2]), "bytes/search")
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
