package partition

// The fused layout of an over-decomposed 2D run (NumS §5's load-simulated
// placement, run aggregated per process): when the block grid refines the
// most square process grid and LSHS keeps block rows in contiguous groups
// (PlaceLSHSFusable), a process's blocks are one block of the process grid
// over the graph renumbered by a SegmentOrder, which moves the vertex
// pieces of the block grid whole and keeps each column's vertices in
// order. A run then searches that graph with one block per process.

import (
	"strconv"
	"strings"
)

// FusedLayout is a fusable LSHS layout run fused: the process grid over
// the renumbered graph, the renumbering, and per process column the block
// columns it holds.
type FusedLayout struct {
	Grid    Grid
	Order   *SegmentOrder
	Columns [][]int
}

// FusableGrid returns the process grid of p ranks that the block grid
// blocks can be fused onto (the most square one, refined by the block
// grid, every block row and vertex piece of both grids an equal range of
// the vertices), and whether there is one.
func FusableGrid(blocks Grid, p int) (Grid, bool) {
	pr, pc, _ := AutoGrid(p)
	if blocks.R%pr != 0 || blocks.C%pc != 0 {
		return Grid{}, false
	}
	procs, err := NewGrid(blocks.Part.N, pr, pc)
	n := blocks.Part.N
	if err != nil || blocks.Part.Block*int64(blocks.P()) != n || procs.Part.Block*int64(p) != n {
		return Grid{}, false
	}
	return procs, true
}

// NewFusedLayout returns the fused layout of the block grid blocks on the
// process grid procs that puts block column c on process column col[c]:
// vertex piece (a, c) of the block grid, block row a and block column c,
// goes to piece (a·pr/br, col[c]) of the process grid, and the pieces that
// share one keep their order.
func NewFusedLayout(procs, blocks Grid, col []int) (*FusedLayout, error) {
	pieces := make([][]int, procs.P())
	columns := make([][]int, procs.C)
	for k := range blocks.P() {
		a, c := k/blocks.C, k%blocks.C
		t := procs.Rank(a/(blocks.R/procs.R), col[c])
		pieces[t] = append(pieces[t], k)
	}
	for c, g := range col {
		columns[g] = append(columns[g], c)
	}
	order, err := NewSegmentOrder(blocks.Part.N, pieces)
	if err != nil {
		return nil, err
	}
	return &FusedLayout{Grid: procs, Order: order, Columns: columns}, nil
}

// String names the block columns of every process column, as
// "0+7 4+6 2+3 1+5" (process row i holds the i-th contiguous group of
// block rows).
func (f *FusedLayout) String() string {
	var sb strings.Builder
	for g, cols := range f.Columns {
		if g > 0 {
			sb.WriteByte(' ')
		}
		for k, s := range cols {
			if k > 0 {
				sb.WriteByte('+')
			}
			sb.WriteString(strconv.Itoa(s))
		}
	}
	return sb.String()
}
