package report

import (
	"fmt"
	"strings"

	"github.com/graphrun/graphrun/results"
)

// Benchmark tables that `graphrun bench` prints as Markdown, for a person
// to paste into a document.

// BFSMatrixRow is one run of a BFS benchmark matrix.
type BFSMatrixRow struct {
	Label string               // the algorithm's name in the table
	File  string               // the run's JSON, relative to the output folder
	Run   *results.Graph500Run // the run itself
}

// BFSMatrixTable renders a matrix of BFS runs as a Markdown table: bytes
// sent, the ratio to the row labelled baseLabel (if present), harmonic-mean
// TEPS and the four times of Lv et al. Fig. 7 per search.
func BFSMatrixTable(rows []BFSMatrixRow, baseLabel string) string {
	var base int64
	for _, r := range rows {
		if r.Label == baseLabel {
			base = r.Run.CommBytes
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| algorithm | bytes sent (all ranks, %s searches) | × %s | harmonic-mean TEPS | traversing s | reducing s | communication s | compression & sieve s |\n",
		searchCount(rows), baseLabel)
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		ratio := "—"
		if base > 0 {
			ratio = fmt.Sprintf("%.3f", float64(r.Run.CommBytes)/float64(base))
		}
		t, _ := meanBreakdown(r.Run)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.4f | %.4f | %.4f | %.4f |\n", r.Label, megabytes(r.Run.CommBytes), ratio,
			results.FormatCount(results.ComputeTEPS(r.Run.Searches).HarmonicMean), t[0], t[1], t[2], t[3])
	}
	return b.String()
}

// searchCount is the number of searches of the rows' runs ("8"), or a range
// when they differ.
func searchCount(rows []BFSMatrixRow) string {
	lo, hi := -1, -1
	for _, r := range rows {
		n := r.Run.NBFS()
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

func megabytes(b int64) string { return fmt.Sprintf("%.2f MB", float64(b)/1e6) }
