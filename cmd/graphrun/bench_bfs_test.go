package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/gen/kronecker"
)

// TestBenchBFSCodecsPrintsItsTable: the matrix prints its table and
// writes one JSON per run and a summary.
func TestBenchBFSCodecsPrintsItsTable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 14 searches matrices")
	}
	out := filepath.Join(t.TempDir(), "out")
	stdout, errOut := mustRun(t, "bench", "bfs-codecs", "--scale", "8", "--ranks", "3", "--roots", "2", "--dir", out)
	if !strings.Contains(stdout, "| PDIR-auto |") || !strings.Contains(stdout, "| BIT |") || !strings.Contains(errOut, "[14/14]") {
		t.Fatalf("stdout %q, stderr %q", stdout, errOut)
	}
	var summary bench.BFSSummary
	readJSONFile(t, filepath.Join(out, "summary.json"), &summary)
	if len(summary.Runs) != 14 || summary.Runs[0].Label != "BIT" || summary.Key != "bfs-codecs scale=8 ranks=3 roots=2" || summary.LoadStart == nil || summary.FinishedAt.IsZero() {
		t.Fatalf("summary: %+v", summary)
	}
	// Every mode searches the same graph from the same keys: equal nedge.
	for _, r := range summary.Runs {
		if _, err := os.Stat(filepath.Join(out, r.File)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBenchBFSBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "bfs-codecs", "--ranks", "0"}, "--ranks"},
		{[]string{"bench", "bfs-scaling", "--roots", "0"}, "--roots"},
		{[]string{"bench", "bfs-codecs", "--scale", "0"}, "--scale"},
		{[]string{"bench", "bfs-codecs", "--scale", "6", "--dir", writeFile(t, filepath.Join(t.TempDir(), "file"), "")}, "--dir"},
		{[]string{"bench", "bfs-codecs", "--scale", "6", "--procs", "2"}, "--procs"},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 naming %s", c.args, code, errOut, c.want)
		}
	}
}

// TestBenchBFSScaling: the scaling matrix runs both exchanges on 1, 2, ...
// ranks, with the one-rank default run as the baseline of its table.
func TestBenchBFSScaling(t *testing.T) {
	dir := t.TempDir()
	code, stdout, errOut := runCLI(t, "bench", "bfs-scaling", "--scale", "8", "--ranks", "2", "--roots", "2",
		"--dir", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, row := range []string{"| 1 rank, allgather + raw |", "| 1 rank, packed + auto |", "| 2 ranks, allgather + raw |", "| 2 ranks, packed + auto |"} {
		if !strings.Contains(stdout, row) {
			t.Fatalf("no row %q in:\n%s", row, stdout)
		}
	}
	if !strings.Contains(stdout, "× 1 rank, allgather + raw") || !strings.Contains(errOut, "[4/4]") {
		t.Fatalf("stdout %q, stderr %q", stdout, errOut)
	}
}

// TestBenchBFSKeyNamesGraphFlags: a graph flag that was given (edgefactor,
// seed) is part of the key and the command line in summary.json, so that
// the table of another graph tells itself apart from the default one.
func TestBenchBFSKeyNamesGraphFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, errOut := runCLI(t, "bench", "bfs-scaling", "--scale", "7", "--ranks", "1", "--roots", "1", "--edgefactor", "8", "--seed", "3",
		"--dir", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var summary bench.BFSSummary
	readJSONFile(t, filepath.Join(out, "summary.json"), &summary)
	if summary.Key != "bfs-scaling scale=7 ranks=1 roots=1 edgefactor=8 seed=3" ||
		summary.Command != "graphrun bench bfs-scaling --scale 7 --ranks 1 --roots 1 --edgefactor 8 --seed 3" {
		t.Errorf("summary key %q, command %q", summary.Key, summary.Command)
	}
	if !strings.Contains(stdout, "In-process ranks, `--no-validate`.") {
		t.Errorf("no caption in:\n%s", stdout)
	}
}

// TestBenchKeys: the key and command line of the BFS and transport
// matrices name the parameters that change their tables, the graph's
// settings only when given.
func TestBenchKeys(t *testing.T) {
	cmd := newBenchBFSCommand(&globalFlags{}, bench.BFSCodecs, "")
	if err := cmd.Flags().Set("seed", "7"); err != nil {
		t.Fatal(err)
	}
	bm := bench.BFSMatrix{Name: bench.BFSCodecs, Graph: kronecker.DefaultParams(10), Ranks: 4, Roots: 2}
	if key, command := bfsMatrixKey(cmd, &bm); key != "bfs-codecs scale=10 ranks=4 roots=2 seed=7" || command != "graphrun bench bfs-codecs --scale 10 --ranks 4 --roots 2 --seed 7" {
		t.Errorf("bfs: %q, %q", key, command)
	}
	tm, err := bench.TransportSpec{Ranks: 2, Sizes: "256,1Ki", MinTime: time.Second}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if key, command := transportKey(tm, launch.Plan{Ranks: 2}, false); key != "transport ranks=2 sizes=256,1Ki min-time=1s" ||
		command != "graphrun bench transport --ranks 2 --sizes 256,1Ki --min-time 1s" {
		t.Errorf("transport: %q, %q", key, command)
	}
}
