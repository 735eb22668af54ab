package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/results/report"
)

// denseRowLine matches a measured row of bench allreduce-dense: ranks,
// elements, four times, the ratio, the link model's ratio (with
// --link-bandwidth) and the megabytes sent per call.
var denseRowLine = regexp.MustCompile(`(?m)^\| (\d+) \| ([\d^]+) \|(?: [\d.e+]+ \|){4} [\d.]+ \|(?: [\d.]+ \|)? [\d.e+-]+(?: / [\d.e+-]+){3} \|$`)

func TestBenchAllreduceDense(t *testing.T) {
	clearJobEnv(t)
	for _, tc := range []struct {
		args   []string
		rows   int
		header string
	}{
		{[]string{"--ranks", "4", "--sizes", "100,1e3"}, 4, "over in-process ranks, no network model"},
		{[]string{"--ranks", "2", "--sizes", "1e4", "--link-bandwidth", "10G", "--pieces", "2", "--workers", "2", "--stat", "min"}, 1, "modelled link 10G B/s per rank"},
		{[]string{"--procs", "2", "--sizes", "1000"}, 1, "over tcp, 2 processes"},
	} {
		code, out, errOut := runCLI(t, append([]string{"bench", "allreduce-dense", "--repeat", "1", "--dir", t.TempDir()}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr:\n%s", tc.args, code, errOut)
		}
		if rows := denseRowLine.FindAllString(out, -1); len(rows) != tc.rows || !strings.Contains(out, tc.header) {
			t.Fatalf("%v: %d rows, want %d, header %q; output:\n%s", tc.args, len(rows), tc.rows, tc.header, out)
		}
	}
	// One algorithm: no ratio column.
	code, out, errOut := runCLI(t, "bench", "allreduce-dense", "--ranks", "3", "--sizes", "10", "--algorithms", "butterfly", "--repeat", "1",
		"--dir", t.TempDir())
	if code != 0 || !strings.Contains(out, "| ranks | elements | butterfly | MB sent per call |\n") || strings.Contains(out, "÷") {
		t.Fatalf("one algorithm: exit %d, output:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"--sizes", "0"}, {"--sizes", "1.5"}, {"--ranks", "x"}, {"--algorithms", "ring"},
		{"--repeat", "0"}, {"--stat", "mean"}, {"--workers", "0"}, {"--pieces", "0"}, {"--link-bandwidth", "fast"},
		{"--procs", "2", "--ranks", "4"}, {"extra"},
		{"--tag", "two words"}, {"--tag", "-x"}, {"--tag", "a-->b"},
	} {
		code, _, errOut := runCLI(t, append([]string{"bench", "allreduce-dense"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q", args, code, errOut)
		}
	}
}

// TestBenchAllreduceJSONAndPlots: --json keeps every timing, --plots draws them.
func TestBenchAllreduceJSONAndPlots(t *testing.T) {
	dir := t.TempDir()
	js, plots := filepath.Join(dir, "ad.json"), filepath.Join(dir, "plots")
	code, _, errOut := runCLI(t, "bench", "allreduce-dense", "--ranks", "4", "--sizes", "100,1000", "--repeat", "1", "--json", js, "--plots", plots,
		"--dir", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data := readFile(t, js)
	var doc struct {
		Timings []report.AllreduceTiming `json:"timings"`
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

// TestBenchAllreducePrintsItsTable: the matrix prints its table, sweeps
// 2, 4, … up to --ranks, writes one JSON per rank count and vector length
// and summary.json, and a multi-process run writes from rank 0.
func TestBenchAllreducePrintsItsTable(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	stdout, errOut := mustRun(t, "bench", "allreduce-dense", "--ranks", "4", "--sizes", "100,1e3", "--repeat", "1", "--dir", out,
		"--link-bandwidth", "10G")
	if rows := denseRowLine.FindAllString(stdout, -1); len(rows) != 4 || !strings.Contains(errOut, "[4/4] 4 ranks, 10^3 elements: tree ") ||
		!strings.Contains(stdout, " link model |") {
		t.Fatalf("stdout %q, stderr %q", stdout, errOut)
	}
	// One JSON per rank count and vector length (the last run's: the link
	// model), each with every algorithm's exact volume.
	var summary bench.DenseSummary
	readJSONFile(t, filepath.Join(out, "summary.json"), &summary)
	if len(summary.Files) != 4 || summary.LoadStart == nil || summary.Key != "allreduce-dense ranks=4 sizes=1e2,1e3 repeat=1 link-bandwidth=10G" {
		t.Fatalf("summary: %+v", summary)
	}
	for _, file := range summary.Files {
		var run bench.DenseRun
		readJSONFile(t, filepath.Join(out, file), &run)
		if len(run.Algorithms) != 4 || run.LinkBandwidth != 1e10 || run.ModelTreeOverChunked == 0 {
			t.Fatalf("%s: %+v", file, run)
		}
		// Tree and chunked send 2(p−1) vectors' worth in all, the
		// butterfly p·lg p on a power of two.
		p, n := int64(run.Ranks), int64(run.Elements)
		if tree, chunked := run.Algorithms[0].BytesSent, run.Algorithms[3].BytesSent; tree != 2*(p-1)*8*n || chunked != tree {
			t.Errorf("%s: tree %d, chunked %d bytes, want %d", file, tree, chunked, 2*(p-1)*8*n)
		}
		if p == 2 && run.Algorithms[1].BytesSent != 2*8*n {
			t.Errorf("%s: butterfly %d bytes, want %d", file, run.Algorithms[1].BytesSent, 2*8*n)
		}
	}

	// --procs: rank 0 writes the JSON and the summary and prints the table.
	procsOut := filepath.Join(dir, "procs")
	code, stdout, errOut := runCLI(t, "bench", "allreduce-dense", "--procs", "2", "--sizes", "1000", "--repeat", "1", "--dir", procsOut)
	if code != 0 || len(denseRowLine.FindAllString(stdout, -1)) != 1 || !strings.Contains(errOut, "rank 0: graphrun: bench allreduce-dense [1/1] 2 ranks") {
		t.Fatalf("--procs 2: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	if _, err := os.Stat(filepath.Join(procsOut, "allreduce-dense-p2-n1e3.json")); err != nil {
		t.Fatal(err)
	}
	var procsSummary bench.DenseSummary
	readJSONFile(t, filepath.Join(procsOut, "summary.json"), &procsSummary)
	if procsSummary.Key != "allreduce-dense procs=2 sizes=1e3 repeat=1" || procsSummary.Command != "graphrun bench allreduce-dense --procs 2 --sizes 1e3 --repeat 1" {
		t.Errorf("--procs summary: %q, %q", procsSummary.Key, procsSummary.Command)
	}
}

// TestBenchAllreduceBadOutput: a --dir that cannot be written is a
// usage error naming the flag, before anything runs (with --procs, before
// any process starts).
func TestBenchAllreduceBadOutput(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--ranks", "2", "--dir", file}, "--dir"},
		{[]string{"--procs", "2", "--dir", file}, "--dir"},
	} {
		args := append([]string{"bench", "allreduce-dense", "--sizes", "10", "--repeat", "1"}, c.args...)
		code, stdout, errOut := runCLI(t, args...)
		if code != 2 || !strings.HasPrefix(errOut, fmt.Sprintf("graphrun: %s: ", c.flag)) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 naming %s", c.args, code, stdout, errOut, c.flag)
		}
	}
}

// TestBenchAllreduceTasks: with --tasks every rank's tasks commit to a
// shared variable; the sums are checked by the benchmark itself, the
// table says so, and the run JSON and the key carry the task count.
func TestBenchAllreduceTasks(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "bench", "allreduce-dense", "--ranks", "2", "--sizes", "1e3", "--repeat", "2", "--tasks", "4",
		"--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if rows := denseRowLine.FindAllString(out, -1); len(rows) != 1 || !strings.Contains(out, "Shared variables: 4 tasks per rank") {
		t.Fatalf("output:\n%s", out)
	}
	var run bench.DenseRun
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "allreduce-dense-p2-n1e3.json")), &run); err != nil {
		t.Fatal(err)
	}
	if run.Tasks != 4 || len(run.Algorithms) != 4 || run.Algorithms[3].BytesSent == 0 {
		t.Errorf("run JSON %+v", run)
	}
	if code, _, errOut := runCLI(t, "bench", "allreduce-dense", "--tasks", "-1"); code != 2 || !strings.Contains(errOut, "--tasks") {
		t.Errorf("--tasks -1: exit %d, stderr %q", code, errOut)
	}
}

// TestDenseKey: the key and command line of the table name the
// parameters that change it, the defaults left out.
func TestDenseKey(t *testing.T) {
	spec := bench.DenseSpec{Ranks: "2,4,8,16", Sizes: "1e4,1e5,1e6,1e7", Algorithms: "tree,butterfly,hypercube-unsplittable,hypercube-chunked",
		Repeat: 5, Stat: "median", Workers: 1, Pieces: 1}
	inproc := launch.Plan{Ranks: 3}
	m, err := spec.Parse()
	if err != nil {
		t.Fatal(err)
	}
	key, command := denseKey(m, inproc, false)
	if key != "allreduce-dense ranks=16 sizes=1e4,1e5,1e6,1e7 repeat=5" ||
		command != "graphrun bench allreduce-dense --ranks 16 --sizes 1e4,1e5,1e6,1e7 --repeat 5" {
		t.Errorf("dense defaults: %q, %q", key, command)
	}
	spec.Algorithms, spec.AlgorithmsGiven, spec.Stat, spec.LinkBandwidth, spec.Tag, spec.Tasks = "tree", true, "min", "10Gbit/s", "netns", 8
	if m, err = spec.Parse(); err != nil {
		t.Fatal(err)
	}
	if key, _ := denseKey(m, inproc, false); key != "allreduce-dense ranks=16 sizes=1e4,1e5,1e6,1e7 repeat=5 algorithms=tree stat=min tasks=8 link-bandwidth=1.25G tag=netns" {
		t.Errorf("dense with settings: %q", key)
	}
}
