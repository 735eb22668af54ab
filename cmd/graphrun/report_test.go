package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReportOfBFSAndPageRankRuns: graphrun report turns the JSON of a bfs and
// a pagerank run into one HTML file with every chart, and --plots writes the
// SVG and PNG files.
func TestReportOfBFSAndPageRankRuns(t *testing.T) {
	dir := t.TempDir()
	bfsJSON, prJSON := filepath.Join(dir, "bfs.json"), filepath.Join(dir, "pr.json")
	if code, _, errOut := runCLI(t, "bfs", "--scale", "9", "--ranks", "2", "--roots", "4", "--exchange", "packed", "--codec", "auto", "--json", bfsJSON); code != 0 {
		t.Fatalf("bfs: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "pagerank", "--kron", "8", "--ranks", "4", "--iterations", "3", "--json", prJSON); code != 0 {
		t.Fatalf("pagerank: exit %d: %s", code, errOut)
	}
	html, plots := filepath.Join(dir, "report.html"), filepath.Join(dir, "plots")
	code, out, errOut := runCLI(t, "report", bfsJSON, prJSON, "-o", html, "--plots", plots)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "2 runs") {
		t.Fatalf("report stdout %q", out)
	}
	data := readFile(t, html)
	page := string(data)
	// bfs: frontier, bytes, breakdown, TEPS; pagerank: convergence, time
	// per iteration, layers.
	if n := strings.Count(page, "<svg"); n != 7 {
		t.Fatalf("report has %d charts, want 7", n)
	}
	if !strings.Contains(page, "bfs  harmonic_mean_TEPS:") || !strings.Contains(page, "iterations:") {
		t.Fatal("report lacks the Graph500 block or the PageRank summary")
	}
	entries, err := os.ReadDir(plots)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 21 {
		t.Fatalf("--plots wrote %d files, want 21 (7 charts × svg, pdf, png)", len(entries))
	}
}

// TestReportComparesRunsOfDifferentScaleAndRanks: two bfs runs differing in
// scale and ranks are compared in four charts (frontier, bytes, breakdown,
// TEPS per run) that name them by scale and ranks, --plots writes every
// chart of the HTML (comparison included) in three formats, --dpi sets the
// PNG's resolution, and the one-rank run's bytes are said to be missing.
func TestReportComparesRunsOfDifferentScaleAndRanks(t *testing.T) {
	dir := t.TempDir()
	one, four := filepath.Join(dir, "one.json"), filepath.Join(dir, "four.json")
	if code, _, errOut := runCLI(t, "bfs", "--scale", "8", "--ranks", "1", "--threads", "1", "--roots", "2", "--json", one); code != 0 {
		t.Fatalf("bfs: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "bfs", "--scale", "9", "--ranks", "4", "--threads", "1", "--roots", "2", "--json", four); code != 0 {
		t.Fatalf("bfs: exit %d: %s", code, errOut)
	}
	html, plots := filepath.Join(dir, "report.html"), filepath.Join(dir, "plots")
	if code, _, errOut := runCLI(t, "report", one, four, "-o", html, "--plots", plots, "--dpi", "72"); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	data := readFile(t, html)
	page := string(data)
	if n := strings.Count(page, "<svg"); n != 4+2*4 {
		t.Fatalf("report has %d charts, want 12", n)
	}
	for _, want := range []string{"<li>scale 8, 1 rank</li>", "<li>scale 9, 4 ranks</li>", "Harmonic mean TEPS of each run",
		"scale 8, 1 rank: not drawn (no bytes sent: it ran on 1 rank)"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	entries, err := os.ReadDir(plots)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3*12 {
		t.Fatalf("--plots wrote %d files, want 36 (12 charts × svg, pdf, png)", len(entries))
	}
	for _, name := range []string{"compare-bfs-frontier", "compare-bfs-bytes", "compare-breakdown", "compare-teps-runs", "run1-teps", "run2-bfs-bytes"} {
		for _, ext := range []string{".svg", ".pdf", ".png"} {
			if fi, err := os.Stat(filepath.Join(plots, name+ext)); err != nil || fi.Size() == 0 {
				t.Errorf("%s%s: %v", name, ext, err)
			}
		}
	}
	// 16 cm wide at 72 dpi: 453 pixels.
	png := readFile(t, filepath.Join(plots, "compare-teps-runs.png"))
	if w := int(png[16])<<24 | int(png[17])<<16 | int(png[18])<<8 | int(png[19]); w != 453 && w != 454 {
		t.Errorf("PNG at --dpi 72 is %d pixels wide, want 453", w)
	}
	if code, _, errOut := runCLI(t, "report", one, "-o", html, "--dpi", "0"); code != 2 || !strings.Contains(errOut, "--dpi") {
		t.Errorf("--dpi 0: exit %d, %q", code, errOut)
	}
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, filepath.Join(dir, "bad.json"), `{"hello": 1}`)
	html := filepath.Join(dir, "r.html")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", bad, "-o", html}, "bad.json"},
		{[]string{"report", filepath.Join(dir, "missing.json"), "-o", html}, "missing.json"},
		{[]string{"report", bad}, "--out"},
		{[]string{"report", "-o", html}, "requires at least 1 arg"},
		{[]string{"report", bad, "-o", html, "--model", "bw=fast"}, "--model"},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(html); !os.IsNotExist(err) {
		t.Fatal("a failed report left an output file")
	}
}

// TestReportComparesPageRankRuns: two pagerank runs on 1 and 4 ranks are
// compared in a convergence and a time-per-iteration chart naming them by
// ranks and allreduce.
func TestReportComparesPageRankRuns(t *testing.T) {
	dir := t.TempDir()
	one, four := filepath.Join(dir, "one.json"), filepath.Join(dir, "four.json")
	for _, c := range []struct{ ranks, path string }{{"1", one}, {"4", four}} {
		if code, _, errOut := runCLI(t, "pagerank", "--kron", "8", "--ranks", c.ranks, "--threads", "1", "--json", c.path); code != 0 {
			t.Fatalf("pagerank: exit %d: %s", code, errOut)
		}
	}
	html, plots := filepath.Join(dir, "report.html"), filepath.Join(dir, "plots")
	if code, _, errOut := runCLI(t, "report", one, four, "-o", html, "--plots", plots); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	data := readFile(t, html)
	page := string(data)
	// 2 comparison charts; 2 and 3 per run (one rank has no allreduce layers).
	if n := strings.Count(page, "<svg"); n != 2+2+3 {
		t.Errorf("report has %d charts, want 7", n)
	}
	for _, want := range []string{"Comparison of the 2 PageRank runs", "<li>1 rank, no allreduce</li>", "<li>4 ranks, kylix 2x2 allreduce</li>"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, name := range []string{"compare-pagerank-convergence", "compare-pagerank-iteration-time", "run2-layers"} {
		if _, err := os.Stat(filepath.Join(plots, name+".pdf")); err != nil {
			t.Error(err)
		}
	}
}

// TestBFSPlots: graphrun bfs --plots writes the run's four charts.
func TestBFSPlots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots")
	mustRun(t, "bfs", "--scale", "8", "--ranks", "2", "--roots", "2", "--plots", dir)
	for _, name := range []string{"bfs-frontier", "bfs-bytes", "breakdown", "teps"} {
		for _, ext := range []string{".svg", ".pdf", ".png"} {
			if fi, err := os.Stat(filepath.Join(dir, name+ext)); err != nil || fi.Size() == 0 {
				t.Fatalf("%s%s: %v", name, ext, err)
			}
		}
	}
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "bfs", "--scale", "6", "--plots", filepath.Join(blocker, "sub")); code != 2 || !strings.Contains(errOut, "--plots") {
		t.Fatalf("unusable --plots: exit %d, %q", code, errOut)
	}
}

