package main

import (
	"os"
	"path/filepath"
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
	data, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if n := strings.Count(page, "<svg"); n != 4 { // levels, breakdown, TEPS; pagerank layers
		t.Fatalf("report has %d charts, want 4", n)
	}
	if !strings.Contains(page, "bfs  harmonic_mean_TEPS:") || !strings.Contains(page, "iterations:") {
		t.Fatal("report lacks the Graph500 block or the PageRank summary")
	}
	entries, err := os.ReadDir(plots)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 8 {
		t.Fatalf("--plots wrote %d files, want 8 (4 charts × svg, png)", len(entries))
	}
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"hello": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
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

// TestBFSPlots: graphrun bfs --plots writes the run's three charts.
func TestBFSPlots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots")
	if code, _, errOut := runCLI(t, "bfs", "--scale", "8", "--ranks", "2", "--roots", "2", "--plots", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"bfs-levels", "breakdown", "teps"} {
		for _, ext := range []string{".svg", ".png"} {
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

// TestPageRankPlots: graphrun pagerank --plots writes the per-layer chart.
func TestPageRankPlots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots")
	if code, _, errOut := runCLI(t, "pagerank", "--kron", "8", "--ranks", "4", "--iterations", "2", "--plots", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, ext := range []string{".svg", ".png"} {
		if fi, err := os.Stat(filepath.Join(dir, "layers"+ext)); err != nil || fi.Size() == 0 {
			t.Fatalf("layers%s: %v", ext, err)
		}
	}
}
