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
