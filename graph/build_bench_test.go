package graph

import (
	"context"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
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
	part := block1D(b, n, p)
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

// BenchmarkRouteSegment codes and decodes the half-edges of a scale-22
// rank's round: buckets of 8192 rows holding 4096 random half-edges.
func BenchmarkRouteSegment(b *testing.B) {
	const w, rowBits, e = 22, 13, 4096
	x := uint64(88172645463325252)
	recs := make([]uint64, e)
	for i := range recs {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		recs[i] = (x>>40)%(1<<rowBits)<<w | x%(1<<w)
	}
	new(rowSorter).sort(recs, w)
	k, size := segmentSize(recs, w, w)
	seg := make([]byte, size)
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			segmentSize(recs, w, w)
			encodeSegment(seg, recs, w, k, w)
		}
		b.ReportMetric(float64(e)*float64(b.N)/b.Elapsed().Seconds(), "half-edges/s")
	})
	b.Run("decode", func(b *testing.B) {
		var ls, vs [decodeBatchSize]uint64
		for b.Loop() {
			d, err := newSegmentDecoder(seg, e, 1<<rowBits, w)
			if err != nil {
				b.Fatal(err)
			}
			for d.left > 0 {
				if _, err := d.decodeBatch(ls[:], vs[:]); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(e)*float64(b.N)/b.Elapsed().Seconds(), "half-edges/s")
	})
}
