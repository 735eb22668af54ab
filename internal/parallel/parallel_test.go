package parallel

import (
	"sync/atomic"
	"testing"
	"time"
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

// TestTeamRunsEveryWorkerOncePerCall: over calls back to back and calls
// after pauses longer than the workers spin (so they block and are woken),
// every worker runs exactly once per call, and Close ends the goroutines.
func TestTeamRunsEveryWorkerOncePerCall(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		tm := NewTeam(n)
		if tm.Size() != n {
			t.Fatalf("NewTeam(%d).Size() = %d", n, tm.Size())
		}
		counts := make([]int, n)
		for call := range 300 {
			if call%100 == 99 {
				time.Sleep(2 * teamSpin)
			}
			tm.Run(func(w int) { counts[w]++ })
			for w, c := range counts {
				if c != call+1 {
					t.Fatalf("%d workers, call %d: worker %d ran %d times", n, call, w, c)
				}
			}
		}
		tm.Close()
	}
}
