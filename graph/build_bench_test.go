package graph

import (
	"context"
	"fmt"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/partition"
)

// rmatEdges returns m R-MAT tuples (a=0.57, b=c=0.19, Graph500's skew) on
// 2^scale vertices, with labels scrambled by a bijection so that hubs land on
// every rank. It uses a xorshift generator: deterministic and allocation-free.
func rmatEdges(scale uint, m int, seed uint64) []Edge {
	x := seed | 1
	next := func() uint64 { // xorshift64*
		x ^= x >> 12
		x ^= x << 25
		x ^= x >> 27
		return x * 0x2545F4914F6CDD1D
	}
	mask := uint64(1)<<scale - 1
	scramble := func(v uint64) int64 {
		v = (v * 0x9E3779B97F4A7C15) & mask
		v ^= v >> (scale / 2)
		v = (v * 0xBF58476D1CE4E5B9) & mask
		return int64(v)
	}
	const a, ab, abc = 0.57, 0.76, 0.95
	edges := make([]Edge, m)
	for i := range edges {
		var u, v uint64
		for range scale {
			r := float64(next()>>11) / (1 << 53)
			u <<= 1
			v <<= 1
			switch {
			case r < a:
			case r < ab:
				v |= 1
			case r < abc:
				u |= 1
			default:
				u |= 1
				v |= 1
			}
		}
		edges[i] = Edge{scramble(u), scramble(v)}
	}
	return edges
}

// BenchmarkBuildUndirected runs kernel 1 on a scale-20, edgefactor-16 R-MAT
// graph (16 Mi tuples) over 2 in-process ranks with 2 threads each.
func BenchmarkBuildUndirected(b *testing.B) {
	const scale, edgeFactor, p, threads = 20, 16, 2, 2
	n := int64(1) << scale
	m := int(n) * edgeFactor
	edges := rmatEdges(scale, m, 20261121)
	part, err := partition.NewBlock1D(n, p)
	if err != nil {
		b.Fatal(err)
	}
	var stored int64
	b.ResetTimer()
	for b.Loop() {
		stored = 0
		gs := make([]*CSR, p)
		err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			r := c.Rank()
			g, err := BuildUndirected(ctx, c, part, edges[r*m/p:(r+1)*m/p], threads)
			gs[r] = g
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range gs {
			stored += g.NumEdges()
		}
	}
	b.ReportMetric(float64(m)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
	b.ReportMetric(float64(stored)/float64(m), "stored/tuple")
}

// BenchmarkBuildLocal times the rank-local work of kernel 1 (routing and
// assembly) without a transport: the send buffers of the p simulated ranks are
// handed over as receive buffers directly.
func BenchmarkBuildLocal(b *testing.B) {
	const scale, edgeFactor, p = 20, 16, 2
	n := int64(1) << scale
	m := int(n) * edgeFactor
	edges := rmatEdges(scale, m, 20261121)
	part, err := partition.NewBlock1D(n, p)
	if err != nil {
		b.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads%d", threads), func(b *testing.B) {
			for b.Loop() {
				send := make([][][]byte, p)
				for r := range p {
					s, err := routeEdges(part, edges[r*m/p:(r+1)*m/p], threads)
					if err != nil {
						b.Fatal(err)
					}
					send[r] = s
				}
				for r := range p {
					recv := make([][]byte, p)
					for s := range p {
						recv[s] = send[s][r]
					}
					if _, err := assemble[uint32](context.Background(), part, r, recv, threads); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(m)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		})
	}
}
