package partition

import (
	"slices"
	"testing"
)

// TestSegmentOrder: New and Original are inverse, move whole segments,
// keep a group's segments ascending, and Runs cuts a range where the
// original ids jump.
func TestSegmentOrder(t *testing.T) {
	o, err := NewSegmentOrder(64, [][]int{{7, 0}, {1, 3}, {5, 2}, {4, 6}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 7, 1, 3, 2, 5, 4, 6}; !slices.Equal(o.From, want) {
		t.Fatalf("From = %v, want %v", o.From, want)
	}
	for v := range int64(64) {
		n := o.New(v)
		if o.Original(n) != v || n/8 != int64(o.To[v/8]) || n%8 != v%8 {
			t.Fatalf("vertex %d: new %d, back %d", v, n, o.Original(n))
		}
	}
	type run struct{ lo, hi, orig int64 }
	var got []run
	o.Runs(4, 44, func(lo, hi, orig int64) { got = append(got, run{lo, hi, orig}) })
	// New segments 0..5 are originals 0 7 1 3 2 5: 1 follows 7? no; 3 after 1? no.
	want := []run{{4, 8, 4}, {8, 16, 56}, {16, 24, 8}, {24, 32, 24}, {32, 40, 16}, {40, 44, 40}}
	if len(got) != len(want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("runs %v, want %v", got, want)
		}
	}
	id, err := NewSegmentOrder(64, [][]int{{0, 1}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	id.Runs(3, 60, func(lo, hi, orig int64) { got = append(got, run{lo, hi, orig}) })
	if len(got) != 1 || got[0] != (run{3, 60, 3}) {
		t.Fatalf("identity order: runs %v, want one", got)
	}
	for _, bad := range [][][]int{{{0, 1}, {1, 2}}, {{0, 5}}, {{0, 1, 2}}, {}} {
		if _, err := NewSegmentOrder(64, bad); err == nil {
			t.Fatalf("groups %v accepted", bad)
		}
	}
}
