// This file lays a one-rank PageRank matrix (pagerank_matrix.go) out in
// the order of the fused iteration (prLocal, pagerank_update.go) from the
// start, so that the fused run's copy of the sources is made in place and
// the matrix keeps 4 bytes per edge, not the 8 of the sorted keys: the
// keys' second half is handed back to the operating system once the
// sources are written over the first (releasePages). On a file of 67 M
// edges (Kronecker 22), that half is 268 MB of the run's peak.

package pagerank

import (
	"math/bits"

	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/internal/radix"
)

// releaseEdges is the number of edges from which the set-up hands the
// garbage of its earlier phases back to the operating system before the
// next one allocates (memstat.Release: a collection of a heap of a few
// arrays without pointers, milliseconds): below it, the garbage is small
// beside the edges.
const releaseEdges = 1 << 22

// fusedStats is what the fused order needs to know of a matrix's edges
// before its columns exist: each vertex's in-degree and idsLocal's
// count of sampled edges whose source lies in another id range than
// their destination.
type fusedStats struct {
	inDeg        []uint32 // distinct edges into each vertex
	sampled      []uint64 // bit v: idsLocal samples the column of v (every step-th)
	n            uint64
	cross, total int
	outside      bool // an edge into a vertex beyond the block: no fused layout
}

func newFusedStats(n int64) *fusedStats {
	f := &fusedStats{inDeg: make([]uint32, n), sampled: make([]uint64, (n+63)/64), n: uint64(n)}
	for v, step := int64(0), max(1, n/idSampleColumns); v < n; v += step {
		f.sampled[v>>6] |= 1 << (v & 63)
	}
	return f
}

// add counts the distinct edge (u, v).
func (f *fusedStats) add(u, v uint64) {
	if v >= uint64(len(f.inDeg)) {
		f.outside = true
		return
	}
	f.inDeg[v]++
	if f.sampled[v>>6]>>(v&63)&1 != 0 {
		f.total++
		if u<<idRangeBits/f.n != v<<idRangeBits/f.n {
			f.cross++
		}
	}
}

// buildFused is buildPRMatrix's second half when the out-set is the
// rank's block [0, n) (one rank): from the keys v<<sb | l, it sorts the
// edges by the fused position of v and the slot of l, and writes the
// columns in that order, recorded in order as arrange would, so that pull
// can sum them too. The out-set is [0, n).
func (a *prMatrix) buildFused(keys []uint64, sb uint, fs *fusedStats, threads int) {
	n := len(fs.inDeg)
	if len(keys) >= releaseEdges {
		memstat.Release() // degreeSlots' and the relabelling's garbage: fusedOrder's arrays take its place
	}
	order, pos := fusedOrder(a.in, a.slot, fs, threads)
	lmask := uint64(1)<<sb - 1
	parallel.For(threads, func(t int) {
		lo, hi := parallel.Span(len(keys), t, threads)
		part, slot := keys[lo:hi], a.slot
		for i, k := range part {
			part[i] = uint64(pos[k>>sb])<<sb | uint64(slot[k&lmask])
		}
	})
	fs.inDeg = nil
	if len(keys) >= releaseEdges {
		memstat.Release() // fusedOrder's slot → vertex map and the in-degrees
	}
	radix.Sort(keys, uint(bits.Len(uint(n-1)))+sb, threads)
	m := len(keys)
	// As in columns: src[i] is written over the first half of keys[i/2],
	// after keys[i] is read; pos, read no more, counts each column's
	// edges. The keys' second half goes back before the vertex arrays
	// below are allocated.
	a.edges = keysAsUint32(keys)
	a.src = a.edges[:m]
	count := pos
	clear(count)
	for i, k := range keys {
		count[k>>sb]++
		a.src[i] = uint32(k & lmask)
	}
	releasePages(keysAsUint32(keys[:cap(keys)])[m:])
	a.out = make([]int64, n)
	a.colStart = make([]int, n+1)
	for v := range a.out {
		a.out[v] = int64(v)
	}
	for p, c := range count {
		a.colStart[p+1] = a.colStart[p] + int(c)
	}
	a.order, a.fused = order, true
	a.splits = balanceColumns(a.colStart, threads)
	a.cutForPull(false) // the sources are slots, below len(a.in)
}

// fusedOrder returns the order of the vertices [0, n) that localOrder
// gives the fused run of a one-rank matrix with in-set in and slots slot
// (in-set vertices have non-zero out-degree, the others none), and the
// position of each vertex in it. It is localOrder computed from the
// edges' counts before the columns exist; TestFusedOrder holds the two
// equal.
func fusedOrder(in []int64, slot []uint32, fs *fusedStats, threads int) (order, pos []uint32) {
	n := len(fs.inDeg)
	var rangeBits uint
	if 2*fs.cross < fs.total { // idsLocal
		rangeBits = idRangeBits
	}
	tieBits := uint(bits.Len(uint(max(n-1, 0))))
	inMax := uint64(1)<<(63-idRangeBits-tieBits) - 1
	top := uint64(0)
	for _, d := range fs.inDeg {
		top = max(top, min(uint64(d), inMax))
	}
	inBits := uint(bits.Len64(top))
	dangling := uint64(1) << (rangeBits + inBits + tieBits)
	tieMask := uint64(1)<<tieBits - 1
	keys := make([]uint64, n)
	for v, d := range fs.inDeg {
		idRange := uint64(v) << rangeBits / uint64(n)
		keys[v] = dangling | idRange<<(inBits+tieBits) | (top-min(uint64(d), inMax))<<tieBits | uint64(v)
	}
	vertexOf := make([]uint32, len(in)) // slot → vertex
	for i, v := range in {
		keys[v] = keys[v]&^(dangling|tieMask) | uint64(slot[i])
		vertexOf[slot[i]] = uint32(v)
	}
	radix.Sort(keys, 1+rangeBits+inBits+tieBits, threads)
	// order[p] over the first half of keys[p/2], after keys[p] is read;
	// then pos over the second half.
	words := keysAsUint32(keys)
	order, pos = words[:n:n], words[n:]
	for p, k := range keys {
		v := uint32(k & tieMask)
		if p < len(in) {
			v = vertexOf[v]
		}
		order[p] = v
	}
	for p, v := range order {
		pos[v] = uint32(p)
	}
	return order, pos
}
