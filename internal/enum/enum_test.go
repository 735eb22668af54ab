package enum

import "testing"

type colour int

var colourNames = []string{"red", "green", "blue"}

func TestNameAndParseRoundTrip(t *testing.T) {
	for i, n := range colourNames {
		if got := Name(colourNames, "colour", colour(i)); got != n {
			t.Errorf("Name(%d) = %q, want %q", i, got, n)
		}
		v, err := Parse[colour](colourNames, "colour", "red, green or blue", n)
		if err != nil || v != colour(i) {
			t.Errorf("Parse(%q) = %d, %v; want %d", n, v, err, i)
		}
	}
	for v, want := range map[colour]string{-1: "colour(-1)", 3: "colour(3)", 100: "colour(100)"} {
		if got := Name(colourNames, "colour", v); got != want {
			t.Errorf("Name(%d) = %q, want %q", int(v), got, want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "Red", "purple", "red "} {
		_, err := Parse[colour](colourNames, "colour", "red, green or blue", s)
		want := `unknown colour "` + s + `" (want red, green or blue)`
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%q): %v, want %q", s, err, want)
		}
	}
}

type frame uint8

// frameNames starts at 1, as the tables of enums whose zero is invalid.
var frameNames = []string{1: "data", 2: "abort"}

func TestSparseTable(t *testing.T) {
	for v, want := range map[frame]string{0: "frame(0)", 1: "data", 2: "abort", 3: "frame(3)", 255: "frame(255)"} {
		if got := Name(frameNames, "frame", v); got != want {
			t.Errorf("Name(%d) = %q, want %q", v, got, want)
		}
	}
	if v, err := Parse[frame](frameNames, "frame", "data or abort", "abort"); err != nil || v != 2 {
		t.Errorf("Parse(abort) = %d, %v", v, err)
	}
	if _, err := Parse[frame](frameNames, "frame", "data or abort", ""); err == nil {
		t.Error("the empty name of value 0 parsed")
	}
}
