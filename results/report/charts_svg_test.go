package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"github.com/graphrun/graphrun/results"
	"io"
	"strings"
	"testing"
)

// testPageRankRun is a PageRank run with per-iteration figures.
func testPageRankRun() *results.PageRankRun {
	r := &results.PageRankRun{NumRanks: 1, Tol: 1e-8, Iterations: 12}
	l1 := 0.5
	for i := range 12 {
		r.L1Changes = append(r.L1Changes, l1)
		r.IterationTimes = append(r.IterationTimes, 0.002+0.0001*float64(i%3))
		l1 /= 6
	}
	return r
}

// svgTexts returns the text of every <text> element of an SVG document.
func svgTexts(t *testing.T, svg []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var texts []string
	in := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return texts
		}
		if err != nil {
			t.Fatalf("invalid SVG: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			in = tok.Name.Local == "text"
			if in {
				texts = append(texts, "")
			}
		case xml.CharData:
			if in {
				texts[len(texts)-1] += string(tok)
			}
		case xml.EndElement:
			in = false
		}
	}
}

// chartTexts renders c as SVG and returns its texts.
func chartTexts(t *testing.T) func(Chart, error) []string {
	return func(c Chart, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		return svgTexts(t, svg)
	}
}

func count(texts []string, s string) int {
	n := 0
	for _, t := range texts {
		if t == s {
			n++
		}
	}
	return n
}

// checkTicks fails on tick labels in exponent notation (1e+06 beside
// 100000).
func checkTicks(t *testing.T, name string, texts []string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, "e+") {
			t.Errorf("%s: label %q in exponent notation", name, s)
		}
	}
}

// TestComparisonChartsLabelRunsByWhatDiffers: runs differing in scale and
// ranks are named by scale and ranks in every comparison chart's legend,
// each drawn once; a run that sent no bytes (one rank) is named as not
// drawn rather than dropped.
func TestComparisonChartsLabelRunsByWhatDiffers(t *testing.T) {
	a, b, c := chartRun("packed", "auto", 1), chartRun("packed", "auto", 1), chartRun("packed", "auto", 1)
	b.Scale, b.NumRanks = 14, 1
	for i := range b.Searches {
		for l := range b.Searches[i].Levels {
			b.Searches[i].Levels[l].Bytes = 0
		}
	}
	c.Scale = 16
	labels := RunLabels([]*results.Graph500Run{a, b, c}, []string{"a.json", "b.json", "c.json"})
	want := []string{"scale 12, 4 ranks", "scale 14, 1 rank", "scale 16, 4 ranks"}
	for i := range want {
		if labels[i] != want[i] {
			t.Fatalf("labels %q, want %q", labels, want)
		}
	}
	runs := []LabeledRun{{labels[0], a}, {labels[1], b}, {labels[2], c}}

	texts := chartTexts(t)(FrontierChart(runs))
	for _, l := range labels {
		if count(texts, l) != 1 {
			t.Errorf("frontier chart: legend %q drawn %d times, want 1 (texts %q)", l, count(texts, l), texts)
		}
	}
	for _, s := range []string{"BFS frontier size per level (mean over searches)", "BFS level", "frontier (vertices, log scale)", "1 k"} {
		if count(texts, s) == 0 {
			t.Errorf("frontier chart lacks %q: %q", s, texts)
		}
	}
	checkTicks(t, "frontier", texts)
	// chartRun's searches end with an empty level, which a log axis
	// cannot show: the legend says so.
	if count(texts, "scale 12, 4 ranks: 0 at level 6, not drawn (log scale)") != 1 {
		t.Errorf("frontier chart does not name the level it cannot draw: %q", texts)
	}

	chart, err := BytesChart(runs)
	texts = chartTexts(t)(chart, err)
	if count(texts, labels[0]) != 1 || count(texts, labels[2]) != 1 || count(texts, labels[1]) != 0 {
		t.Errorf("bytes chart legend: %q", texts)
	}
	note := "scale 14, 1 rank: not drawn (no bytes sent: it ran on 1 rank)"
	if count(texts, note) != 1 || len(chart.Notes) != 1 || chart.Notes[0] != note {
		t.Errorf("bytes chart does not say what is missing: notes %q, texts %q", chart.Notes, texts)
	}
	if count(texts, "bytes sent, all ranks (B, log scale)") != 1 || count(texts, "10 kB") != 1 {
		t.Errorf("bytes chart axis: %q", texts)
	}
	checkTicks(t, "bytes", texts)

	for _, build := range []func([]LabeledRun) (Chart, error){BreakdownChart, RunsTEPSChart} {
		chart, err := build(runs)
		texts := chartTexts(t)(chart, err)
		for _, l := range labels { // one bar per run, named on the X axis
			if count(texts, l) != 1 {
				t.Errorf("%s: run %q named %d times: %q", chart.Name, l, count(texts, l), texts)
			}
		}
		if count(texts, "run") != 1 {
			t.Errorf("%s: no X axis label: %q", chart.Name, texts)
		}
		for _, s := range texts {
			if strings.Contains(s, "paper") || strings.Contains(s, "/") {
				t.Errorf("%s: internal words in %q", chart.Name, s)
			}
		}
		checkTicks(t, chart.Name, texts)
	}
}

