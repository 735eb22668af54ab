// This file is PageRank's local data (Kylix §VII): a rank's edges as a
// pull-oriented sparse matrix over local uint32 ids (compressed by
// destination column), its construction from packed edge keys by two
// in-place radix sorts, and the SpMV kernel of one iteration.

package pagerank

import (
	"fmt"
	"math/bits"
	"sort"
	"unsafe"

	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/internal/radix"
)

// prMatrix is one rank's share of the adjacency matrix in pull form: the
// column of out-set vertex out[j] lists, as local uint32 slots, the sources
// of the rank's edges into it. An iteration reads the value of every in-set
// vertex (a contiguous array indexed by slot) and writes one sum per out-set
// vertex, so the edge loop touches no map, no int64 id and no shared output.
//
// The columns are stored by position. Built, position j is out-set vertex
// j; arrange then reorders each thread's columns by descending length, so
// that pull sums them by runs (pagerank_runs.go), and order maps a position
// back to its out-set index.
type prMatrix struct {
	in       []int64   // in-set: distinct sources, ascending global ids
	out      []int64   // out-set: distinct destinations ∪ the rank's block, ascending
	colStart []int     // the edges into the column at position p are src[colStart[p]:colStart[p+1]]
	src      []uint32  // slot of each edge's source, ascending within a column
	localDeg []float64 // local edges out of each in-set vertex (their weight, if weighted)
	wts      []float32 // the weight of each edge, beside src; nil if unweighted
	// zeroEdges counts the distinct edges of weight 0, which carry no
	// rank and are not in the matrix.
	zeroEdges int
	splits    []int // worker t pulls positions splits[t]:splits[t+1]

	edges        []uint32        // the keys' array as 32-bit words: src is one half of it
	order        []uint32        // out-set index of the column at each position; nil until arranged
	runs         columnRuns      // the arranged columns' blocks and runs
	threadBlocks []int           // worker t's share of the blocks: threadBlocks[t]:threadBlocks[t+1]
	queue        *parallel.Queue // hands out the blocks, shares first

	// slot[l] is where in-set vertex in[l] sits in the array the kernel
	// reads: by descending local out-degree (ties by id), so that the few
	// sources of most edges of a power-law graph share a small, cached part
	// of the array (measured: a third less time per SpMV at scale 22,
	// none at scale 20, where the whole array is small).
	slot []uint32
	// fused: the columns are laid out in the one-rank fused run's order
	// (buildFused), so that its copy of src is made in place.
	fused bool

	vecs prVectors // the run's vectors, until the set-up has read them
}

// maxIDBits bounds the bits of a dense vertex id: an edge travels and is
// sorted as one uint64 key, source in the high half, destination in the low.
const maxIDBits = 32

// idBits returns the bits of the dense ids [0, n), the shift of an edge key.
func idBits(n int64) (uint, error) {
	b := uint(bits.Len64(uint64(n - 1)))
	if n < 1 || b > maxIDBits {
		return 0, fmt.Errorf("pagerank: %d vertices: at most 2^%d are supported", n, maxIDBits)
	}
	return b, nil
}

// buildPRMatrix builds a rank's matrix from its routed edges, packed as
// u<<sh | v (duplicates allowed; keys is overwritten and its array becomes
// the matrix's src). The out-set includes every vertex of [first,
// first+cnt), the rank's block, even without an edge. The work of the sorts
// and of the kernel is split over threads.
//
// The first sort orders the edges by (source, destination): duplicates meet,
// and the distinct sources, in order, are the in-set. Each key is then
// rewritten as v<<sb | slot(u) and sorted again, which orders the edges by
// destination and, within a column, by slot — the order in which the kernel
// adds them, so sums do not depend on the thread count. Both sorts run in
// place (radix.Sort), and the 32-bit slots are written over the keys they
// come from: the set-up's peak is the keys array, with no second array of
// edges beside it. When the out-set is the block [0, cnt) (one rank), the
// second sort orders the columns as the fused run will (buildFused) and
// the keys' unused half goes back to the operating system.
func buildPRMatrix(keys []uint64, sh uint, first, cnt int64, threads int) *prMatrix {
	radix.Sort(keys, 2*sh, threads)
	keys = radix.Dedupe(keys)
	nIn := 0
	for i, k := range keys {
		if i == 0 || k>>sh != keys[i-1]>>sh {
			nIn++
		}
	}
	a := &prMatrix{in: make([]int64, 0, nIn), localDeg: make([]float64, nIn)}
	sb := uint(bits.Len(uint(max(nIn-1, 0))))
	vmask := uint64(1)<<sh - 1
	var fs *fusedStats // the block may be the whole out-set (one rank): lay the columns out fused
	if first == 0 && len(keys) > 0 && cnt > int64(1)<<sh>>1 {
		fs = newFusedStats(cnt)
	}
	for i, k := range keys {
		if u := int64(k >> sh); len(a.in) == 0 || a.in[len(a.in)-1] != u {
			a.in = append(a.in, u)
		}
		l := len(a.in) - 1
		a.localDeg[l]++
		keys[i] = (k&vmask)<<sb | uint64(l)
		if fs != nil {
			fs.add(k>>sh, k&vmask)
		}
	}
	a.slot = degreeSlots(a.localDeg, sb, threads)
	if fs != nil && !fs.outside {
		a.buildFused(keys, sb, fs, threads)
		return a
	}
	a.toSlots(keys, sb, threads)
	radix.Sort(keys, sh+sb, threads)
	a.columns(keys, sb, first, cnt, threads)
	return a
}

