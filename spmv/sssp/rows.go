package sssp

// The engine's rows: the CSR's own adjacency and weights, each row
// reordered in place by weight, so that a row's light edges (w ≤ Δ) are
// its prefix and its heavy edges its suffix (Meyer and Sanders §2 keep the
// two sets apart so that a light phase never looks at a heavy edge). The
// reorder replaces kernel 1's descending order: the graph is held once.

import (
	"cmp"
	"math"
	"slices"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/parallel"
)

// rows is a CSR's adjacency ordered by weight within each row. Row v spans
// [off[v], off[v+1]) of cols and w (the CSR's Offsets, columns and
// weights); its first light[v] entries are light.
type rows[C uint32 | int64] struct {
	off   []int64
	cols  []C
	w     []float32
	light []uint32
}

// entry is one adjacency entry while its row is sorted.
type entry[C uint32 | int64] struct {
	w float32
	c C
}

// newRows reorders cols and w row by row, in place, in ascending order of
// weight (ties by neighbour), with threads goroutines.
func newRows[C uint32 | int64](g *graph.CSR, cols []C, w []float32, delta float32, threads int) *rows[C] {
	r := &rows[C]{off: g.Offsets, cols: cols, w: w, light: make([]uint32, g.NumLocal)}
	parallel.For(threads, func(t int) {
		lo, hi := parallel.Span(g.NumLocal, t, threads)
		if c32, ok := any(cols).([]uint32); ok {
			sortRows32(r, c32, lo, hi)
		} else {
			sortRows(r, lo, hi)
		}
		for v := lo; v < hi; v++ {
			r.light[v] = lightCount(w[r.off[v]:r.off[v+1]], delta)
		}
	})
	return r
}

// sortRows is newRows's sort of rows lo … hi−1 for any columns.
func sortRows[C uint32 | int64](r *rows[C], lo, hi int) {
	var scratch []entry[C]
	for v := lo; v < hi; v++ {
		a, b := r.off[v], r.off[v+1]
		scratch = scratch[:0]
		for i := a; i < b; i++ {
			scratch = append(scratch, entry[C]{r.w[i], r.cols[i]})
		}
		slices.SortFunc(scratch, func(x, y entry[C]) int {
			return cmp.Or(cmp.Compare(x.w, y.w), cmp.Compare(x.c, y.c))
		})
		for k, e := range scratch {
			r.cols[a+int64(k)], r.w[a+int64(k)] = e.c, e.w
		}
	}
}

// sortRows32 is newRows's sort of rows lo … hi−1 for 32-bit columns: a
// row's entries as keys weight<<32 | neighbour (a non-negative float's bits
// order as the float), sorted as integers.
func sortRows32[C uint32 | int64](r *rows[C], cols []uint32, lo, hi int) {
	var keys []uint64
	for v := lo; v < hi; v++ {
		a, b := r.off[v], r.off[v+1]
		keys = keys[:0]
		for i := a; i < b; i++ {
			keys = append(keys, uint64(math.Float32bits(r.w[i]))<<32|uint64(cols[i]))
		}
		slices.Sort(keys)
		for k, key := range keys {
			cols[a+int64(k)], r.w[a+int64(k)] = uint32(key), math.Float32frombits(uint32(key>>32))
		}
	}
}

// lightCount is the number of light weights (≤ delta) of a row sorted by
// weight.
func lightCount(row []float32, delta float32) uint32 {
	n, _ := slices.BinarySearchFunc(row, delta, func(x, d float32) int {
		if x <= d {
			return -1
		}
		return 1
	})
	return uint32(n)
}
