// Benchmarks of the generator: throughput in tuples per second
// (b.SetBytes(16) per tuple, so MB/s ÷ 16 is Mtuples/s; the tuples/s metric
// is reported directly as well).

package kronecker

import (
	"fmt"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

func benchmarkGenerate(b *testing.B, scale, threads int) {
	p := DefaultParams(scale)
	out := make([]graph.Edge, 1<<16)
	b.SetBytes(int64(len(out)) * 16)
	b.ResetTimer()
	var first int64
	for b.Loop() {
		if first+int64(len(out)) > p.NumEdges() {
			first = 0
		}
		if threads == 1 {
			p.Generate(first, out)
		} else {
			p.GenerateParallel(first, out, threads)
		}
		first += int64(len(out))
	}
	b.ReportMetric(float64(b.N)*float64(len(out))/b.Elapsed().Seconds(), "tuples/s")
}

func BenchmarkGenerate(b *testing.B) {
	for _, scale := range []int{16, 20, 26, 32} {
		b.Run(fmt.Sprintf("scale=%d", scale), func(b *testing.B) { benchmarkGenerate(b, scale, 1) })
	}
	// All of GOMAXPROCS.
	b.Run("scale=20/parallel", func(b *testing.B) { benchmarkGenerate(b, 20, 0) })
}

func BenchmarkPermuteOne(b *testing.B) {
	pm := newPerm(20, 1)
	var x uint64
	for b.Loop() {
		x = pm.apply(x)
	}
	sink = x
}

var sink uint64

func BenchmarkBlock(b *testing.B) {
	g := DefaultParams(20).generator(false)
	var u, v [lanes]uint64
	var blk uint64
	for b.Loop() {
		g.block(blk, &u, &v)
		blk++
	}
	sink = u[0]
}

func BenchmarkTranspose(b *testing.B) {
	var a [64]uint64
	for i := range a {
		a[i] = mix64(uint64(i))
	}
	for b.Loop() {
		transpose64(&a)
	}
	sink = a[0]
}

func BenchmarkApplyPacked(b *testing.B) {
	pm := newPerm(20, 1)
	var ws [lanes]uint64
	out := make([]graph.Edge, lanes)
	for b.Loop() {
		pm.applyPacked(&ws, 0, out)
	}
	sink = uint64(out[0].U)
}
