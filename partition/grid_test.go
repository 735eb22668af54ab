package partition

import (
	"fmt"
	"strings"
	"testing"
)

// TestGridIDs: every vertex has one row and one column position, the local
// ids round-trip, follow the global order, and the owner of a vertex sits in
// the vertex's processor row and column.
func TestGridIDs(t *testing.T) {
	for _, n := range []int64{1, 63, 64, 65, 1000, 5000} {
		for _, rc := range [][2]int{{1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 2}, {2, 3}, {4, 4}, {7, 1}, {1, 7}, {5, 3}} {
			g, err := NewGrid(n, rc[0], rc[1])
			if err != nil {
				t.Fatal(err)
			}
			if g.P() != rc[0]*rc[1] || g.String() != fmt.Sprintf("%dx%d", rc[0], rc[1]) {
				t.Fatalf("grid %v: P %d String %q", rc, g.P(), g)
			}
			var rows int64
			for i := range g.R {
				rows += int64(g.RowCount(i))
				if g.RowCount(i) > int(g.RowSpan()) {
					t.Fatalf("row %d holds %d > RowSpan %d", i, g.RowCount(i), g.RowSpan())
				}
			}
			if rows != n {
				t.Fatalf("n=%d grid %s: rows hold %d vertices", n, g, rows)
			}
			prevCol := map[int]uint32{}
			for v := int64(0); v < n; v++ {
				i, j := g.RowOf(v), g.ColOf(v)
				oi, oj := g.Coords(g.Part.Owner(v))
				if i != oi || j != oj || g.Rank(oi, oj) != g.Part.Owner(v) {
					t.Fatalf("n=%d grid %s: vertex %d in row %d col %d, owner at (%d,%d)", n, g, v, i, j, oi, oj)
				}
				if g.RowGlobal(i, g.RowLocal(v)) != v || g.ColGlobal(j, g.ColLocal(v)) != v {
					t.Fatalf("n=%d grid %s: vertex %d does not round-trip (row %d, col %d)", n, g, v, g.RowLocal(v), g.ColLocal(v))
				}
				if int64(g.RowLocal(v)) >= int64(g.RowCount(i)) || int64(g.ColLocal(v)) >= g.ColSpan() {
					t.Fatalf("n=%d grid %s: vertex %d local ids out of range", n, g, v)
				}
				// Column ids grow with the global id inside a column.
				if prev, ok := prevCol[j]; ok && g.ColLocal(v) <= prev {
					t.Fatalf("n=%d grid %s: column ids not increasing at vertex %d", n, g, v)
				}
				prevCol[j] = g.ColLocal(v)
			}
			for k := range g.P() {
				i, j := g.Coords(k)
				if g.RowMembers(i)[j] != k || g.ColMembers(j)[i] != k {
					t.Fatalf("grid %s: rank %d not at its place in its row and column", g, k)
				}
			}
		}
	}
}

func TestNewGridRejects(t *testing.T) {
	if _, err := NewGrid(100, 0, 2); err == nil {
		t.Error("0 rows accepted")
	}
	if _, err := NewGrid(0, 1, 1); err == nil {
		t.Error("0 vertices accepted")
	}
	// 2^40 vertices on 256 ranks: 2^32 per rank, but a 256x1 column spans
	// 256·2^32 column ids, beyond uint32.
	if _, err := NewGrid(1<<40, 256, 1); err == nil {
		t.Error("local ids beyond uint32 accepted")
	}
	if _, err := NewGrid(1<<40, 512, 512); err != nil {
		t.Error(err)
	}
}

func TestAutoGrid(t *testing.T) {
	for _, c := range []struct {
		p, r, c int
		note    string
	}{
		{1, 1, 1, ""}, {2, 2, 1, "prime"}, {4, 2, 2, ""}, {6, 3, 2, ""}, {7, 7, 1, "7 is prime"}, {8, 4, 2, ""},
		{12, 4, 3, ""}, {16, 4, 4, ""}, {18, 6, 3, ""}, {22, 11, 2, "11x2"}, {32, 8, 4, ""}, {64, 8, 8, ""},
		{96, 12, 8, ""}, {97, 97, 1, "prime"}, {128, 16, 8, ""},
	} {
		r, cc, note := AutoGrid(c.p)
		if r != c.r || cc != c.c || (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
			t.Errorf("AutoGrid(%d) = %dx%d %q, want %dx%d with a note containing %q", c.p, r, cc, note, c.r, c.c, c.note)
		}
	}
	if _, _, note := AutoGrid(22); !strings.Contains(note, "such as") {
		t.Errorf("no suggestion in %q", note)
	}
}

func TestParseGrid(t *testing.T) {
	for s, want := range map[string][2]int{"4x4": {4, 4}, "8X2": {8, 2}, " 3×5 ": {3, 5}, "2*7": {2, 7}} {
		r, c, err := ParseGrid(s)
		if err != nil || r != want[0] || c != want[1] {
			t.Errorf("ParseGrid(%q) = %d, %d, %v", s, r, c, err)
		}
	}
	for _, s := range []string{"", "4", "4x", "x4", "0x4", "-1x4", "axb", "4x4x4"} {
		if _, _, err := ParseGrid(s); err == nil {
			t.Errorf("ParseGrid(%q) accepted", s)
		}
	}
}
