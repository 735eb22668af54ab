package partition

import (
	"slices"
	"testing"
)

// TestPlaceGridBlocks: every rank holds a block, block 0 is on rank 0, and
// round-robin and both LSHS layouts place every block of the grid.
func TestPlaceGridBlocks(t *testing.T) {
	for _, tc := range []struct {
		p, r, c int
		lshs    bool
	}{{4, 4, 4, true}, {4, 4, 4, false}, {3, 3, 2, true}, {2, 1, 3, true}} {
		grid, err := NewGrid(1<<10, tc.r, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int64, grid.P())
		for k := range counts {
			counts[k] = int64(1 + (k*7)%5) // uneven, block 0 not the largest
		}
		owner, err := PlaceGridBlocks(tc.p, tc.lshs, grid, counts, nil)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		held := make([]int, tc.p)
		for _, r := range owner {
			held[r]++
		}
		if len(owner) != grid.P() || owner[0] != 0 || slices.Contains(held, 0) {
			t.Errorf("%+v: owner %v", tc, owner)
		}
	}
}

// TestFillEmptyRanks: a rank left empty takes the smallest block of the
// fullest rank.
func TestFillEmptyRanks(t *testing.T) {
	owner := []int{0, 0, 0, 1}
	fillEmptyRanks(owner, []int64{5, 1, 3, 2}, 3)
	if !slices.Equal(owner, []int{0, 2, 0, 1}) {
		t.Fatalf("owner %v, want [0 2 0 1]", owner)
	}
}