// TestRunLabelsFallBackToFileNames: runs with the same parameters are named
// by their files; a single run by its scale, ranks and exchange.
func TestRunLabelsFallBackToFileNames(t *testing.T) {
	a, b := chartRun("sieve", "wah", 1), chartRun("sieve", "wah", 1)
	if got := RunLabels([]*results.Graph500Run{a, b}, []string{"x/first.json", "y/second.json"}); got[0] != "first.json" || got[1] != "second.json" {
		t.Fatalf("labels %q", got)
	}
	if got := RunLabels([]*results.Graph500Run{a, b}, []string{"same.json", "same.json"}); got[0] != "run 1: same.json" || got[1] != "run 2: same.json" {
		t.Fatalf("labels %q", got)
	}
	b.Exchange = "packed"
	if got := RunLabels([]*results.Graph500Run{a, b}, nil); got[0] != "exchange sieve" || got[1] != "exchange packed" {
		t.Fatalf("labels %q", got)
	}
	if got := RunLabels([]*results.Graph500Run{a}, nil); got[0] != "scale 12, 4 ranks, exchange sieve" {
		t.Fatalf("single label %q", got)
	}
}

// TestSingleRunChartsHaveLabelledAxes: a one-rank run's bytes chart has
// nothing to draw and says so, with its axes still labelled.
func TestSingleRunChartsHaveLabelledAxes(t *testing.T) {
	r := chartRun("allgather", "raw", 0)
	r.NumRanks = 1
	for i := range r.Searches {
		for l := range r.Searches[i].Levels {
			r.Searches[i].Levels[l].Bytes = 0
		}
	}
	runs := []LabeledRun{{RunLabels([]*results.Graph500Run{r}, nil)[0], r}}
	texts := chartTexts(t)(BytesChart(runs))
	for _, s := range []string{"BFS level", "bytes sent, all ranks (B, log scale)", "nothing to draw: no bytes sent"} {
		if count(texts, s) != 1 {
			t.Errorf("single-run bytes chart lacks %q: %q", s, texts)
		}
	}
	texts = chartTexts(t)(TEPSChart(r))
	for _, s := range []string{"search", "traversed edges per second (TEPS)", "TEPS of each of the 8 searches (scale 12, 1 rank)"} {
		if count(texts, s) != 1 {
			t.Errorf("TEPS chart lacks %q: %q", s, texts)
		}
	}
	checkTicks(t, "teps", texts)
}

// TestPageRankCharts: the convergence chart draws the L1 changes on decade
// ticks with the tolerance, the time chart the iterations in seconds.
func TestPageRankCharts(t *testing.T) {
	r := testPageRankRun()
	texts := chartTexts(t)(ConvergenceChart(r))
	for _, s := range []string{"PageRank convergence", "iteration", "L1 change of the rank vector (log scale)", "L1 change", "tolerance 1e-8", "1e-4", "12"} {
		if count(texts, s) == 0 {
			t.Errorf("convergence chart lacks %q: %q", s, texts)
		}
	}
	texts = chartTexts(t)(IterationTimeChart(r))
	for _, s := range []string{"PageRank time per iteration (1 rank)", "iteration", "wall time, slowest rank (s)", "1 ms"} {
		if count(texts, s) == 0 {
			t.Errorf("iteration time chart lacks %q: %q", s, texts)
		}
	}
}

// TestChartLegendBelowThePlot: the legend adds a strip below the plot
// (the SVG is taller than the plot).
func TestChartLegendBelowThePlot(t *testing.T) {
	runs := []LabeledRun{{"one", chartRun("packed", "auto", 1)}, {"two", chartRun("packed", "auto", 2)}}
	c, err := BytesChart(runs)
	if err != nil {
		t.Fatal(err)
	}
	if _, h := c.size(); h <= ChartHeight {
		t.Fatalf("chart height %v: no legend strip", h)
	}
}

// TestPageRankComparison: PageRank runs differing in ranks are named by
// ranks and allreduce, each drawn once in the convergence and iteration
// time charts, with one tolerance line for their common tolerance; a run
// without per-iteration figures is named as not drawn.
func TestPageRankComparison(t *testing.T) {
	a, b, old := testPageRankRun(), testPageRankRun(), testPageRankRun()
	a.Input, b.Input, old.Input = "g.el", "g.el", "g.el"
	a.Allreduce, b.Allreduce, old.Allreduce = "kylix 1", "kylix 2x2", "kylix 2x2"
	b.NumRanks, old.NumRanks = 4, 16
	old.L1Changes, old.IterationTimes = nil, nil
	labels := PageRankLabels([]*results.PageRankRun{a, b, old}, nil)
	if labels[0] != "1 rank, no allreduce" || labels[1] != "4 ranks, kylix 2x2 allreduce" || labels[2] != "16 ranks, kylix 2x2 allreduce" {
		t.Fatalf("labels %q", labels)
	}
	runs := []LabeledPageRank{{labels[0], a}, {labels[1], b}, {labels[2], old}}
	for _, build := range []func([]LabeledPageRank) (Chart, error){PageRankConvergenceChart, PageRankIterationTimeChart} {
		c, err := build(runs)
		texts := chartTexts(t)(c, err)
		if count(texts, labels[0]) != 1 || count(texts, labels[1]) != 1 || count(texts, labels[2]) != 0 {
			t.Errorf("%s: legend %q", c.Name, texts)
		}
		if len(c.Notes) != 1 || !strings.HasPrefix(c.Notes[0], labels[2]+": no per-iteration") {
			t.Errorf("%s: notes %q", c.Name, c.Notes)
		}
		if c.Name == "pagerank-convergence" && count(texts, "tolerance 1e-8") != 1 {
			t.Errorf("convergence: tolerance lines %q", texts)
		}
		checkTicks(t, c.Name, texts)
	}
	in := []Input{{Path: "a.json", PageRank: a}, {Path: "b.json", PageRank: b}}
	cmps, err := Comparisons(in)
	if err != nil || len(cmps) != 1 || cmps[0].Kind != "PageRank" || len(cmps[0].Charts) != 2 || cmps[0].Charts[0].Name != "compare-pagerank-convergence" {
		t.Fatalf("comparisons %v, %+v", err, cmps)
	}
}
