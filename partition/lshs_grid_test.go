package partition

import (
	"strings"
	"testing"
)

// kron18Scanned is the adjacency entries each block of an 8x8 block grid
// read in 16 searches of the unpermuted Kronecker graph of scale 18
// (row-major; a 2D BFS on 64 ranks, 16 roots, validation off; rank_loads'
// edges_scanned of its run JSON).
var kron18Scanned = []int64{
	977135, 634600, 639627, 408840, 639441, 416609, 410116, 186958, 642543, 406005, 406319, 230429, 408540, 233026, 232006, 98349,
	641471, 406671, 410728, 230139, 412780, 234994, 229932, 99488, 396384, 231562, 233561, 115871, 234282, 115170, 113928, 45035,
	635374, 402979, 406012, 230457, 410158, 230463, 231339, 98094, 394967, 231542, 233607, 116370, 234877, 116400, 115322, 45392,
	393904, 234935, 232030, 117131, 231615, 116210, 116866, 43868, 228302, 118863, 119365, 53238, 118969, 51481, 52618, 18906,
}

// kron18Problem is the placement of those blocks on 16 ranks, each block's
// work its entries read plus a fixed 209,000 (graph500's blockWordCost: 2
// per word of its 512 + 512 bitmap words per level, 6.4 levels, 16
// searches).
func kron18Problem(t *testing.T) PlacementProblem {
	blocks := make([]PlacementBlock, len(kron18Scanned))
	for k, s := range kron18Scanned {
		blocks[k] = PlacementBlock{Edges: s, Memory: s, Work: s + 209000}
	}
	pb, err := GridProblem(1<<18, 8, 8, 16, blocks)
	if err != nil {
		t.Fatal(err)
	}
	return pb
}

// TestPlaceLSHSGrid: on the scale-18 blocks, the grid-aligned LSHS keeps
// every block row on one process row and every block column on one process
// column (3 row and 3 column peers per process on a 4x4 grid), gives every
// process 4 blocks, and balances work within 1.2 where round-robin reaches
// 1.8.
func TestPlaceLSHSGrid(t *testing.T) {
	pb := kron18Problem(t)
	pl, err := PlaceLSHSGrid(pb, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	rowOf, colOf := make([]int, 8), make([]int, 8)
	for k := range rowOf {
		rowOf[k], colOf[k] = -1, -1
	}
	for k, r := range pl.Owner {
		a, b := k/8, k%8
		if rowOf[a] >= 0 && rowOf[a] != r/4 || colOf[b] >= 0 && colOf[b] != r%4 {
			t.Fatalf("block (%d, %d) on rank %d: its row or column spans process rows or columns (%v)", a, b, r, pl.Owner)
		}
		rowOf[a], colOf[b] = r/4, r%4
	}
	for r, l := range pl.Loads {
		if l.Blocks != 4 {
			t.Fatalf("rank %d holds %d blocks", r, l.Blocks)
		}
	}
	rr, err := PlaceRoundRobin(pb)
	if err != nil {
		t.Fatal(err)
	}
	got, base := pl.Imbalance().Work, rr.Imbalance().Work
	if got > 1.2 || base < 1.7 {
		t.Fatalf("work imbalance: grid LSHS %.3f, round-robin %.3f", got, base)
	}
	again, err := PlaceLSHSGrid(pb, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	for k := range again.Owner {
		if again.Owner[k] != pl.Owner[k] {
			t.Fatal("the placement is not deterministic")
		}
	}
}

// TestPlaceLSHSGridRefuses: a block grid that does not refine the process
// grid, or a process grid of another size, is an error.
func TestPlaceLSHSGridRefuses(t *testing.T) {
	pb := kron18Problem(t)
	for _, g := range [][2]int{{3, 5}, {2, 4}, {16, 1}, {0, 16}} {
		if _, err := PlaceLSHSGrid(pb, g[0], g[1]); err == nil || !strings.Contains(err.Error(), "refine") {
			t.Errorf("%dx%d: %v", g[0], g[1], err)
		}
	}
}

// TestPlaceLSHSFusable: on the scale-18 blocks, the fusable layout keeps
// block rows 2g and 2g+1 on process row g and groups the block columns in
// pairs, block (a, b) on process (a/2)·4 + col[b], 4 blocks per process; no
// swap of two block columns improves it, and its work imbalance lies
// between the free grid-aligned layout's and round-robin's.
func TestPlaceLSHSFusable(t *testing.T) {
	pb := kron18Problem(t)
	pl, col, err := PlaceLSHSFusable(pb, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	count := make([]int, 4)
	for _, g := range col {
		count[g]++
	}
	for g, n := range count {
		if n != 2 {
			t.Fatalf("process column %d has %d block columns (%v)", g, n, col)
		}
	}
	for k, r := range pl.Owner {
		if want := k/8/2*4 + col[k%8]; r != want {
			t.Fatalf("block %d on rank %d, want %d", k, r, want)
		}
	}
	for r, l := range pl.Loads {
		if l.Blocks != 4 {
			t.Fatalf("rank %d holds %d blocks", r, l.Blocks)
		}
	}
	work := make([]int64, len(pb.Blocks))
	for k, b := range pb.Blocks {
		work[k] = b.Work
	}
	g := gridLayout{work: work, br: 8, bc: 8, pr: 4, pc: 4, row: []int{0, 0, 1, 1, 2, 2, 3, 3}, col: col, loads: make([]int64, 16)}
	top, _ := g.cost()
	for x := range 8 {
		for y := range 8 {
			if col[x] == col[y] {
				continue
			}
			col[x], col[y] = col[y], col[x]
			if t2, _ := g.cost(); t2 < top {
				t.Fatalf("swapping block columns %d and %d lowers the largest load %d to %d", x, y, top, t2)
			}
			col[x], col[y] = col[y], col[x]
		}
	}
	free, err := PlaceLSHSGrid(pb, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := PlaceRoundRobin(pb)
	if err != nil {
		t.Fatal(err)
	}
	im, lo, hi := pl.Imbalance().Work, free.Imbalance().Work, rr.Imbalance().Work
	if im < lo || im > hi {
		t.Fatalf("work imbalance %.3f outside [%.3f, %.3f]", im, lo, hi)
	}
	if _, _, err := PlaceLSHSFusable(pb, 2, 2); err == nil {
		t.Fatal("a 2x2 process grid of 16 ranks accepted")
	}
	if _, _, err := PlaceLSHSFusable(pb, 16, 1); err == nil {
		t.Fatal("8 block rows on 16 process rows accepted")
	}
	// A rectangular process grid: 8x8 blocks on 8x2 ranks (one block row
	// per process row, 4 block columns per process column).
	pb8, err := GridProblem(1<<18, 8, 8, 16, pb.Blocks)
	if err != nil {
		t.Fatal(err)
	}
	pl8, col8, err := PlaceLSHSFusable(pb8, 8, 2)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range pl8.Owner {
		if want := k/8*2 + col8[k%8]; r != want || col8[k%8] > 1 {
			t.Fatalf("8x2: block %d on rank %d, want %d (%v)", k, r, want, col8)
		}
	}
	for _, c := range []struct {
		b, q int
		want float64
	}{{8, 4, 105}, {4, 2, 3}, {16, 4, 2627625}, {6, 3, 15}, {5, 5, 1}} {
		if got := groupings(c.b, c.q); got != c.want {
			t.Fatalf("groupings(%d, %d) = %v, want %v", c.b, c.q, got, c.want)
		}
	}
}
