package tcp

// Benchmarks of collectives over loopback TCP.

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

// BenchmarkAlltoallv measures Alltoallv over loopback TCP, every rank a
// goroutine of this process, sending size bytes to every other rank and
// reusing its receive buffers. MB/s is the aggregate payload moved between
// ranks per second: P·(P−1)·size bytes per call.
func BenchmarkAlltoallv(b *testing.B) {
	for _, p := range []int{2, 4} {
		for _, size := range []int{64 << 10, 1 << 20, 16 << 20} {
			b.Run(fmt.Sprintf("ranks=%d/size=%dKiB", p, size>>10), func(b *testing.B) {
				b.SetBytes(int64(p * (p - 1) * size))
				benchLoopback(b, p, func(c comm.Comm) func(ctx context.Context) error {
					block := bytes.Repeat([]byte{byte(c.Rank())}, size)
					send := make([][]byte, p)
					recv := make([][]byte, p)
					for d := range send {
						send[d] = block
						recv[d] = make([]byte, 0, size)
					}
					return func(ctx context.Context) error {
						out, err := c.Alltoallv(ctx, "bench.alltoallv", send, recv)
						recv = out
						return err
					}
				})
			})
		}
	}
}

// BenchmarkAllreduceFloat64 measures a sum of n float64s over 4 loopback
// TCP ranks: the termination check of every BFS level (n = 1) and a
// PageRank-sized vector.
func BenchmarkAllreduceFloat64(b *testing.B) {
	for _, n := range []int{1, 4096} {
		b.Run(fmt.Sprintf("ranks=4/len=%d", n), func(b *testing.B) {
			benchLoopback(b, 4, func(c comm.Comm) func(ctx context.Context) error {
				vals := make([]float64, n)
				return func(ctx context.Context) error {
					for i := range vals {
						vals[i] = float64(i + c.Rank())
					}
					return c.AllreduceFloat64(ctx, "bench.allreduce", vals, comm.Sum)
				}
			})
		})
	}
}

// benchLoopback runs b.N calls of the collective that setup returns for
// each of p loopback TCP ranks, timing them on rank 0 between two
// barriers.
func benchLoopback(b *testing.B, p int, setup func(c comm.Comm) func(ctx context.Context) error) {
	err := LaunchLoopback(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		call := setup(c)
		if err := c.Barrier(ctx, "bench.start"); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			if err := call(ctx); err != nil {
				return err
			}
		}
		if err := c.Barrier(ctx, "bench.stop"); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.StopTimer()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