// toSlots rewrites keys v<<sb | l (l an in-set index) as v<<sb | slot[l].
func (a *prMatrix) toSlots(keys []uint64, sb uint, threads int) {
	lmask := uint64(1)<<sb - 1
	parallel.For(threads, func(t int) {
		lo, hi := parallel.Span(len(keys), t, threads)
		part, slot := keys[lo:hi], a.slot
		for i, k := range part {
			part[i] = k&^lmask | uint64(slot[k&lmask])
		}
	})
}

// columns builds the out-set and the columns from keys v<<sb | slot(u)
// sorted ascending: the out-set is the distinct destinations and the
// rank's block [first, first+cnt), and src, written over the keys' array,
// the slots of each column's sources.
func (a *prMatrix) columns(keys []uint64, sb uint, first, cnt int64, threads int) {
	m := len(keys)
	lmask := uint64(1)<<sb - 1
	nV := 0
	for i, k := range keys {
		if i == 0 || k>>sb != keys[i-1]>>sb {
			nV++
		}
	}
	a.out = make([]int64, 0, nV+int(cnt))
	a.colStart = make([]int, 0, nV+int(cnt)+1)
	// src[i] takes bytes 4i..4i+3 of the keys array, which held keys[i/2]:
	// keys[i] (bytes 8i..8i+7) is read before src[i] is written, and no
	// later step reads an earlier key.
	a.edges = keysAsUint32(keys)
	a.src = a.edges[:m]
	b, end := first, first+cnt
	for i := 0; i < m; {
		v := int64(keys[i] >> sb)
		for ; b < end && b < v; b++ {
			a.out = append(a.out, b)
			a.colStart = append(a.colStart, i)
		}
		if b < end && b == v {
			b++
		}
		a.out = append(a.out, v)
		a.colStart = append(a.colStart, i)
		for ; i < m && int64(keys[i]>>sb) == v; i++ {
			a.src[i] = uint32(keys[i] & lmask)
		}
	}
	for ; b < end; b++ {
		a.out = append(a.out, b)
		a.colStart = append(a.colStart, m)
	}
	a.colStart = append(a.colStart, m)
	a.splits = balanceColumns(a.colStart, threads)
}

// keysAsUint32 returns keys' array as 2·len(keys) 32-bit words.
func keysAsUint32(keys []uint64) []uint32 {
	if len(keys) == 0 {
		return []uint32{}
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(keys))), 2*len(keys))
}

// spare returns room for a reordered copy of src: src itself when its
// columns are laid out fused (the copy is then in place), else the half of
// the keys' array src does not use, or a new array.
func (a *prMatrix) spare() []uint32 {
	m := len(a.src)
	switch {
	case a.fused:
		return a.src[:m:m]
	case len(a.edges) < 2*m:
		return make([]uint32, m)
	case unsafe.SliceData(a.src) == unsafe.SliceData(a.edges):
		return a.edges[m : 2*m : 2*m]
	default:
		return a.edges[:m:m]
	}
}

// arrange orders each worker's columns by descending length (ties by
// out-set index) for pull's runs; order records where each went. It runs
// once, in the set-up of a run that pulls (a one-rank run fuses instead:
// prLocal numbers its columns itself). The sums do not change: a column
// keeps its edges in their order.
func (a *prMatrix) arrange() {
	if a.order != nil {
		return
	}
	order := make([]uint32, len(a.out))
	colStart := make([]int, len(a.out)+1)
	src := a.spare()
	var wts []float32
	if a.wts != nil {
		wts = make([]float32, len(a.wts))
	}
	parallel.For(len(a.splits)-1, func(t int) {
		lo, hi := a.splits[t], a.splits[t+1]
		cols := order[lo:hi]
		for i := range cols {
			cols[i] = uint32(lo + i)
		}
		byLength(a.colStart, cols)
		e := a.colStart[lo] // the worker's columns keep their span of src
		for i, j := range cols {
			colStart[lo+i] = e
			if wts != nil {
				copy(wts[e:], a.wts[a.colStart[j]:a.colStart[j+1]])
			}
			e += copy(src[e:], a.src[a.colStart[j]:a.colStart[j+1]])
		}
	})
	colStart[len(a.out)] = len(a.src)
	a.src, a.colStart, a.order = src, colStart, order
	if wts != nil {
		a.wts = wts
	}
	a.cutForPull(true)
}

