package parallel

import (
	"sync/atomic"
	"testing"
)

func TestForRunsEveryWorkerOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7} {
		var calls [8]atomic.Int32
		For(n, func(t int) { calls[t].Add(1) })
		for w := 0; w < max(n, 1); w++ {
			if got := calls[w].Load(); got != 1 {
				panic("worker not run exactly once")
			}
		}
	}
}

func TestSpanCoversRange(t *testing.T) {
	for _, n := range []int{0, 1, 10, 1001} {
		for _, parts := range []int{1, 3, 8} {
			next := 0
			for p := 0; p < parts; p++ {
				lo, hi := Span(n, p, parts)
				if lo != next || hi < lo {
					t.Fatalf("Span(%d, %d, %d) = [%d, %d), want start %d", n, p, parts, lo, hi, next)
				}
				next = hi
			}
			if next != n {
				t.Fatalf("parts of %d end at %d", n, next)
			}
		}
	}
}
