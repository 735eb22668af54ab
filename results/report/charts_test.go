package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"github.com/graphrun/graphrun/results"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/internal/output"
)

// chartRun is a BFS run with levels whose numbers span several decades, as a
// real Kronecker search's do.
func chartRun(exchange, codec string, scale float64) *results.Graph500Run {
	r := &results.Graph500Run{Scale: 12, EdgeFactor: 16, NumRanks: 4, Threads: 1, Exchange: exchange, Codec: codec, Direction: "auto",
		ValidationSkipped: true, CommBytes: 12345, CommMessages: 77, Version: "test"}
	frontier := []int64{1, 30, 1500, 2100, 90, 2, 0}
	for s := range 8 {
		search := results.Search{Root: int64(s * 17), Time: 0.001 * float64(s+1), NEdge: 60000 - int64(s)*1000, ValidateTime: -1}
		for l, f := range frontier {
			search.Levels = append(search.Levels, results.Level{Level: l, Direction: "bottom-up", Frontier: f,
				Bytes: int64(float64(f*40+100) * scale), Messages: 12, Time: 1e-4,
				Traverse: 4e-5, Reduce: 1e-5, Communicate: 3e-5 * scale, Compress: 1e-5})
		}
		r.Searches = append(r.Searches, search)
	}
	return r
}

// checkSVG parses an SVG document as XML to its end and checks it is one.
func checkSVG(t *testing.T, name string, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: invalid XML: %v", name, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", name, root)
	}
}