// cutForPull cuts the arranged columns into the blocks and runs pull
// sums, after checking, if check, that every source is in the in-set.
func (a *prMatrix) cutForPull(check bool) {
	if check && !sourcesBelow(a.src, len(a.in)) {
		panic("spmv: a PageRank column has a source outside the in-set") // the column sums read x unchecked
	}
	starts, firstOf := blocks(a.splits)
	a.runs, a.threadBlocks = cutRuns(a.colStart, starts, -1), firstOf
	a.queue = parallel.NewQueue(len(a.splits) - 1)
}

// positions returns, for each out-set index, the position its column was
// arranged to: where pull leaves its sum (the allreduce's outAt).
func (a *prMatrix) positions() []int32 {
	a.arrange()
	at := make([]int32, len(a.order))
	for p, j := range a.order {
		at[j] = int32(p)
	}
	return at
}

// slots returns slot as int32 positions: where the kernel reads each
// in-set vertex's value (the allreduce's inAt).
func (a *prMatrix) slots() []int32 {
	at := make([]int32, len(a.slot))
	for l, q := range a.slot {
		at[l] = int32(q)
	}
	return at
}

// degreeSlots numbers the in-set vertices by descending local degree, ties
// by position: slot[l] is the rank of vertex l in that order. sb is the
// bits of a position.
func degreeSlots(deg []float64, sb uint, threads int) []uint32 {
	maxDeg := 0
	for _, d := range deg {
		maxDeg = max(maxDeg, int(d))
	}
	order := make([]uint64, len(deg))
	for l, d := range deg {
		order[l] = uint64(maxDeg-int(d))<<sb | uint64(l)
	}
	radix.Sort(order, uint(bits.Len(uint(maxDeg)))+sb, threads)
	slot := make([]uint32, len(deg))
	lmask := uint64(1)<<sb - 1
	for q, k := range order {
		slot[k&lmask] = uint32(q)
	}
	return slot
}

// gather copies the in-set values x (by in-set position) into xs (by slot),
// on len(splits)−1 goroutines.
func (a *prMatrix) gather(x, xs []float64) {
	parts := len(a.splits) - 1
	parallel.For(parts, func(t int) {
		lo, hi := parallel.Span(len(x), t, parts)
		slot := a.slot[lo:hi]
		for i, v := range x[lo:hi] {
			xs[slot[i]] = v
		}
	})
}

// balanceColumns cuts the columns into `parts` consecutive runs of about
// equal work, counting one unit per edge and one per column.
func balanceColumns(colStart []int, parts int) []int {
	cols := len(colStart) - 1
	total := colStart[cols] + cols
	splits := make([]int, parts+1)
	for t := 1; t < parts; t++ {
		target := int(int64(total) * int64(t) / int64(parts))
		j := sort.Search(cols, func(j int) bool { return colStart[j]+j >= target })
		splits[t] = max(j, splits[t-1])
	}
	splits[parts] = cols
	return splits
}

// gathered reports whether pull sums the long columns with gathers (false
// for a rank without a matrix).
func (a *prMatrix) gathered() bool { return a != nil && a.runs.gather }

// pull computes y[p] = Σ x[src[e]] over the edges e of the column at
// position p (arrange's order; positions maps an out-set index to it), for
// every column, with x by slot, on len(splits)−1 goroutines: each sums its
// blocks of arranged columns by runs (its own first, then others' left,
// parallel.Queue) straight into y. A column's order of addition depends
// only on the column (sumRuns), so y depends neither on the split nor on
// which worker summed a block.
func (a *prMatrix) pull(x, y []float64) {
	a.arrange()
	if len(x) < len(a.in) || len(y) < len(a.out) {
		panic(fmt.Sprintf("spmv: pull of %d in-set values into %d sums with an in-set of %d and an out-set of %d",
			len(x), len(y), len(a.in), len(a.out)))
	}
	if a.wts != nil {
		a.pullWeighted(x, y)
		return
	}
	gather := a.runs.gathers(x)
	a.queue.Reset(a.threadBlocks)
	parallel.For(len(a.splits)-1, func(t int) {
		for b := a.queue.Next(t); b >= 0; b = a.queue.Next(t) {
			lo, hi := a.runs.blockStart[b], a.runs.blockStart[b+1]
			a.runs.sum(b, a.colStart, a.src, x, y[lo:hi], gather)
		}
	})
	a.runs.timed()
}

// pullWeighted is pull on a weighted matrix: y[p] = Σ w_e·x[src[e]] over
// the column at position p (weightedSumRun).
func (a *prMatrix) pullWeighted(x, y []float64) {
	a.queue.Reset(a.threadBlocks)
	parallel.For(len(a.splits)-1, func(t int) {
		for b := a.queue.Next(t); b >= 0; b = a.queue.Next(t) {
			lo, hi := a.runs.blockStart[b], a.runs.blockStart[b+1]
			a.runs.sumWeighted(b, a.colStart, a.src, a.wts, x, y[lo:hi])
		}
	})
}
