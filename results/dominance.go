package results

import (
	"fmt"
	"io"
	"slices"
)

// Harmonic mean dominance: the Graph500 figure of merit is the harmonic
// mean of the per-search TEPS, 1/mean(time_i/nedge_i) (Lv et al. §VII-A),
// so one search whose key lies in a small component (at scale 22, seed 1,
// a key whose component holds one edge) contributes time/1 to the mean
// while the others contribute time/10^7, and the harmonic mean falls by
// orders of magnitude (from ~900 M to 0.96 M TEPS). The statistics stay as
// Graph500 defines them; HarmonicDominance finds such a search so that the
// run can say why its figure is what it is.

// Dominance describes the search that dominates a run's harmonic mean TEPS.
type Dominance struct {
	Search int     // index of the search in the run
	Root   int64   // its key
	NEdge  int64   // input edge tuples in its component
	TEPS   float64 // its own TEPS
	// Share is its part of Σ time_i/nedge_i, the harmonic mean's
	// denominator: above 1/2 it alone sets the figure.
	Share float64
	// MedianNEdge is the median nedge of the run's searches.
	MedianNEdge float64
	// HarmonicMean is the run's harmonic mean TEPS; Without that of the
	// other searches.
	HarmonicMean, Without float64
}

// DominantShare and TinyComponent are the thresholds of HarmonicDominance:
// a search dominates when it makes up more than DominantShare of the
// harmonic mean's denominator and its component is smaller than the median
// component by more than TinyComponent times.
const (
	DominantShare = 0.5
	TinyComponent = 100
)

// HarmonicDominance reports the search that dominates the harmonic mean
// TEPS of searches because its nedge is tiny against the others' (see
// DominantShare and TinyComponent), if there is one. Searches with zero
// edges or time are left to the statistics, which show them as infinite
// or NaN.
func HarmonicDominance(searches []Search) (Dominance, bool) {
	if len(searches) < 2 {
		return Dominance{}, false
	}
	var total float64
	worst, worstS := -1, 0.0
	nedges := make([]float64, len(searches))
	for i, s := range searches {
		if s.NEdge <= 0 || !(s.Time > 0) {
			return Dominance{}, false
		}
		si := s.Time / float64(s.NEdge)
		total += si
		if si > worstS {
			worst, worstS = i, si
		}
		nedges[i] = float64(s.NEdge)
	}
	slices.Sort(nedges)
	n := len(nedges)
	median := (nedges[(n-1)/2] + nedges[n/2]) / 2
	s := searches[worst]
	d := Dominance{
		Search: worst, Root: s.Root, NEdge: s.NEdge, TEPS: s.TEPS(),
		Share: worstS / total, MedianNEdge: median,
		HarmonicMean: float64(n) / total, Without: float64(n-1) / (total - worstS),
	}
	if d.Share <= DominantShare || float64(s.NEdge)*TinyComponent >= median {
		return Dominance{}, false
	}
	return d, true
}

// String is the explanation graphrun prints on stderr.
func (d Dominance) String() string {
	edges := "edges"
	if d.NEdge == 1 {
		edges = "edge"
	}
	return fmt.Sprintf("search %d (root %d) traversed a component of %d %s against a median of %s: its %s TEPS make up %.0f %% of the harmonic mean's denominator, so the harmonic mean TEPS is %s (%s without it; Graph500 counts every search)",
		d.Search, d.Root, d.NEdge, edges, FormatCount(d.MedianNEdge), FormatCount(d.TEPS), 100*d.Share, FormatCount(d.HarmonicMean), FormatCount(d.Without))
}

// NoteDominance writes the explanation of a dominated harmonic mean, as a
// "graphrun: note:" line on w, if one search dominates (HarmonicDominance).
func NoteDominance(w io.Writer, searches []Search) {
	if d, ok := HarmonicDominance(searches); ok {
		fmt.Fprintf(w, "graphrun: note: %s\n", d)
	}
}
