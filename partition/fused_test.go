package partition

import "testing"

// TestFusedLayout: a 4x4 block grid fuses onto 2x2 processes; block
// column c goes to process column col[c], the layout names the columns of
// each process column, and the renumbering moves vertex piece (a, c) of
// the block grid into piece (a/2, col[c]) of the process grid. A grid the
// block grid does not refine does not fuse.
func TestFusedLayout(t *testing.T) {
	blocks, err := NewGrid(1<<10, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	procs, ok := FusableGrid(blocks, 4)
	if !ok || procs.R != 2 || procs.C != 2 {
		t.Fatalf("FusableGrid(4x4, 4) = %v, %v", procs, ok)
	}
	if _, ok := FusableGrid(blocks, 3); ok {
		t.Fatal("4x4 blocks fuse onto 3 processes")
	}
	f, err := NewFusedLayout(procs, blocks, []int{0, 1, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.String(); got != "0+3 1+2" {
		t.Fatalf("layout %q, want \"0+3 1+2\"", got)
	}
	// Vertex piece k of the block grid (64 vertices each) lands in the
	// process grid's piece of its row group and its column's group.
	piece := blocks.Part.Block
	for k := range blocks.P() {
		a, c := k/blocks.C, k%blocks.C
		want := procs.Rank(a/2, []int{0, 1, 1, 0}[c])
		if got := procs.Part.Owner(f.Order.New(int64(k) * piece)); got != want {
			t.Errorf("piece %d in process piece %d, want %d", k, got, want)
		}
	}
}
