package partition

// The placement of an over-decomposed 2D run's blocks (NumS §4–5: more
// blocks than nodes, placed by the load simulation of Algorithm 1): the
// problem of a block grid's blocks with their entries, memory and work,
// and the choice among LSHS grid-aligned, LSHS free and round-robin, with
// every rank given at least one block and block 0 kept on rank 0.

import "slices"

// GridBlocksProblem is the placement of grid's blocks on p ranks, with
// their entries (counts, row-major) and, if measured (not nil), work; each
// block's memory is BlockMemory of its entries over its rows and columns.
func GridBlocksProblem(p int, grid Grid, counts, work []int64) (PlacementProblem, error) {
	blocks := make([]PlacementBlock, grid.P())
	rows, cols := grid.RowSpan(), grid.ColSpan()
	for k, e := range counts {
		blocks[k] = PlacementBlock{Edges: e, Memory: BlockMemory(e, rows, cols, min(rows, e), min(cols, e))}
		if work != nil {
			blocks[k].Work = work[k]
		}
	}
	return GridProblem(grid.Part.N, grid.R, grid.C, p, blocks)
}

// PlaceGridBlocks returns the rank of every block of grid (row-major) on p
// ranks, given the blocks' entries (counts) and, if measured, work:
// without lshs round-robin; with it LSHS, grid-aligned (PlaceLSHSGrid)
// when the block grid refines the most square process grid, else free
// (PlaceLSHS); without work LSHS balances the blocks' memory, as NumS's
// Algorithm 1 does. A rank left empty then takes the smallest block of the
// fullest rank, and ranks are renamed so that block 0 is on rank 0.
func PlaceGridBlocks(p int, lshs bool, grid Grid, counts, work []int64) ([]int, error) {
	pb, err := GridBlocksProblem(p, grid, counts, work)
	if err != nil {
		return nil, err
	}
	var pl Placement
	pr, pc, _ := AutoGrid(p)
	switch {
	case lshs && grid.R%pr == 0 && grid.C%pc == 0:
		// Every block row on one process row, every block column on one
		// process column: each process's row and column exchanges reach
		// its process row and column only (lshs_grid.go).
		pl, err = PlaceLSHSGrid(pb, pr, pc)
	case lshs:
		pl, err = PlaceLSHS(pb, OrderLargestFirst, 0)
	default:
		pl, err = PlaceRoundRobin(pb)
	}
	if err != nil {
		return nil, err
	}
	owner := pl.Owner
	fillEmptyRanks(owner, counts, p)
	if z := owner[0]; z != 0 {
		for k, o := range owner {
			switch o {
			case z:
				owner[k] = 0
			case 0:
				owner[k] = z
			}
		}
	}
	return owner, nil
}

// fillEmptyRanks gives every rank of p that owner leaves empty the
// smallest block (by counts) of the fullest rank.
func fillEmptyRanks(owner []int, counts []int64, p int) {
	held := make([]int, p)
	for _, r := range owner {
		held[r]++
	}
	for r := range p {
		for held[r] == 0 {
			full := slices.Index(held, slices.Max(held))
			small := -1
			for k, o := range owner {
				if o == full && (small < 0 || counts[k] < counts[small]) {
					small = k
				}
			}
			owner[small] = r
			held[full]--
			held[r]++
		}
	}
}
