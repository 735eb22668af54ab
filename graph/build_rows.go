package graph

// Kernel 1's rows: row starts from the counted lengths, the check that
// every row got what it counted, and the in-place sort, deduplication and
// compaction of the rows (radix sort per row, volume-balanced over threads).

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/graphrun/graphrun/internal/parallel"
)

// rowStarts turns the row lengths into row starts (offsets[v], and
// offsets[nLocal] = the total) and returns the total.
func (b *builder[C]) rowStarts() int64 {
	n := b.nLocal
	b.offsets = make([]int64, n+1)
	nt := max(1, min(b.threads, n/4096))
	chunk := make([]int64, nt+1)
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(n, t, nt)
		var acc int64
		for v := lo; v < hi; v++ {
			b.offsets[v] = acc
			acc += int64(b.degree[v])
		}
		chunk[t+1] = acc
	})
	for t := range nt {
		chunk[t+1] += chunk[t]
	}
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(n, t, nt)
		for v := lo; v < hi; v++ {
			b.offsets[v] += chunk[t]
		}
	})
	b.offsets[n] = chunk[nt]
	return chunk[nt]
}

// checkFilled checks that the fill pass wrote exactly the counted half-edges
// of every row (each cursor ends where the next row starts) and turns the
// cursors back into row starts.
func (b *builder[C]) checkFilled() error {
	n := b.nLocal
	var end int64
	for v := range n {
		end += int64(b.degree[v])
		if b.offsets[v] != end {
			return fmt.Errorf("graph: kernel 1: %w: row of vertex %d filled to %d, counted %d",
				errRoute, b.first+int64(v), b.offsets[v]-(end-int64(b.degree[v])), b.degree[v])
		}
	}
	copy(b.offsets[1:], b.offsets[:n])
	b.offsets[0] = 0
	return nil
}

// sortRows sorts every row in descending order and removes duplicates, then
// compacts the rows in place: each thread first packs its rows to the start
// of its range, then the ranges move down one after the other.
func (b *builder[C]) sortRows() {
	n := b.nLocal
	offsets, cols := b.offsets, b.cols
	ns := max(1, min(b.threads, n))
	bounds := volumeBounds(offsets, ns)
	kept := make([]int64, ns) // per thread: entries kept
	parallel.For(ns, func(t int) {
		var scratch []C
		dst := offsets[bounds[t]]
		for v := bounds[t]; v < bounds[t+1]; v++ {
			row := cols[offsets[v]:offsets[v+1]]
			if len(row) >= radixMin && len(scratch) < len(row) {
				scratch = make([]C, len(row)+len(row)/4)
			}
			k := sortDedupe(row, scratch)
			d := cols[dst : dst+int64(k)]
			for i, x := range row[:k] {
				d[i] = ^x
			}
			if v > bounds[t] { // the first row stays where it is
				offsets[v] = dst // the row's start within the thread's packed range
			}
			dst += int64(k)
		}
		kept[t] = dst - offsets[bounds[t]]
	})
	// Move the packed ranges down; ranges are handled in order, so a range
	// only moves over space its predecessors have left.
	var at int64
	for t := range ns {
		lo := bounds[t]
		if lo == bounds[t+1] {
			continue
		}
		from := offsets[lo]
		copy(cols[at:at+kept[t]], cols[from:from+kept[t]])
		shift := from - at
		if shift != 0 {
			for v := lo; v < bounds[t+1]; v++ {
				offsets[v] -= shift
			}
		}
		at += kept[t]
	}
	offsets[n] = at
	b.cols = cols[:at:at]
}

// divider divides ids in [0, n) by a fixed block size d with a multiply and
// a shift instead of a hardware division (Granlund and Montgomery, "Division
// by invariant integers using multiplication", PLDI 1994, Thm. 4.2): with
// l = ⌈log2 d⌉, any N such that every dividend is < 2^N, and
// m = ⌊2^(N+l)/d⌋ + 1 (so that 2^(N+l) < m·d ≤ 2^(N+l) + 2^l),
// ⌊u/d⌋ = ⌊u·m / 2^(N+l)⌋. Taking N = max(bits(n-1), 64-l) makes N+l ≥ 64,
// so the quotient is the high word of the 128-bit product shifted right by
// N+l-64. It needs 64 ≤ d ≤ 2^32 (checkPartition) and n ≤ 2^63: then N ≤ 63,
// 2^(N+l-64) < d as bits.Div64 requires, and m < 2^64.
type divider struct {
	m  uint64
	sh uint
}

func newDivider(d, n uint64) divider {
	l := bits.Len64(d - 1)
	nb := max(bits.Len64(n-1), 64-l)
	sh := uint(nb + l - 64)
	q, _ := bits.Div64(1<<sh, 0, d) // ⌊2^(nb+l) / d⌋
	return divider{m: q + 1, sh: sh}
}

