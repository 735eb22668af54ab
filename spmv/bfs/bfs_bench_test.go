package bfs

import (
	"context"
	"fmt"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
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

// BenchmarkBFSLayouts runs the same searches (one rank, one thread,
// allgather, 8 roots) over the plain rows and over the same rows packed
// (graph.PackCSR), with the direction heuristic (auto) and every level
// bottom-up; the scale is GRAPHRUN_BENCH_SCALE (default 14). Under
// callgrind the step functions' instruction counts compare the layouts
// (pullWords against pullPackedWords, expandRows against
// expandPackedRows):
//
//	go test -c -o bfs.test ./spmv/bfs
//	GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	  ./bfs.test -test.run '^$' -test.bench BFSLayouts -test.benchtime 1x
func BenchmarkBFSLayouts(b *testing.B) {
	params := kronecker.DefaultParams(csrtest.BenchScale(b, 14))
	roots := make([]int64, 8)
	for i := range roots {
		roots[i] = params.Permute(int64(i)) // the initiator's heaviest vertices
	}
	for _, dir := range []spmv.Direction{spmv.DirectionAuto, spmv.DirectionBottomUp} {
		for _, packed := range []bool{false, true} {
			name := fmt.Sprintf("%v/plain", dir)
			if packed {
				name = fmt.Sprintf("%v/packed", dir)
			}
			b.Run(name, func(b *testing.B) {
				csrtest.OnKronecker(b, params, 1, 1, func(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D) error {
					if packed {
						g = graph.PackCSR(g, 1)
					}
					bfs, err := New(c, g, part, Config{Exchange: spmv.ExchangeAllgather, Direction: dir, Threads: 1})
					if err != nil {
						return err
					}
					b.ResetTimer()
					for b.Loop() {
						for _, root := range roots {
							bfs.Prepare()
							if _, err := bfs.Run(ctx, root); err != nil {
								return err
							}
						}
					}
					return nil
				})
			})
		}
	}
}
