package wah

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func cpuMeasure(f func()) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
	best := 1e18
	for rep := 0; rep < 5; rep++ {
		n := 1
		for {
			t0 := threadCPU()
			for i := 0; i < n; i++ {
				f()
			}
			d := threadCPU() - t0
			if d > 40*time.Millisecond {
				if x := float64(d) / float64(n); x < best {
					best = x
				}
				break
			}
			n *= 2
		}
	}
	return best
}

func TestZZCPU(t *testing.T) {
	if os.Getenv("WAHCPU") == "" {
		t.Skip()
	}
	for _, c := range benchCases {
		src := randomBitmap(rand.New(rand.NewPCG(uint64(c.bits), 1)), c.bits/64, c.density)
		line := fmt.Sprintf("2^%d p=%-6g", log2(c.bits), c.density)
		for _, w := range benchWidths {
			enc := w.enc(nil, src)
			dst := make([]uint64, len(src))
			buf := make([]byte, 0, len(enc))
			e := cpuMeasure(func() { buf = w.enc(buf[:0], src) })
			d := cpuMeasure(func() { Decode(dst, enc) })
			raw := float64(8 * len(src))
			line += fmt.Sprintf(" | %s enc %6.2f dec %6.2f GB/s r=%.3f", w.name, raw/e, raw/d, float64(len(enc))/raw)
		}
		fmt.Println(line)
	}
}

// abMeasure returns, per function, the best per-call thread CPU time over
// many interleaved short bursts.
func abMeasure(fs []func(), rounds int) []float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ns := make([]int, len(fs))
	best := make([]float64, len(fs))
	for k, f := range fs {
		f()
		n := 1
		for {
			t0 := threadCPU()
			for i := 0; i < n; i++ {
				f()
			}
			if d := threadCPU() - t0; d > 8*time.Millisecond {
				break
			}
			n *= 2
		}
		ns[k] = n
		best[k] = 1e18
	}
	all := make([][]float64, len(fs))
	for r := 0; r < rounds; r++ {
		for k, f := range fs {
			t0 := threadCPU()
			for i := 0; i < ns[k]; i++ {
				f()
			}
			all[k] = append(all[k], float64(threadCPU()-t0)/float64(ns[k]))
		}
	}
	for k := range all {
		slices.Sort(all[k])
		best[k] = all[k][len(all[k])/2]
	}
	return best
}