// TestPageRankPlots: graphrun pagerank --plots writes the convergence, time
// per iteration and per-layer charts; on one rank, which has no allreduce
// layers, the first two rather than an empty folder.
func TestPageRankPlots(t *testing.T) {
	for _, c := range []struct {
		ranks string
		want  []string
	}{
		{"4", []string{"pagerank-convergence", "pagerank-iteration-time", "layers"}},
		{"1", []string{"pagerank-convergence", "pagerank-iteration-time"}},
	} {
		dir := filepath.Join(t.TempDir(), "plots")
		mustRun(t, "pagerank", "--kron", "8", "--ranks", c.ranks, "--iterations", "3", "--plots", dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 3*len(c.want) {
			t.Errorf("--ranks %s: %d files, want %d", c.ranks, len(entries), 3*len(c.want))
		}
		for _, name := range c.want {
			for _, ext := range []string{".svg", ".pdf", ".png"} {
				if fi, err := os.Stat(filepath.Join(dir, name+ext)); err != nil || fi.Size() == 0 {
					t.Errorf("--ranks %s: %s%s: %v", c.ranks, name, ext, err)
				}
			}
		}
	}
}

// TestPlotsDPIOnEveryCommand: bfs and pagerank --plots take report's --dpi
// (the PNG's width follows it) and refuse a bad one before any work.
func TestPlotsDPIOnEveryCommand(t *testing.T) {
	dir := t.TempDir()
	graphPath := writeFile(t, filepath.Join(dir, "g.el"), smallGraph)
	for _, c := range []struct{ args []string }{
		{[]string{"bfs", "--scale", "8", "--roots", "2"}},
		{[]string{"pagerank", graphPath}},
	} {
		plots := filepath.Join(dir, c.args[0]+"-plots")
		args := append(slices.Clone(c.args), "--plots", plots, "--dpi", "72")
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		entries, err := os.ReadDir(plots)
		if err != nil {
			t.Fatal(err)
		}
		var pngs []string
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".png") {
				pngs = append(pngs, e.Name())
			}
		}
		if len(pngs) == 0 {
			t.Fatalf("%s --plots wrote no PNG: %v", c.args[0], entries)
		}
		png := readFile(t, filepath.Join(plots, pngs[0]))
		if w := int(png[16])<<24 | int(png[17])<<16 | int(png[18])<<8 | int(png[19]); w != 453 && w != 454 {
			t.Errorf("%s: %s at --dpi 72 is %d pixels wide, want 453", c.args[0], pngs[0], w)
		}
		bad := append(slices.Clone(c.args), "--plots", filepath.Join(dir, "never"), "--dpi", "0")
		if code, _, errOut := runCLI(t, bad...); code != 2 || !strings.Contains(errOut, "--dpi") {
			t.Errorf("%s --dpi 0: exit %d, %q", c.args[0], code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "never")); err == nil {
			t.Errorf("%s --dpi 0 made its --plots folder", c.args[0])
		}
	}
}
