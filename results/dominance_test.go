package results

import (
	"math"
	"strings"
	"testing"
)

// TestHarmonicDominance: a key in a one-edge component among searches of
// ~10^7 edges dominates the harmonic mean, and is named with the mean
// without it; ordinary spreads, and a single search, are not reported.
func TestHarmonicDominance(t *testing.T) {
	var searches []Search
	for i := range 8 {
		searches = append(searches, Search{Root: int64(100 + i), NEdge: 67_000_000, Time: 0.07 + 0.001*float64(i)})
	}
	if _, ok := HarmonicDominance(searches); ok {
		t.Fatal("an even run reported as dominated")
	}
	searches[5] = Search{Root: 4242, NEdge: 1, Time: 0.00104}
	d, ok := HarmonicDominance(searches)
	if !ok {
		t.Fatal("a one-edge search not reported")
	}
	if d.Search != 5 || d.Root != 4242 || d.NEdge != 1 || d.MedianNEdge != 67_000_000 {
		t.Fatalf("dominance %+v", d)
	}
	if hm := ComputeTEPS(searches).HarmonicMean; math.Abs(d.HarmonicMean-hm) > 1e-9*hm {
		t.Fatalf("harmonic mean %v, ComputeTEPS says %v", d.HarmonicMean, hm)
	}
	others := append(append([]Search{}, searches[:5]...), searches[6:]...)
	if w := ComputeTEPS(others).HarmonicMean; math.Abs(d.Without-w) > 1e-9*w {
		t.Fatalf("without %v, want %v", d.Without, w)
	}
	if d.Share < 0.99 {
		t.Fatalf("share %v", d.Share)
	}
	msg := d.String()
	for _, want := range []string{"search 5 (root 4242)", "1 edge against a median of 67 M", "100 %", "harmonic mean TEPS is 7.69 k", "without it"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	// A small component that does not dominate (fast enough) is not reported.
	searches[5].Time = 1e-9
	if _, ok := HarmonicDominance(searches); ok {
		t.Error("a non-dominating small search reported")
	}
	if _, ok := HarmonicDominance(searches[:1]); ok {
		t.Error("a single search reported")
	}
}
