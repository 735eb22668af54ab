// Package parallel holds the two tiny helpers graphrun's kernels use to split
// per-rank work over goroutines (the "threads" of paper 004's MPI+OpenMP
// model): run n workers and wait, and cut a range into near-equal parts.
//
// The sources cited here (paper 000 to paper 004 and the other keys) are
// listed in full in REFERENCES.md at the repository root.
package parallel

import "sync"

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
