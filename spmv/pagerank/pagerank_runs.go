// PageRank's column sums by runs (Kylix §VII, the local SpMV;
// REFERENCES.md): a matrix whose columns are stored by descending length
// has long runs of columns of equal length, whose edge loops have a trip
// count the branch predictor knows. Summed in column-id order, a power-law
// graph's short columns spend more time in mispredicted loop exits than in
// their edges (Slashdot: 0.89 ms of column loop per iteration against
// 0.28 ms for the same edges in one loop). Runs are cut at block
// boundaries, the unit a thread takes.

package pagerank

import (
	"math/bits"
	"time"
	"unsafe"

	"github.com/graphrun/graphrun/internal/radix"
)

// columnRuns cuts a matrix's positions into blocks and each block into
// runs of columns of equal length.
type columnRuns struct {
	blockStart []int // block b is positions [blockStart[b], blockStart[b+1])
	first      []int // block b's runs are first[b]:first[b+1]
	end        []int // run r ends before position end[r]
	width      []int // the length of run r's columns

	// Whether long columns are summed with gathers (longColumnSum): tried
	// on the first calls, then fixed (gathers, timed).
	trials  int
	gather  bool
	started time.Time
	best    [2]time.Duration // the fastest timed call: the Go loop, gathers
}

// cutRuns returns the runs of colStart's columns (by position) in the
// blocks blockStart (ascending, ending with the number of positions); no
// run crosses position cut either (−1 for none).
func cutRuns(colStart, blockStart []int, cut int) columnRuns {
	r := columnRuns{blockStart: blockStart, first: make([]int, 0, len(blockStart))}
	for b := 0; b+1 < len(blockStart); b++ {
		r.first = append(r.first, len(r.end))
		hi := blockStart[b+1]
		for p := blockStart[b]; p < hi; {
			w := colStart[p+1] - colStart[p]
			end := p + 1
			for end < hi && end != cut && colStart[end+1]-colStart[end] == w {
				end++
			}
			r.end, r.width = append(r.end, end), append(r.width, w)
			p = end
		}
	}
	r.first = append(r.first, len(r.end))
	return r
}

// blocks returns the block starts of prBlock positions each over the
// ranges [splits[t], splits[t+1]), so that no block crosses a split, and
// the first block of each range.
func blocks(splits []int) (starts, firstOf []int) {
	for t := 0; t+1 < len(splits); t++ {
		firstOf = append(firstOf, len(starts))
		for lo := splits[t]; lo < splits[t+1]; lo += prBlock {
			starts = append(starts, lo)
		}
	}
	firstOf = append(firstOf, len(starts))
	return append(starts, splits[len(splits)-1]), firstOf
}

// sum writes block b's column sums into y (y[p − start] for position p):
// sumRuns over the block's runs.
func (r *columnRuns) sum(b int, colStart []int, src []uint32, x, y []float64, gather bool) {
	lo := r.blockStart[b]
	sumRuns(r.end[r.first[b]:r.first[b+1]], r.width[r.first[b]:r.first[b+1]], src, x, y, lo, colStart[lo], gather)
}

// byLength orders cols (indices into colStart) by descending column
// length, ties by index: the order whose runs sumRuns takes.
func byLength(colStart []int, cols []uint32) {
	longest, last := 0, uint32(0)
	for _, j := range cols {
		longest, last = max(longest, colStart[j+1]-colStart[j]), max(last, j)
	}
	idBits := uint(bits.Len32(last))
	lenBits := min(uint(bits.Len(uint(longest))), 64-idBits)
	longest = min(longest, 1<<lenBits-1) // longer columns count as equal
	keys := make([]uint64, len(cols))
	for i, j := range cols {
		keys[i] = uint64(longest-min(colStart[j+1]-colStart[j], longest))<<idBits | uint64(j)
	}
	radix.Sort(keys, lenBits+idBits, 1)
	for i, k := range keys {
		cols[i] = uint32(k & (1<<idBits - 1))
	}
}

// sumRuns writes into y the column sums of the runs (ends and widths) of
// one block starting at position lo, whose edges start at src[e]: y[p−lo] =
// Σ x over column p's sources (sumRun; gather as for longColumnSum).
func sumRuns(ends, widths []int, src []uint32, x, y []float64, lo, e int, gather bool) {
	p := lo
	for r, end := range ends {
		w := widths[r]
		sumRun(src[e:e+w*(end-p)], w, x, y[p-lo:end-lo], gather)
		e += w * (end - p)
		p = end
	}
}

// sumRun writes into y the sums of a run of columns of w edges each, whose
// edges are src: column i's are src[w·i:w·i+w]. Columns of 1 to 4 edges are
// summed without a loop; a longer run's loop has the same trip count for
// every column. The order of addition is the edges' (shortColumnSum), or
// from longColumn edges on four interleaved sums (longColumnSum, with
// gathers if gather).
func sumRun(src []uint32, w int, xs, y []float64, gather bool) {
	src = src[:w*len(y)]
	x := vec(xs)
	switch w {
	case 0:
		clear(y)
	case 1:
		for i := range y {
			y[i] = at(x, src[i])
		}
	case 2:
		for i := range y {
			c := src[2*i : 2*i+2]
			y[i] = at(x, c[0]) + at(x, c[1])
		}
	case 3:
		for i := range y {
			c := src[3*i : 3*i+3]
			y[i] = at(x, c[0]) + at(x, c[1]) + at(x, c[2])
		}
	case 4:
		for i := range y {
			c := src[4*i : 4*i+4]
			y[i] = at(x, c[0]) + at(x, c[1]) + at(x, c[2]) + at(x, c[3])
		}
	default:
		if w < longColumn {
			for i := range y {
				y[i] = shortColumnSum(src[w*i:w*i+w], x)
			}
			return
		}
		for i := range y {
			y[i] = longColumnSum(src[w*i:w*i+w], x, gather)
		}
	}
}

