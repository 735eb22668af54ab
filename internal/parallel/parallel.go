// Package parallel holds the small helpers graphrun's kernels use to split
// per-rank work over goroutines (the "threads" of Lv et al.'s MPI+OpenMP
// model): run n workers and wait (For, and Team for calls back to back),
// cut a range into near-equal parts (Span), and hand out a call's blocks
// with work stealing (Queue).
//
// REFERENCES.md at the repository root cites Lv et al. in full.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// For runs fn(0), …, fn(n−1) on n goroutines and waits for them: fn(0) on
// the caller's, the others on new ones (one goroutine fewer to start and
// wake, which a kernel called every PageRank iteration feels); with n ≤ 1
// it calls fn(0) inline.
func For(n int, fn func(t int)) {
	if n <= 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for t := 1; t < n; t++ {
		wg.Go(func() { fn(t) })
	}
	fn(0)
	wg.Wait()
}

// Span returns the t-th of `parts` near-equal pieces of [0, n).
func Span(n, t, parts int) (lo, hi int) {
	return int(int64(n) * int64(t) / int64(parts)), int(int64(n) * int64(t+1) / int64(parts))
}

// Team runs a function on n workers again and again, like For, for a loop
// whose calls come back to back (a PageRank iteration every few hundred
// microseconds): its n−1 goroutines live between calls and spin for a
// while before they block, so that a call does not wait for an idle
// core's thread to wake. On a virtual machine that wait was about as long
// as a small graph's whole iteration (the second worker of a 0.2 ms step
// started 0.1 ms late), and two threads were no faster than one. A Team is
// used from one goroutine at a time and must be closed.
type Team struct {
	n       int
	fn      func(t int)
	gen     atomic.Uint64 // calls started
	pending atomic.Int64  // workers not yet done with the current call
	closed  atomic.Bool
	mu      sync.Mutex
	started *sync.Cond // a call started, or the team closed
	done    *sync.Cond // the workers of the current call are done
	exited  sync.WaitGroup
}

// teamSpin is how long a worker waits for the next call, and the caller
// for the workers, before blocking.
const teamSpin = 200 * time.Microsecond

// NewTeam starts a team of n workers (the caller is worker 0 of every
// call; n ≤ 1 starts no goroutine).
func NewTeam(n int) *Team {
	tm := &Team{n: max(n, 1)}
	tm.started, tm.done = sync.NewCond(&tm.mu), sync.NewCond(&tm.mu)
	for t := 1; t < tm.n; t++ {
		tm.exited.Add(1)
		go tm.work(t)
	}
	return tm
}

// Size is the number of workers.
func (tm *Team) Size() int { return tm.n }

// Run calls fn(0), …, fn(n−1), fn(0) on the caller's goroutine and the
// others on the workers, and returns when all have returned.
func (tm *Team) Run(fn func(t int)) {
	if tm.n == 1 {
		fn(0)
		return
	}
	tm.fn = fn
	tm.pending.Store(int64(tm.n - 1))
	tm.mu.Lock()
	tm.gen.Add(1)
	tm.started.Broadcast()
	tm.mu.Unlock()
	fn(0)
	if !Spin(teamSpin, func() bool { return tm.pending.Load() == 0 }) {
		tm.mu.Lock()
		for tm.pending.Load() != 0 {
			tm.done.Wait()
		}
		tm.mu.Unlock()
	}
	tm.fn = nil
}

// Close stops the workers and waits for them.
func (tm *Team) Close() {
	tm.mu.Lock()
	tm.closed.Store(true)
	tm.started.Broadcast()
	tm.mu.Unlock()
	tm.exited.Wait()
}

// work is worker t's life: wait for a call, run its part, say so.
func (tm *Team) work(t int) {
	defer tm.exited.Done()
	seen := uint64(0)
	for {
		next := func() bool { return tm.gen.Load() != seen || tm.closed.Load() }
		if !Spin(teamSpin, next) {
			tm.mu.Lock()
			for !next() {
				tm.started.Wait()
			}
			tm.mu.Unlock()
		}
		if tm.closed.Load() {
			return
		}
		seen = tm.gen.Load()
		tm.fn(t)
		if tm.pending.Add(-1) == 0 {
			tm.mu.Lock()
			tm.done.Broadcast()
			tm.mu.Unlock()
		}
	}
}

// Spin polls cond for up to d, yielding the processor now and then, and
// reports whether cond became true: a wait for something another running
// goroutine is about to do, before the caller blocks. Blocking costs the
// wake-up of an idle core's thread, about 0.1 ms on a virtual machine
// (Team, and comm/inproc's barriers).
func Spin(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for i := 0; ; i++ {
		if cond() {
			return true
		}
		if i%64 == 63 {
			if time.Now().After(deadline) {
				return false
			}
			runtime.Gosched()
		}
	}
}
