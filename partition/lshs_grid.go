package partition

// LSHS restricted to grid-aligned layouts (NumS §5's load-simulated
// placement, with its network term read as what the network charges per
// level on a cluster with latency). Equation 2 counts network bytes; but
// when every level of a 2D BFS (Lv et al. §VIII–IX) is a few small
// exchanges among the processes that share a block row or a block column,
// a level costs per process it reaches, not per byte: on the emulated
// cluster (16 processes, 1 ms one-way delay) LSHS's free
// placement left each process's row and column rounds reaching nearly
// every other process and ran 1.5–1.7× slower per level than round-robin,
// whose cyclic layout keeps a block column on 2 processes.
//
// PlaceLSHSGrid keeps the processes as a pr×pc grid and gives every block
// row to one process row and every block column to one process column, so
// block (a, b) lives on process (row group of a, column group of b): a
// process's row rounds reach the pc−1 others of its process row and its
// column rounds the pr−1 of its column, as with one block per process.
// Within those layouts it balances the blocks' work (Work, else Memory)
// the LSHS way: lines are taken largest first and each goes to the group
// that keeps the simulated maximum load lowest (LPT), then pairs of lines
// of different groups are swapped while a swap lowers the largest
// process load (then the sum of squared loads). On the scale-18
// unpermuted Kronecker blocks of an 8x8 grid on 4x4 processes it reaches a
// work imbalance of 1.16 (the best grid-aligned layout), against 1.81 for
// round-robin and 1.07 for unrestricted LSHS (partition/lshs_grid_test.go).

import (
	"cmp"
	"fmt"
	"slices"
)

// PlaceLSHSGrid places the blocks of pb on a pr×pc grid of its ranks
// (rank g·pc + h is process row g, process column h), every block row on
// one process row and every block column on one process column, each
// process row taking BlockRows/pr block rows and each process column
// BlockCols/pc block columns; see the file comment.
func PlaceLSHSGrid(pb PlacementProblem, pr, pc int) (Placement, error) {
	if err := pb.Check(); err != nil {
		return Placement{}, err
	}
	if pr < 1 || pc < 1 || pr*pc != pb.Ranks || pb.BlockRows%pr != 0 || pb.BlockCols%pc != 0 {
		return Placement{}, fmt.Errorf("partition: a %dx%d block grid does not refine a %dx%d grid of %d ranks",
			pb.BlockRows, pb.BlockCols, pr, pc, pb.Ranks)
	}
	br, bc := pb.BlockRows, pb.BlockCols
	work := pb.blockWork()
	rowSum, colSum := make([]int64, br), make([]int64, bc)
	for a := range br {
		for b := range bc {
			rowSum[a] += work[a*bc+b]
			colSum[b] += work[a*bc+b]
		}
	}
	g := gridLayout{work: work, br: br, bc: bc, pr: pr, pc: pc,
		row: lptGroups(rowSum, pr, br/pr), col: lptGroups(colSum, pc, bc/pc), loads: make([]int64, pr*pc)}
	g.improve()
	owner := make([]int, len(pb.Blocks))
	for a := range br {
		for b := range bc {
			owner[a*bc+b] = g.row[a]*pc + g.col[b]
		}
	}
	return Simulate(pb, owner)
}

// blockWork is what the grid-aligned layouts balance, per block: its Work
// when the problem has work, else its Memory.
func (pb *PlacementProblem) blockWork() []int64 {
	work := make([]int64, len(pb.Blocks))
	byWork := pb.hasWork()
	for k, b := range pb.Blocks {
		work[k] = b.Memory
		if byWork {
			work[k] = b.Work
		}
	}
	return work
}

// lptGroups assigns lines of the given sums to groups of size lines each,
// largest first, every line to the group of least sum with room (the
// lowest on ties).
func lptGroups(sums []int64, groups, size int) []int {
	order := make([]int, len(sums))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(sums[y], sums[x]) })
	group := make([]int, len(sums))
	load, count := make([]int64, groups), make([]int, groups)
	for _, line := range order {
		best := -1
		for q := range groups {
			if count[q] < size && (best < 0 || load[q] < load[best]) {
				best = q
			}
		}
		group[line] = best
		load[best] += sums[line]
		count[best]++
	}
	return group
}

// gridLayout is a grid-aligned placement being improved: per block row and
// column, its process row or column.
type gridLayout struct {
	work           []int64 // per block, row-major
	br, bc, pr, pc int
	row, col       []int
	rowsFixed      bool    // improve swaps block columns only
	loads          []int64 // scratch: per process
}

// cost is the layout's largest process load and the sum of the squared
// loads (in units of the largest, so that it cannot overflow).
func (g *gridLayout) cost() (top int64, spread float64) {
	clear(g.loads)
	for a := range g.br {
		for b := range g.bc {
			g.loads[g.row[a]*g.pc+g.col[b]] += g.work[a*g.bc+b]
		}
	}
	top = slices.Max(g.loads)
	if top == 0 {
		return 0, 0
	}
	for _, l := range g.loads {
		f := float64(l) / float64(top)
		spread += f * f
	}
	return top, spread
}

// cheaper reports whether a layout of cost (top, spread) beats one of
// (bestTop, bestSpread): a lower largest load, or the same and a lower
// spread.
func cheaper(top int64, spread float64, bestTop int64, bestSpread float64) bool {
	return top < bestTop || (top == bestTop && spread < bestSpread-1e-12)
}

