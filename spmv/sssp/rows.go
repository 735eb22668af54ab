package sssp

// The engine's rows: the CSR's adjacency with each row reordered by weight,
// so that a row's light edges (w ≤ Δ) are its prefix and its heavy edges
// its suffix (Meyer and Sanders §2 keep the two sets apart so that a light
// phase never looks at a heavy edge). The CSR itself stays in kernel 1's
// order for BFS and the validator.

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/parallel"
)

// rows is the weight-ordered copy of a CSR's adjacency. Row v spans
// [off[v], off[v+1]) of cols and w (off is the CSR's Offsets); its first
// light[v] entries are light.
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

// newRows copies cols and w row by row in ascending order of weight (ties
// by neighbour), with threads goroutines.
func newRows[C uint32 | int64](g *graph.CSR, cols []C, w []float32, delta float32, threads int) *rows[C] {
	r := &rows[C]{off: g.Offsets, cols: make([]C, len(cols)), w: make([]float32, len(w)), light: make([]uint32, g.NumLocal)}
	parallel.For(threads, func(t int) {
		lo, hi := parallel.Span(g.NumLocal, t, threads)
		var scratch []entry[C]
		for v := lo; v < hi; v++ {
			a, b := g.Offsets[v], g.Offsets[v+1]
			scratch = scratch[:0]
			for i := a; i < b; i++ {
				scratch = append(scratch, entry[C]{w[i], cols[i]})
			}
			slices.SortFunc(scratch, func(x, y entry[C]) int {
				return cmp.Or(cmp.Compare(x.w, y.w), cmp.Compare(x.c, y.c))
			})
			var light uint32
			for k, e := range scratch {
				r.cols[a+int64(k)], r.w[a+int64(k)] = e.c, e.w
				if e.w <= delta {
					light++
				}
			}
			r.light[v] = light
		}
	})
	return r
}

// bytes is the copy's memory.
func (r *rows[C]) bytes() int64 {
	var c C
	return int64(len(r.cols))*int64(unsafe.Sizeof(c)) + 4*int64(len(r.w)) + 4*int64(len(r.light))
}