func TestChartsRenderValidSVGAndPNG(t *testing.T) {
	runs := []LabeledRun{{"allgather/raw", chartRun("allgather", "raw", 1)}, {"packed/auto", chartRun("packed", "auto", 0.1)}}
	var charts []Chart
	for _, build := range []func() (Chart, error){
		func() (Chart, error) { return FrontierChart(runs) },
		func() (Chart, error) { return BreakdownChart(runs) },
		func() (Chart, error) { return TEPSChart(runs[0].Run) },
		func() (Chart, error) { return BytesChart(runs) },
		func() (Chart, error) { return RunsTEPSChart(runs) },
		func() (Chart, error) { return ConvergenceChart(testPageRankRun()) },
		func() (Chart, error) { return IterationTimeChart(testPageRankRun()) },
		func() (Chart, error) {
			return LayerChart("kylix", []results.LayerVolume{{Bytes: 4e6, Messages: 64}, {Bytes: 2e6, Messages: 256}, {Bytes: 5e5, Messages: 512}})
		},
		func() (Chart, error) {
			return AllreduceChart([]AllreduceTiming{{"kylix", 1e3, 1e-4}, {"kylix", 1e6, 2e-2}, {"direct", 1e3, 3e-4}, {"direct", 1e6, 8e-2}})
		},
	} {
		c, err := build()
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Table.Rows) == 0 || len(c.Table.Header) == 0 {
			t.Fatalf("%s: empty table", c.Name)
		}
		for _, row := range c.Table.Rows {
			if len(row) != len(c.Table.Header) {
				t.Fatalf("%s: row %v does not match header %v", c.Name, row, c.Table.Header)
			}
		}
		charts = append(charts, c)
	}
	dir := t.TempDir()
	plots := output.NewSet(context.Background(), io.Discard).Dir("plots", dir)
	for _, c := range charts {
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		checkSVG(t, c.Name, svg)
		paths, err := c.WriteFiles(plots)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 3 {
			t.Fatalf("%s: %d files, want svg, pdf, png", c.Name, len(paths))
		}
		pdf, err := os.ReadFile(paths[1])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(pdf, []byte("%PDF-")) || len(pdf) < 1000 {
			t.Fatalf("%s: %s is not a PDF document (%d bytes)", c.Name, paths[1], len(pdf))
		}
		png, err := os.ReadFile(paths[2])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 1000 {
			t.Fatalf("%s: %s is not a PNG image (%d bytes)", c.Name, paths[2], len(png))
		}
	}
	// The level table has one row per run and level; the breakdown one per run.
	if got := len(charts[0].Table.Rows); got != 2*7 {
		t.Fatalf("level table has %d rows, want 14", got)
	}
	if got := charts[1].Table.Rows[1]; got[0] != "packed/auto" || got[3] != formatFloat(7*3e-5*0.1) {
		t.Fatalf("breakdown row %v", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3*len(charts) {
		t.Fatalf("%d files written, want %d", len(entries), 3*len(charts))
	}
}

func TestChartsRejectEmptyInput(t *testing.T) {
	if _, err := FrontierChart(nil); err == nil {
		t.Error("FrontierChart(nil) succeeded")
	}
	if _, err := BytesChart(nil); err == nil {
		t.Error("BytesChart(nil) succeeded")
	}
	if _, err := RunsTEPSChart(nil); err == nil {
		t.Error("RunsTEPSChart(nil) succeeded")
	}
	if _, err := ConvergenceChart(&results.PageRankRun{}); err == nil {
		t.Error("ConvergenceChart without L1 changes succeeded")
	}
	if _, err := IterationTimeChart(&results.PageRankRun{}); err == nil {
		t.Error("IterationTimeChart without times succeeded")
	}
	if _, err := BreakdownChart(nil); err == nil {
		t.Error("BreakdownChart(nil) succeeded")
	}
	if _, err := TEPSChart(&results.Graph500Run{}); err == nil {
		t.Error("TEPSChart of no search succeeded")
	}
	if _, err := LayerChart("x", nil); err == nil {
		t.Error("LayerChart(nil) succeeded")
	}
	if _, err := AllreduceChart(nil); err == nil {
		t.Error("AllreduceChart(nil) succeeded")
	}
}

const pagerankJSON = `{"command":"pagerank","version":"0.1.0","input":"g.el","num_ranks":4,"threads":1,
"vertices":100,"edges":900,"alpha":0.85,"tol":1e-10,"iterations":10,"converged":true,"residual":5e-11,
"total_rank":1,"allreduce":"kylix","partition":"random-edge","time_per_iteration":{"compute":0.001,"communication":0.0005},
"comm_bytes":4000,"comm_messages":120,"layers":[{"layer":1,"bytes":3000,"messages":80},{"layer":2,"bytes":1000,"messages":40}],
"top":[{"id":7,"score":0.1},{"id":3,"score":0.05}]}`

func TestReportOfBFSAndPageRank(t *testing.T) {
	var bfs1, bfs2 bytes.Buffer
	if err := chartRun("allgather", "raw", 1).WriteJSON(&bfs1); err != nil {
		t.Fatal(err)
	}
	if err := chartRun("sieve", "wah", 0.3).WriteJSON(&bfs2); err != nil {
		t.Fatal(err)
	}
	var inputs []Input
	for i, data := range [][]byte{bfs1.Bytes(), bfs2.Bytes(), []byte(pagerankJSON)} {
		in, err := ReadRunFile(filepath.Join("runs", []string{"a.json", "b.json", "pr.json"}[i]), data)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, in)
	}
	if inputs[2].PageRank == nil || inputs[0].BFS == nil {
		t.Fatal("run kinds not recognised")
	}
	// WriteCharts: the same 13 charts, three files each, each run's own
	// names prefixed with its position.
	names := chartNames{}
	if err := WriteCharts(names, inputs, 20); err != nil {
		t.Fatal(err)
	}
	if len(names) != 3*13 || !hasPrefix(names, "run1-") || !hasPrefix(names, "run3-") {
		t.Fatalf("WriteCharts wrote %d files: %v", len(names), names)
	}
	var html bytes.Buffer
	model, err := results.ParseClusterModel("bw=10Gbit/s,lat=50us,min-packet=5MB")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, inputs, time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), Options{Model: &model, ModelSpec: "bw=10Gbit/s"}); err != nil {
		t.Fatal(err)
	}
	out := html.String()
	// 4 comparison charts, 4 per BFS run, 1 for PageRank (an old run
	// without per-iteration figures: its layers only).
	if n := strings.Count(out, "<svg"); n != 4+4+4+1 {
		t.Fatalf("report has %d SVG charts, want 13", n)
	}
	for _, want := range []string{"<!DOCTYPE html>", "Comparison of the 2 BFS runs", "bfs  harmonic_mean_TEPS:", "runs/pr.json",
		"Allreduce traffic per layer (kylix, 4 ranks)", "<li>exchange allgather, codec raw</li>", "iterations:            10", "Cluster model: bw=10Gbit/s", "harmonic mean", "Numbers behind the chart", "2026-11-21T00:00:00Z"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(out, "<?xml") || strings.Contains(out, "http://") && !strings.Contains(out, "http://www.w3.org/") {
		t.Error("report embeds an XML declaration or refers to the network")
	}
	// Every inline SVG is valid XML on its own.
	for rest := out; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		checkSVG(t, "inline", []byte(rest[i:i+j+len("</svg>")]))
		rest = rest[i+j:]
	}
}