// maxSwaps bounds the local search (each swap strictly lowers the cost, so
// it ends anyway; the bound keeps a large grid's placement quick).
const maxSwaps = 10000

// improve swaps two block rows of different process rows, or two block
// columns of different process columns, while the best such swap lowers
// the cost.
func (g *gridLayout) improve() {
	top, spread := g.cost()
	for range maxSwaps {
		var bestLines []int
		bestX, bestY := -1, -1
		bestTop, bestSpread := top, spread
		for _, lines := range g.lines() {
			for x := range lines {
				for y := x + 1; y < len(lines); y++ {
					if lines[x] == lines[y] {
						continue
					}
					lines[x], lines[y] = lines[y], lines[x]
					t, s := g.cost()
					lines[x], lines[y] = lines[y], lines[x]
					if cheaper(t, s, bestTop, bestSpread) {
						bestLines, bestX, bestY, bestTop, bestSpread = lines, x, y, t, s
					}
				}
			}
		}
		if bestLines == nil {
			return
		}
		bestLines[bestX], bestLines[bestY] = bestLines[bestY], bestLines[bestX]
		top, spread = bestTop, bestSpread
	}
}

// lines is what improve swaps in: the row groups and the column groups,
// or the column groups alone when the rows are fixed.
func (g *gridLayout) lines() [][]int {
	if g.rowsFixed {
		return [][]int{g.col}
	}
	return [][]int{g.row, g.col}
}

// exhaustiveGroupings bounds the column groupings PlaceLSHSFusable tries
// one by one (8 block columns in 4 groups have 105); beyond it, it
// improves LPT's grouping by swaps.
const exhaustiveGroupings = 20000

// PlaceLSHSFusable is PlaceLSHSGrid on a pr×pc process grid restricted to
// the layouts a process can run as one block of a renumbered graph
// (graph500's fused runs; partition.SegmentOrder): block rows in
// contiguous groups, rows [i·br/pr, (i+1)·br/pr) on process row i, since a
// renumbering that keeps every column's vertices in order (as the 2D
// engine's largest-parent scans need) cannot move a block row past
// another; the block columns, whose vertices are strided, grouped freely.
// Among those it takes the layout of least cost (largest process work,
// then spread): every column grouping while there are at most
// exhaustiveGroupings, else LPT on the columns' work improved by swaps. It
// returns the placement and the process column of every block column.
func PlaceLSHSFusable(pb PlacementProblem, pr, pc int) (Placement, []int, error) {
	if err := pb.Check(); err != nil {
		return Placement{}, nil, err
	}
	br, bc := pb.BlockRows, pb.BlockCols
	if pr < 1 || pc < 1 || pb.Ranks != pr*pc || br%pr != 0 || bc%pc != 0 {
		return Placement{}, nil, fmt.Errorf("partition: a %dx%d block grid has no fusable layout on a %dx%d grid of %d ranks",
			br, bc, pr, pc, pb.Ranks)
	}
	work := pb.blockWork()
	colSum := make([]int64, bc)
	for k, w := range work {
		colSum[k%bc] += w
	}
	row := make([]int, br)
	for a := range row {
		row[a] = a / (br / pr)
	}
	size := bc / pc
	g := gridLayout{work: work, br: br, bc: bc, pr: pr, pc: pc, row: row, col: lptGroups(colSum, pc, size), rowsFixed: true, loads: make([]int64, pr*pc)}
	if groupings(bc, pc) <= exhaustiveGroupings {
		g.tryAll(g.col, size)
	} else {
		g.improve()
	}
	owner := make([]int, len(pb.Blocks))
	for k := range owner {
		owner[k] = g.row[k/bc]*pc + g.col[k%bc]
	}
	pl, err := Simulate(pb, owner)
	return pl, slices.Clone(g.col), err
}

// groupings is the number of ways to cut b lines into q unlabelled groups
// of b/q: the smallest line left picks its b/q−1 partners among the
// others, group after group.
func groupings(b, q int) float64 {
	size, count := b/q, 1.0
	for left := b; left > 0; left -= size {
		for k := range size - 1 { // C(left−1, size−1)
			count = count * float64(left-1-k) / float64(k+1)
		}
	}
	return count
}

// tryAll sets lines (g.row or g.col) to the least-cost grouping into
// groups of size, trying each once: groups are numbered in the order of
// their smallest line, so no grouping is tried under two numberings.
func (g *gridLayout) tryAll(lines []int, size int) {
	best := slices.Clone(lines)
	bestTop, bestSpread := g.cost()
	count := make([]int, len(lines)/size) // lines per group
	var assign func(line, opened int)
	assign = func(line, opened int) {
		if line == len(lines) {
			if t, s := g.cost(); cheaper(t, s, bestTop, bestSpread) {
				copy(best, lines)
				bestTop, bestSpread = t, s
			}
			return
		}
		for grp := range min(opened+1, len(lines)/size) {
			if count[grp] == size {
				continue
			}
			lines[line] = grp
			count[grp]++
			assign(line+1, max(opened, grp+1))
			count[grp]--
		}
	}
	assign(0, 0)
	copy(lines, best)
}
