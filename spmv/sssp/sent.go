package sssp

// The sender's filter of requests to other ranks. A rank cannot see the
// distances of other ranks' vertices, so on 2 ranks it sent every remote
// entry of every relaxed row: 0.6 requests per stored entry at Kronecker
// scale 18 against 0.15 on 1 rank, where a request is made only if it
// lowers the target's distance. Most of them are heavy requests (with the
// default Δ about 1/degree, nearly all edges are heavy) to vertices that
// already have a shorter path, often through this very rank. The filter
// remembers, per expanding thread, the smallest distance it sent to each
// remote vertex in this search, in a direct-mapped table indexed by the
// global id's low bits (exact when the table holds every remote vertex,
// a cache of the recent ones otherwise), and drops a request whose
// distance is above it: the owner already holds that distance or less, or
// receives it in the same phase, and keeps the smaller. A request of equal
// distance is sent, since within one phase the larger parent wins a tie.
// The tree is the same as without the filter.

import (
	"math"
	"math/bits"
)

// maxSentSlots bounds a thread's table: 8 MiB of slots.
const maxSentSlots = 1 << 20

// sentSlot is one entry of the table: the global id's high bits and the
// smallest distance sent to that vertex.
type sentSlot struct {
	key  uint32
	dist float32
}

// sentTable is one expanding thread's table.
type sentTable struct {
	slots []sentSlot
	mask  uint64
	shift uint
}

// newSentTable makes a table for remote targets among n global vertices
// of which owned are this rank's: a power of two of slots, at least the
// remote count if that fits in maxSentSlots and twice the owned ones (so
// that the table costs at most 16 bytes per owned vertex).
func newSentTable(n, owned int64) sentTable {
	want := min(n-owned, max(2*owned, 1024), maxSentSlots)
	if want <= 0 {
		return sentTable{}
	}
	bitsN := uint(bits.Len64(uint64(want - 1)))
	if int64(1)<<bitsN > 2*max(owned, 512) || int64(1)<<bitsN > maxSentSlots {
		bitsN-- // the power of two below: within both bounds
	}
	t := sentTable{slots: make([]sentSlot, 1<<bitsN), mask: 1<<bitsN - 1, shift: bitsN}
	t.reset()
	return t
}

// reset forgets every distance (a new search).
func (t *sentTable) reset() {
	inf := float32(math.Inf(1))
	for i := range t.slots {
		t.slots[i] = sentSlot{dist: inf}
	}
}

// keep reports whether a request of distance nd to global vertex g must be
// sent, and if so records it.
func (t *sentTable) keep(g int64, nd float32) bool {
	e := &t.slots[uint64(g)&t.mask]
	key := uint32(uint64(g) >> t.shift)
	if e.key == key && nd > e.dist {
		return false
	}
	if e.key != key || nd < e.dist {
		e.key, e.dist = key, nd
	}
	return true
}

// bytes is the table's memory.
func (t *sentTable) bytes() int64 { return 8 * int64(len(t.slots)) }
