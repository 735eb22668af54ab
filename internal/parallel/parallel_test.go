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

// TestQueueHandsOutEveryItemOnce: over uneven shares (some empty), with
// one worker slowed so that the others steal from it, every item is taken
// exactly once per call, each worker takes its own share front to back,
// and a queue reset after a call hands everything out again.
func TestQueueHandsOutEveryItemOnce(t *testing.T) {
	for _, splits := range [][]int{{0, 0}, {0, 5}, {0, 100, 100, 300}, {0, 0, 7, 7, 50, 51}} {
		workers := len(splits) - 1
		tm, q := NewTeam(workers), NewQueue(workers)
		for call := range 20 {
			q.Reset(splits)
			taken := make([][]int, workers)
			tm.Run(func(w int) {
				for i := q.Next(w); i >= 0; i = q.Next(w) {
					taken[w] = append(taken[w], i)
					if w == 0 && call%2 == 1 {
						time.Sleep(10 * time.Microsecond)
					}
				}
			})
			seen := make([]int, splits[workers])
			for w, items := range taken {
				own := splits[w]
				for _, i := range items {
					seen[i]++
					if i >= splits[w] && i < splits[w+1] {
						if i != own {
							t.Fatalf("shares %v: worker %d took its item %d out of order (next %d)", splits, w, i, own)
						}
						own++
					}
				}
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("shares %v, call %d: item %d taken %d times", splits, call, i, c)
				}
			}
		}
		tm.Close()
	}
}