// div returns u / d.
func (v divider) div(u uint64) uint64 {
	hi, _ := bits.Mul64(u, v.m)
	return hi >> v.sh
}

// volumeBounds splits rows [0, len(offsets)-1) into parts ranges of about
// equal edge volume: part t is rows [b[t], b[t+1]). offsets[0] need not be 0.
func volumeBounds(offsets []int64, parts int) []int {
	nrows := len(offsets) - 1
	total := offsets[nrows] - offsets[0]
	b := make([]int, parts+1)
	for t := 1; t < parts; t++ {
		target := offsets[0] + int64(float64(total)*float64(t)/float64(parts))
		b[t] = sort.Search(nrows, func(v int) bool { return offsets[v] >= target })
	}
	b[parts] = nrows
	return b
}

// radixMin is the row length from which sortDedupe uses a radix sort: below
// it slices.Sort (insertion sort and pdqsort) is faster. Measured on rows of
// random 20-bit ids, ns per entry, pdqsort vs radix: 44 vs 56 at 32 entries,
// 46 vs 30 at 64, 64 vs 18 at 256, 101 vs 15 at 8192.
const radixMin = 64

// sortDedupe sorts row ascending, moves its distinct values to the front and
// returns their count. scratch must hold len(row) entries when len(row) ≥
// radixMin. All entries of row must have the same sign (they are complemented
// non-negative ids, see assemble), so their order is their unsigned order.
func sortDedupe[C uint32 | int64](row, scratch []C) int {
	if len(row) < 2 {
		return len(row)
	}
	if len(row) < radixMin {
		slices.Sort(row)
	} else {
		radixSort(row, scratch[:len(row)])
	}
	k := 1
	for _, x := range row[1:] {
		if x != row[k-1] {
			row[k] = x
			k++
		}
	}
	return k
}

// radixSort sorts row ascending by an LSD radix sort on bytes, using tmp
// (len(tmp) == len(row)) as the other buffer. Bytes in which all entries
// agree (the high bytes of ids far below 2^32 or 2^64) are skipped. Entries
// must share their sign bit. (Counting every byte position in one pass, or
// 10- and 11-bit digits, measured slower on rows of 64 to 65536 ids.)
func radixSort[C uint32 | int64](row, tmp []C) {
	var diff C
	f := row[0]
	for _, x := range row {
		diff |= x ^ f
	}
	src, dst := row, tmp
	for shift := 0; diff>>shift != 0; shift += 8 {
		if byte(diff>>shift) == 0 {
			continue
		}
		var cnt [256]int
		for _, x := range src {
			cnt[byte(x>>shift)]++
		}
		sum := 0
		for i, c := range cnt {
			cnt[i] = sum
			sum += c
		}
		for _, x := range src {
			d := byte(x >> shift)
			dst[cnt[d]] = x
			cnt[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &row[0] {
		copy(row, src)
	}
}

// rowOffsets turns the per-thread row counts cnt[t][v] into the row lengths
// (degree, the TupleDegree before deduplication), the row offsets, and, in
// place, every thread's absolute scatter cursors: thread t writes its
// half-edges of row v from offsets[v] + Σ_{t'<t} cnt[t'][v] on, so the scatter
// needs no atomics. Vertices are split among nt threads; a second parallel
// pass adds each chunk's base once the chunk totals are known.
func rowOffsets(cnt [][]int64, nLocal, rank, nt int) ([]uint32, []int64, error) {
	degree := make([]uint32, nLocal)
	offsets := make([]int64, nLocal+1)
	chunk := make([]int64, nt+1) // chunk[t+1]: half-edges of vertex chunk t, then prefix sums
	errs := make([]error, nt)
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(nLocal, t, nt)
		var acc int64
		for v := lo; v < hi; v++ {
			var sum int64
			for _, c := range cnt {
				k := c[v]
				c[v] = sum
				sum += k
			}
			if sum > math.MaxUint32 {
				errs[t] = fmt.Errorf("graph: kernel 1: vertex %d of rank %d has %d half-edges, more than a uint32 TupleDegree holds",
					v, rank, sum)
				return
			}
			degree[v] = uint32(sum)
			offsets[v] = acc // relative to the chunk for now
			acc += sum
		}
		chunk[t+1] = acc
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	for t := range nt {
		chunk[t+1] += chunk[t]
	}
	offsets[nLocal] = chunk[nt]
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(nLocal, t, nt)
		base := chunk[t]
		for v := lo; v < hi; v++ {
			o := offsets[v] + base
			offsets[v] = o
			for _, c := range cnt {
				c[v] += o
			}
		}
	})
	return degree, offsets, nil
}
