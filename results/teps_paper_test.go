// Paper tests of the run record's performance figures against Huiwei Lv,
// Guangming Tan, Mingyu Chen and Ninghui Sun, "Compression and Sieve:
// Reducing Communication in Parallel Breadth First Search on Distributed
// Memory Systems", arXiv preprint, 2012 (TEPS, §VII-A; the time breakdown,
// Fig. 7), and the "Graph500 Benchmark Specification", version 3.0 (the
// harmonic mean over the searches).

package results

import (
	"math"
	"strings"
	"testing"
)

// TestTEPSIsInputEdgesOverTime_LvSecVIIA: a search that traverses a
// component of m input edge tuples in t seconds runs at m/t TEPS.
func TestTEPSIsInputEdgesOverTime_LvSecVIIA(t *testing.T) {
	s := Search{NEdge: 1 << 20, Time: 0.25}
	if got := s.TEPS(); got != 4<<20 {
		t.Fatalf("TEPS of 2^20 edges in 0.25 s = %g, want %d", got, 4<<20)
	}
}

// TestFigureOfMeritIsTheHarmonicMean_Graph500Spec: over several searches
// the figure of merit is the harmonic mean of their TEPS, n/Σ(t_i/m_i),
// not the arithmetic mean, so a slow search weighs as its time does.
func TestFigureOfMeritIsTheHarmonicMean_Graph500Spec(t *testing.T) {
	searches := []Search{{NEdge: 1000, Time: 1}, {NEdge: 1000, Time: 4}}
	st := ComputeTEPS(searches)
	if want := 2 / (1.0/1000 + 4.0/1000); math.Abs(st.HarmonicMean-want) > 1e-9 {
		t.Fatalf("harmonic mean %g, want %g", st.HarmonicMean, want)
	}
	if arithmetic := (1000.0 + 250) / 2; st.HarmonicMean >= arithmetic {
		t.Fatalf("harmonic mean %g is not below the arithmetic %g", st.HarmonicMean, arithmetic)
	}
	if st.Min != 250 || st.Max != 1000 {
		t.Fatalf("min %g max %g, want 250 and 1000", st.Min, st.Max)
	}
}

// TestBreakdownHasTheFourTimesOfFig7_Lv: a level's time splits into the
// four parts of Lv et al. Fig. 7 — traversing, reducing, communication,
// compression & sieve — and the breakdown table sums each over the
// searches.
func TestBreakdownHasTheFourTimesOfFig7_Lv(t *testing.T) {
	l := Level{Level: 1, Direction: "bottom-up", Traverse: 0.5, Reduce: 0.125, Communicate: 0.25, Compress: 0.0625}
	r := &Graph500Run{Searches: []Search{{Levels: []Level{l}}, {Levels: []Level{l}}}}
	var b strings.Builder
	if err := r.WriteBreakdown(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var header, level1 string
	for _, line := range lines {
		if strings.Contains(line, "traversing s") {
			header = line
		}
		if f := strings.Fields(line); len(f) > 0 && f[0] == "1" {
			level1 = line
		}
	}
	for _, col := range []string{"traversing s", "reducing s", "communication s", "compression&sieve s"} {
		if !strings.Contains(header, col) {
			t.Errorf("no %q column in %q", col, header)
		}
	}
	for _, sum := range []string{"1.0000", "0.2500", "0.5000", "0.1250"} {
		if !strings.Contains(level1, " "+sum) {
			t.Errorf("level 1 row %q lacks the sum %s", level1, sum)
		}
	}
}