func TestReadRunFileErrors(t *testing.T) {
	for name, data := range map[string]string{
		"not json":     "SCALE 20",
		"other json":   `{"hello": 1}`,
		"bad bfs":      `{"SCALE": "x", "searches": []}`,
		"bad ranks":    `{"iterations": 1, "layers": [], "num_ranks": 0}`,
		"bad layers":   `{"iterations": 1, "layers": 3, "num_ranks": 1}`,
		"top-level []": `[]`,
	} {
		if _, err := ReadRunFile(name+".json", []byte(data)); err == nil || !strings.Contains(err.Error(), name+".json") {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
}

// chartNames is a FileWriter that keeps only the names written.
type chartNames map[string]bool

func (n chartNames) WriteFile(name string, write func(io.Writer) error) (string, error) {
	n[name] = true
	return name, write(io.Discard)
}

// hasPrefix reports whether a name of n starts with prefix.
func hasPrefix(n chartNames, prefix string) bool {
	for name := range n {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// TestBreakdownBarsAddUpToTheSearch: at 2 ranks a level's phases are each
// its slowest rank's, taken on different ranks, and add up to more than
// the search took (53.6 ms of phases for a 28.9 ms search); the bar is the
// search's time, its phases keeping their shares. A search whose phases
// fit keeps them, the rest of its time a segment of its own.
func TestBreakdownBarsAddUpToTheSearch(t *testing.T) {
	over := &results.Graph500Run{NumRanks: 2, Searches: []results.Search{{Time: 0.0289, Levels: []results.Level{
		{Level: 0, Traverse: 0.020, Reduce: 0.004, Communicate: 0.0166, Compress: 0.002},
		{Level: 1, Traverse: 0.006, Reduce: 0.001, Communicate: 0.004},
	}}}}
	under := &results.Graph500Run{NumRanks: 1, Searches: []results.Search{{Time: 0.010, Levels: []results.Level{
		{Level: 0, Traverse: 0.004, Reduce: 0.001, Communicate: 0.002, Compress: 0.001},
	}}}}
	c, err := BreakdownChart([]LabeledRun{{"2 ranks", over}, {"1 rank", under}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		search float64
		first  float64 // traversing
	}{{0.0289, 0.026 * 0.0289 / 0.0536}, {0.010, 0.004}} {
		row := c.Table.Rows[i]
		if len(row) != 1+len(breakdownLabels) {
			t.Fatalf("row %v: want %d columns", row, 1+len(breakdownLabels))
		}
		sum := 0.0
		for _, cell := range row[1:] {
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				t.Fatalf("row %v: %v", row, err)
			}
			sum += v
		}
		if math.Abs(sum-want.search) > 2e-3*want.search {
			t.Errorf("%s: the bar adds up to %.4g s, the search took %.4g s", row[0], sum, want.search)
		}
		if v, _ := strconv.ParseFloat(row[1], 64); math.Abs(v-want.first) > 2e-3*want.first {
			t.Errorf("%s: traversing %.4g s, want %.4g s (its share of the search)", row[0], v, want.first)
		}
	}
	if len(c.Notes) == 0 || !strings.Contains(c.Notes[len(c.Notes)-1], "scaled down") {
		t.Errorf("notes %q do not say the phases were scaled", c.Notes)
	}
}
