package parallel

import "sync/atomic"

// Queue hands the items [0, n) of one parallel call to its workers, each
// once: worker t first takes the items of its own share from the front,
// then, when its share is empty, the others' from the back. Shares cut by
// an estimate of the work (edges, say) keep each worker on its consecutive
// items, as a static split does, while a worker whose items ran faster
// (a power-law graph's hub columns gather from the cache, its tail's from
// memory) takes over the rest of a slower one's instead of waiting for it.
// Which worker runs an item varies from call to call, so a caller that
// must be deterministic keeps its results per item, not per worker.
type Queue struct {
	shares []share
}

// share is one worker's items left, lo<<32 | hi, alone on its cache line:
// its owner takes from it once per item, and a neighbour's line would
// bounce between their cores.
type share struct {
	left atomic.Uint64
	_    [56]byte
}

// NewQueue returns a queue for `workers` workers; Reset fills it.
func NewQueue(workers int) *Queue {
	return &Queue{shares: make([]share, max(workers, 1))}
}

// Reset gives worker t the items [splits[t], splits[t+1]) (len(splits) is
// the workers plus one; items below 2^32). Call it before the workers
// start, not while they take.
func (q *Queue) Reset(splits []int) {
	for t := range q.shares {
		q.shares[t].left.Store(uint64(splits[t])<<32 | uint64(splits[t+1]))
	}
}

// Next returns the next item worker t runs, or −1 when none is left.
func (q *Queue) Next(t int) int {
	if i := q.take(t, true); i >= 0 {
		return i
	}
	for k := 1; k < len(q.shares); k++ {
		if i := q.take((t+k)%len(q.shares), false); i >= 0 {
			return i
		}
	}
	return -1
}

// take removes the first (front) or the last item of share s, or returns
// −1 if it is empty.
func (q *Queue) take(s int, front bool) int {
	for {
		v := q.shares[s].left.Load()
		lo, hi := v>>32, v&(1<<32-1)
		if lo >= hi {
			return -1
		}
		next, item := (lo+1)<<32|hi, lo
		if !front {
			next, item = lo<<32|(hi-1), hi-1
		}
		if q.shares[s].left.CompareAndSwap(v, next) {
			return int(item)
		}
	}
}
