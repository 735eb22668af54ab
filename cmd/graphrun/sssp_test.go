package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/internal/testgraph"
)

// graphrun sssp prints the block with both kernels' lines, the sssp lines
// where the reference prints them, and writes kernel 3 into the JSON.
func TestSSSPPrintsBothKernels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	out, errOut := mustRun(t, "sssp", "--scale", "9", "--ranks", "2", "--roots", "4", "--json", path)
	for _, l := range []string{"bfs  stddev_time:", "sssp min_time:", "sssp harmonic_mean_TEPS:     !  ", "sssp stddev_validate:"} {
		if !strings.Contains(out, "\n"+l) {
			t.Errorf("the block lacks %q:\n%s", l, out)
		}
	}
	if strings.Index(out, "sssp min_time:") < strings.Index(out, "bfs  stddev_time:") ||
		strings.Index(out, "sssp min_TEPS:") < strings.Index(out, "bfs  harmonic_stddev_TEPS:") {
		t.Errorf("the sssp lines are not after the bfs lines of their kind:\n%s", out)
	}
	if !strings.Contains(errOut, "graphrun: SSSP 3: ") {
		t.Errorf("no progress line of the last SSSP search:\n%s", errOut)
	}
	run := readRun(t, path)
	if run.SSSP == nil || len(run.SSSP.Searches) != 4 || !run.Validated() || run.SSSP.Delta <= 0 {
		t.Fatalf("sssp in the JSON: %+v", run.SSSP)
	}
	for i, x := range run.SSSP.Searches {
		if x.Root != run.Searches[i].Root || x.NEdge != run.Searches[i].NEdge || !x.Validated {
			t.Errorf("search %d: sssp %+v, bfs root %d nedge %d", i, x.Search, run.Searches[i].Root, run.Searches[i].NEdge)
		}
	}
	// --delta is the bucket width the JSON reports.
	mustRun(t, "sssp", "--scale", "8", "--roots", "2", "--delta", "0.125", "--json", path)
	if run := readRun(t, path); run.SSSP.Delta != 0.125 {
		t.Errorf("--delta 0.125: delta %v", run.SSSP.Delta)
	}
	// bfs alone makes no kernel 3.
	mustRun(t, "bfs", "--scale", "8", "--roots", "2", "--json", path)
	if run := readRun(t, path); run.SSSP != nil {
		t.Errorf("bfs wrote kernel 3: %+v", run.SSSP)
	}
}

// graphrun sssp --partition 2d runs both kernels on the grid: a validated
// block and the JSON's partition 2d; from one root, its tree is the 1D
// run's, line for line.
func TestSSSP2DValidated(t *testing.T) {
	dir := t.TempDir()
	json := filepath.Join(dir, "run.json")
	out, _ := mustRun(t, "sssp", "-s", "14", "--ranks", "4", "--partition", "2d", "--roots", "4", "--json", json)
	if !strings.Contains(out, "\nsssp min_time:") {
		t.Fatalf("no sssp block:\n%s", out)
	}
	run := readRun(t, json)
	if run.Partition != "2d" || run.Grid != "2x2" || run.SSSP == nil || len(run.SSSP.Searches) != 4 || !run.Validated() {
		t.Fatalf("partition %s grid %s, sssp %+v, validated %v", run.Partition, run.Grid, run.SSSP, run.Validated())
	}
	root := strconv.FormatInt(run.SSSP.Searches[0].Root, 10)
	trees := map[string]string{}
	for _, partition := range []string{"1d", "2d"} {
		tree := filepath.Join(dir, partition+".tree")
		mustRun(t, "sssp", "-s", "14", "--ranks", "4", "--partition", partition, "--root", root, "--out", tree)
		trees[partition] = string(readFile(t, tree))
	}
	if trees["1d"] == "" || trees["1d"] != trees["2d"] {
		t.Errorf("from %s the 2D tree differs from the 1D one (%d and %d bytes)", root, len(trees["1d"]), len(trees["2d"]))
	}
	// A weighted file on a 2x2 grid: the same file ids, parents and
	// distances as on the 1D rows.
	wel := testgraph.GoldenFile("weighted.wel")
	for _, partition := range []string{"1d", "2d"} {
		tree := filepath.Join(dir, partition+".file.tree")
		mustRun(t, "sssp", wel, "--ranks", "4", "--partition", partition, "-r", "3", "-o", tree)
		trees[partition] = string(readFile(t, tree))
	}
	if trees["1d"] == "" || trees["1d"] != trees["2d"] {
		t.Errorf("%s from 3: the 2D tree differs from the 1D one", wel)
	}
}

// Bad sssp flags: exit 2 with one line naming the flag, nothing on stdout.
func TestSSSPBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"sssp", "--scale", "5", "--delta", "-1"}, "--delta"},
		{[]string{"sssp", "--scale", "5", "--delta", "NaN"}, "--delta"},
		{[]string{"sssp", "--scale", "5", "--delta", "abc"}, "--delta"},
		{[]string{"sssp", "--scale", "5", "--partition", "2d", "--blocks-per-rank", "2"}, "--blocks-per-rank"},
		{[]string{"sssp", "--scale", "5", "--partition", "3d"}, "--partition"},
		{[]string{"sssp", "graph.el"}, "graph.el"},
		{[]string{"bfs", "--scale", "5", "--delta", "0.5"}, "--delta"},
	} {
		code, out, errOut := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.flag) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line naming %s", c.args, code, out, errOut, c.flag)
		}
	}
}
