package bfs

import (
	"context"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// BenchmarkBFS times one search on a scale-18 Kronecker graph over 2
// in-process ranks for every exchange/direction mode, and reports Graph500
// TEPS (tuples in the component per second). The timed loop includes
// clearing the previous search (Prepare), which the Graph500 driver does
// outside its clock.
//
//	go test -run '^$' -bench BFS ./spmv/bfs/
func BenchmarkBFS(b *testing.B) {
	params := kronecker.DefaultParams(18)
	const ranks = 2
	for _, mode := range searchModes {
		mode.Threads = 1
		b.Run(mode.String(), func(b *testing.B) {
			csrtest.OnKronecker(b, params, ranks, 1, func(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D) error {
				bfs, err := New(c, g, part, mode)
				if err != nil {
					return err
				}
				root := params.Permute(0) // the heaviest vertex of the initiator
				_, nedge, err := searchCounted(ctx, c, bfs, g, root)
				if err != nil {
					return err
				}
				if err := c.Barrier(ctx, "bench"); err != nil {
					return err
				}
				if c.Rank() == 0 {
					b.ResetTimer()
				}
				for i := 0; i < b.N; i++ {
					bfs.Prepare()
					if err := c.Barrier(ctx, "bench"); err != nil {
						return err
					}
					if _, err := bfs.Run(ctx, root); err != nil {
						return err
					}
				}
				if c.Rank() == 0 {
					b.StopTimer()
					b.ReportMetric(float64(nedge)*float64(b.N)/b.Elapsed().Seconds(), "TEPS")
				}
				return nil
			})
		})
	}
}
