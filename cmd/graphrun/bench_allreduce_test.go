package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/results"
)

// denseRowLine matches a measured row of bench allreduce-dense: ranks,
// elements, four times and the ratio.
var denseRowLine = regexp.MustCompile(`(?m)^\| (\d+) \| ([\d^]+) \|(?: [\d.e+]+ \|){4} [\d.]+ \|$`)

func TestBenchAllreduceDense(t *testing.T) {
	clearJobEnv(t)
	for _, tc := range []struct {
		args   []string
		rows   int
		header string
	}{
		{[]string{"--ranks", "2,3", "--sizes", "100,1e3"}, 4, "over in-process ranks, no network model"},
		{[]string{"--ranks", "5", "--sizes", "1e4", "--link-bandwidth", "10G", "--pieces", "2", "--workers", "2", "--stat", "min"}, 1, "modelled link 10G B/s per rank"},
		{[]string{"--procs", "2", "--sizes", "1000"}, 1, "over tcp, 2 processes"},
	} {
		code, out, errOut := runCLI(t, append([]string{"bench", "allreduce-dense", "--repeat", "1"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr:\n%s", tc.args, code, errOut)
		}
		if rows := denseRowLine.FindAllString(out, -1); len(rows) != tc.rows || !strings.Contains(out, tc.header) {
			t.Fatalf("%v: %d rows, want %d, header %q; output:\n%s", tc.args, len(rows), tc.rows, tc.header, out)
		}
	}
	// One algorithm: no ratio column.
	code, out, errOut := runCLI(t, "bench", "allreduce-dense", "--ranks", "3", "--sizes", "10", "--algorithms", "butterfly", "--repeat", "1")
	if code != 0 || !strings.Contains(out, "| ranks | elements | butterfly |\n") || strings.Contains(out, "÷") {
		t.Fatalf("one algorithm: exit %d, output:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"--sizes", "0"}, {"--sizes", "1.5"}, {"--ranks", "x"}, {"--algorithms", "ring"},
		{"--repeat", "0"}, {"--stat", "mean"}, {"--workers", "0"}, {"--pieces", "0"}, {"--link-bandwidth", "fast"},
		{"--procs", "2", "--ranks", "4"}, {"extra"},
	} {
		code, _, errOut := runCLI(t, append([]string{"bench", "allreduce-dense"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q", args, code, errOut)
		}
	}
}

func TestParseCountsAndRates(t *testing.T) {
	got, err := parseCounts("1e4, 100,2.5e6,1e8")
	if want := []int{10000, 100, 2500000, 100000000}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("parseCounts: %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "0", "-5", "1.5", "1e13", "x", "1,,2"} {
		if _, err := parseCounts(bad); err == nil {
			t.Errorf("parseCounts(%q) accepted", bad)
		}
	}
	for s, want := range map[string]float64{"1.25G": 1.25e9, "125M": 125e6, "500k": 5e5, "1e9": 1e9, "10GB/s": 1e10} {
		if got, err := parseRate(s); err != nil || got != want {
			t.Errorf("parseRate(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1G", "fast", "G"} {
		if _, err := parseRate(bad); err == nil {
			t.Errorf("parseRate(%q) accepted", bad)
		}
	}
	for n, want := range map[int]string{10: "10^1", 10000000: "10^7", 5: "5", 2500: "2500"} {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestBenchAllreduceJSONAndPlots: --json keeps every timing, --plots draws them.
func TestBenchAllreduceJSONAndPlots(t *testing.T) {
	dir := t.TempDir()
	js, plots := filepath.Join(dir, "ad.json"), filepath.Join(dir, "plots")
	code, _, errOut := runCLI(t, "bench", "allreduce-dense", "--ranks", "2,3", "--sizes", "100,1000", "--repeat", "1", "--json", js, "--plots", plots)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Timings []results.AllreduceTiming `json:"timings"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Timings) != 2*2*4 { // rank counts × sizes × algorithms
		t.Fatalf("%d timings, want 16", len(doc.Timings))
	}
	for _, ext := range []string{".svg", ".png"} {
		if fi, err := os.Stat(filepath.Join(plots, "allreduce"+ext)); err != nil || fi.Size() == 0 {
			t.Fatalf("allreduce%s: %v", ext, err)
		}
	}
}