// shortColumnSum is Σ x[u] over a column's sources in edge order.
func shortColumnSum(col []uint32, x unsafe.Pointer) float64 {
	var s float64
	for _, u := range col {
		s += at(x, u)
	}
	return s
}

// longColumn is the length from which a column is summed in four running
// sums (longColumnSum).
const longColumn = 16

// longColumnSum is Σ x[u] over a long column's sources in four running
// sums (edge k below len &^ 3 goes to sum k mod 4, the rest to sum 0; they
// are added as (s0+s1)+(s2+s3) at the end), so that four additions are in
// flight instead of one chain of dependent ones, which bounds a long
// column's loop. The order depends only on the column: with gather (see
// columnRuns.gathers) the AVX2 gathers of pagerank_gather_amd64.s add in
// the same order as the Go loop.
func longColumnSum(col []uint32, x unsafe.Pointer, gather bool) float64 {
	if gather {
		return longColumnSumAVX2(col, x)
	}
	return longColumnSumGo(col, x)
}

// gatherAbove is the input length up to which long columns are not even
// tried with gathers (columnRuns.gathers): 2^17 values, 1 MiB, the L2 of the
// machine measured (AMD EPYC, Zen 4), where a gather costs more than four
// loads that hit the cache and less than four that miss it. Per iteration
// there, the gathers against the Go loop: 0.70 against 0.61 ms on the
// directed Kronecker 17 graph and 0.36 against 0.29 ms on Slashdot, whose
// inputs fit in L2; 1.7-1.9 against 2.0 ms at scale 18, 4.1 against 4.9 ms
// at 19, 8.5 against 10.3-11.3 ms at 20, and 13.9 against 17.4 ms on the
// symmetric Kronecker 20 graph.
const gatherAbove = 1 << 17

// gatherTrials is how many calls of a matrix's column sums try the two
// loops before the faster is kept: a warm-up call with the Go loop, then
// the Go loop, gathers, the Go loop, gathers.
const gatherTrials = 5

// gathers returns whether this call's long columns are gathered (the
// caller times the call: gathers, then its sums, then timed). Long
// columns of an input x of at most gatherAbove values are never gathered.
// Above that, the first calls try both loops on the real iterations, and
// from the last trial on the matrix keeps gathers only if its faster call
// beat the Go loop's by 5 %. A gather's cost differs between processors
// much more than a load's (some run it as microcode, some have it slowed
// by a security mitigation), and how many of a matrix's gathers miss the
// cache shows only in a whole iteration: a stand-alone sample of the
// columns, timed at set-up, ran warm and chose the Go loop on the directed
// Kronecker 19 graph, whose iterations the gathers make 17 % faster. The
// sums are the same bits either way.
func (r *columnRuns) gathers(x []float64) bool {
	switch {
	case r.trials >= gatherTrials:
		return r.gather
	case !gatherColumns || len(x) <= gatherAbove:
		r.trials, r.gather = gatherTrials, false
		return false
	}
	r.started = time.Now()
	return r.trials > 0 && r.trials%2 == 0
}

// timed ends a call that gathers began.
func (r *columnRuns) timed() {
	if r.trials >= gatherTrials {
		return
	}
	if r.trials > 0 {
		d, k := time.Since(r.started), 1-r.trials%2
		if r.trials <= 2 || d < r.best[k] {
			r.best[k] = d
		}
	}
	r.trials++
	if r.trials == gatherTrials {
		r.gather = r.best[1]*20 < r.best[0]*19
	}
}

// longColumnSumGo is longColumnSum's loop in Go.
func longColumnSumGo(col []uint32, x unsafe.Pointer) float64 {
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+3 < len(col); k += 4 {
		c := col[k : k+4]
		s0 += at(x, c[0])
		s1 += at(x, c[1])
		s2 += at(x, c[2])
		s3 += at(x, c[3])
	}
	for ; k < len(col); k++ {
		s0 += at(x, col[k])
	}
	return (s0 + s1) + (s2 + s3)
}

// at is x[u] for the vector x points to, without a bounds check: the
// column sums run only on matrices whose sources were checked to index
// their input vector (sourcesBelow), and the check of an index that the
// compiler cannot prove in range is a compare and a branch per edge
// (3-5 % of a Kronecker 20 iteration).
func at(x unsafe.Pointer, u uint32) float64 {
	return *(*float64)(unsafe.Add(x, uintptr(u)*8))
}

// vec is the address of x's first element, for at.
func vec(x []float64) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(x)) }

// sourcesBelow reports whether every source indexes a vector of n
// elements: the condition for summing columns with at.
func sourcesBelow(src []uint32, n int) bool {
	var m uint32
	for _, u := range src {
		m = max(m, u)
	}
	return len(src) == 0 || int64(m) < int64(n)
}
