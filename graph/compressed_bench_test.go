package graph_test

import (
	"context"
	"encoding/binary"
	"math/bits"
	"os"
	"strconv"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/cpustat"
	"github.com/graphrun/graphrun/partition"
)

// benchScale is the Kronecker scale of the codec benchmarks:
// GRAPHRUN_BENCH_SCALE, default 20.
func benchScale() int {
	if s, err := strconv.Atoi(os.Getenv("GRAPHRUN_BENCH_SCALE")); err == nil && s > 0 {
		return s
	}
	return 20
}

// kroneckerCSR builds the one-rank CSR of the Graph500 graph of the scale.
func kroneckerCSR(b *testing.B, scale int) *graph.CSR {
	b.Helper()
	p := kronecker.DefaultParams(scale)
	var g *graph.CSR
	err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
		part, err := partition.NewBlock1D(p.NumVertices(), 1)
		if err != nil {
			return err
		}
		g, _, err = graph.BuildUndirectedFrom(ctx, c, part, p.Share(0, 1, 2), 2)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// codeSizes returns the bytes of g's rows in three byte-oriented codes of
// the same values (the degree, the first neighbour relative to the vertex,
// zigzagged, and the gaps minus one): LEB128 varints (the packed layout);
// group varint (a tag byte per four values, each value in 1–4 bytes, or 8
// beyond 2^32); and Ligra+'s run-length byte code (a header byte per run of
// at most 64 values of the same byte width).
func codeSizes(g *graph.CSR) (varint, group, rle, rice int64) {
	width := func(x uint64) int64 { return max(1, int64(bits.Len64(x)+7)/8) }
	var row []int64
	vals := make([]uint64, 0, 1024)
	for l := range uint32(g.NumLocal) {
		row = g.Row(l, row)
		vals = append(vals[:0], uint64(len(row)))
		src := g.FirstGlobal + int64(l)
		for i, u := range row {
			if i == 0 {
				d := u - src
				vals = append(vals, uint64(d<<1)^uint64(d>>63))
			} else {
				vals = append(vals, uint64(row[i-1]-u-1))
			}
		}
		for i, x := range vals {
			varint += int64(max(1, (bits.Len64(x)+6)/7))
			if i%4 == 0 {
				group++
			}
			if w := width(x); w > 4 {
				group += 8
			} else {
				group += w
			}
		}
		rice += riceBytes(vals)
		for i := 0; i < len(vals); {
			w, k := width(vals[i]), 0
			for i+k < len(vals) && k < 64 && width(vals[i+k]) == w {
				k++
			}
			rle += 1 + int64(k)*w
			i += k
		}
	}
	return varint, group, rle, rice
}

// riceBytes is the bytes of a row's values as varints for the degree and
// the first neighbour and Golomb–Rice codes of the gaps with the row's best
// parameter, padded to a whole byte.
func riceBytes(vals []uint64) int64 {
	b := int64(0)
	for _, x := range vals[:min(2, len(vals))] {
		b += int64(max(1, (bits.Len64(x)+6)/7))
	}
	if len(vals) <= 2 {
		return b
	}
	best := int64(-1)
	for k := range 40 {
		var n int64
		for _, x := range vals[2:] {
			n += int64(x>>k) + 1 + int64(k)
		}
		if best < 0 || n < best {
			best = n
		}
	}
	return b + 1 + (best+7)/8
}

// BenchmarkPackedCodes reports the bytes per stored arc of the codes on
// the Graph500 graph (GRAPHRUN_BENCH_SCALE, default 20), and times a scan
// of every row (ns per arc: the work of a top-down search) in the packed
// layout, in LEB128 varints of the same values, and in the plain columns.
func BenchmarkPackedCodes(b *testing.B) {
	g := kroneckerCSR(b, benchScale())
	pg := graph.PackCSR(g, 2)
	arcs := float64(g.NumEdges())
	b.Run("size", func(b *testing.B) {
		var varint, group, rle, rice int64
		for range b.N {
			varint, group, rle, rice = codeSizes(g)
		}
		b.ReportMetric(float64(len(pg.Packed))/arcs, "packed-B/arc")
		b.ReportMetric(float64(rice)/arcs, "rice-B/arc")
		b.ReportMetric(float64(varint)/arcs, "varint-B/arc")
		b.ReportMetric(float64(group)/arcs, "groupvarint-B/arc")
		b.ReportMetric(float64(rle)/arcs, "bytecodeRLE-B/arc")
		b.ReportMetric(float64(g.Bytes())/arcs, "plainCSR-B/arc")
		b.ReportMetric(float64(pg.Bytes())/arcs, "packedCSR-B/arc")
		b.ReportMetric(arcs/float64(g.NumGlobal*16), "arcs/tuple")
	})
	b.Run("decode-packed", func(b *testing.B) {
		var sum uint64
		for range b.N {
			sum += scanPacked(pg)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/arcs, "ns/arc")
		sink = sum
	})
	b.Run("decode-varint", func(b *testing.B) {
		rows, offsets := varintRows(g)
		b.ResetTimer()
		var sum uint64
		for range b.N {
			sum += scanVarint(rows, offsets, g.FirstGlobal)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/arcs, "ns/arc")
		sink = sum
	})
	b.Run("scan-plain", func(b *testing.B) {
		var sum uint64
		for range b.N {
			for _, u := range g.Cols32 {
				sum += uint64(u)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/arcs, "ns/arc")
		sink = sum
	})
}

// scanPacked reads every neighbour of g's packed rows as the search's hot
// loops do and returns their sum.
func scanPacked(g *graph.CSR) (sum uint64) {
	p := g.Packed
	for v := range g.NumLocal {
		d, at := graph.PackedNext(p, g.Offsets[v])
		if d == 0 {
			continue
		}
		z, at := graph.PackedNext(p, at)
		u := uint64(g.FirstGlobal + int64(v) + graph.Unzigzag(z))
		sum += u
		if d == 1 {
			continue
		}
		k := uint(p[at])
		bp, mask := uint64(at+1)*8, uint64(1)<<k-1
		for range d - 1 {
			w := binary.LittleEndian.Uint64(p[bp>>3:]) >> (bp & 7)
			q := uint(bits.TrailingZeros64(w))
			var x uint64
			if q+k < 56 {
				x = uint64(q)<<k | w>>(q+1)&mask
				bp += uint64(q + 1 + k)
			} else {
				x, bp = graph.RiceNext(p, bp, k, mask)
			}
			u -= x + 1
			sum += u
		}
	}
	return sum
}

// varintRows codes g's rows as LEB128 varints of the degree, the zigzagged
// first neighbour relative to the vertex and the gaps (Ligra+'s byte code).
func varintRows(g *graph.CSR) ([]byte, []int64) {
	var out []byte
	offsets := make([]int64, g.NumLocal+1)
	var row []int64
	for l := range uint32(g.NumLocal) {
		offsets[l] = int64(len(out))
		row = g.Row(l, row)
		out = binary.AppendUvarint(out, uint64(len(row)))
		for i, u := range row {
			if i == 0 {
				d := u - g.FirstGlobal - int64(l)
				out = binary.AppendUvarint(out, uint64(d<<1)^uint64(d>>63))
			} else {
				out = binary.AppendUvarint(out, uint64(row[i-1]-u-1))
			}
		}
	}
	offsets[g.NumLocal] = int64(len(out))
	return out, offsets
}

// scanVarint is scanPacked over varintRows's rows.
func scanVarint(p []byte, offsets []int64, first int64) (sum uint64) {
	for v := range len(offsets) - 1 {
		d, at := graph.PackedNext(p, offsets[v])
		var u uint64
		for e := range d {
			var x uint64
			x, at = graph.PackedNext(p, at)
			if e == 0 {
				u = uint64(first + int64(v) + graph.Unzigzag(x))
			} else {
				u -= x + 1
			}
			sum += u
		}
	}
	return sum
}

var sink uint64

// BenchmarkBuildPacked is kernel 1 of the Graph500 graph (scale
// GRAPHRUN_BENCH_SCALE, default 20; one rank, two threads, the tuples
// generated as they are read) into the plain rows and into the compressed
// layout, with graph500's budget (the model's search peak) and without
// one (a single fill pass): CPU seconds per build and the fill passes. The
// compressed build reads the source 1 + passes times, which is what the
// budget trades against memory:
//
//	go test -run '^$' -bench BuildPacked -benchtime 3x ./graph
func BenchmarkBuildPacked(b *testing.B) {
	scale := benchScale()
	p := kronecker.DefaultParams(scale)
	mc := graph500.MemoryConfig{Scale: scale, EdgeFactor: p.EdgeFactor, Ranks: 1, Validate: true, Compressed: true}
	est, err := graph500.EstimateMemory(mc)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		packed bool
		budget int64
	}{{"plain", false, 0}, {"packed/budget=searches", true, est.PackedBudget}, {"packed/budget=none", true, 0}} {
		b.Run(tc.name, func(b *testing.B) {
			var st graph.BuildStats
			cpu0, err := cpustat.Process()
			if err != nil {
				b.Skip(err)
			}
			for b.Loop() {
				err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
					part, err := partition.NewBlock1D(p.NumVertices(), 1)
					if err != nil {
						return err
					}
					if tc.packed {
						_, st, err = graph.BuildPackedFrom(ctx, c, part, p.Share(0, 1, 2), 2, tc.budget)
					} else {
						_, st, err = graph.BuildUndirectedFrom(ctx, c, part, p.Share(0, 1, 2), 2)
					}
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			cpu1, _ := cpustat.Process()
			b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(st.PackedRanges), "fill-passes")
		})
	}
}
