package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/bench"
)

// TestBenchMemory measures two tiny runs of each kind in child processes
// (this test binary acting as graphrun), on 1 and 2 ranks (--ranks 2),
// and prints the table.
func TestBenchMemory(t *testing.T) {
	clearJobEnv(t)
	t.Setenv(asMain, "1") // the children run graphrun's main, not the tests
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	stdout, _ := mustRun(t, "bench", "memory", "--scales", "10", "--ranks", "2", "--roots", "2", "--dir", out)
	for _, row := range []string{"| bfs | 10 | 1 |", "| bfs | 10 | 2 |", "| bfs-2d | 10 | 2 |", "| pagerank | 10 | 1 |"} {
		if !strings.Contains(stdout, row) {
			t.Errorf("no row %q in\n%s", row, stdout)
		}
	}
	var summary struct {
		Key  string            `json:"key"`
		Runs []bench.MemoryRun `json:"runs"`
	}
	raw := readFile(t, filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(raw, &summary); err != nil {
		t.Fatal(err)
	}
	if len(summary.Runs) != 6 {
		t.Fatalf("%d runs", len(summary.Runs))
	}
	for _, r := range summary.Runs {
		// A Go process holds a few MB at least, and these graphs need far
		// less than a GB.
		if r.PeakBytes < 1<<20 || r.PeakBytes > 1<<30 || (r.Kind != bench.MemoryPageRank && r.Model <= 0) {
			t.Errorf("%+v", r)
		}
	}
	if summary.Key != "memory scales=10 ranks=2 kinds=bfs,bfs-2d,pagerank roots=2" {
		t.Errorf("summary key %q", summary.Key)
	}
}

func TestBenchMemoryBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--scales", "20-18"}, {"--scales", "x"}, {"--scales", "40"},
		{"--ranks", "0"}, {"--kinds", "bfs,sssp"}, {"--roots", "0"},
	} {
		code, _, errOut := runCLI(t, append([]string{"bench", "memory", "--dir", t.TempDir()}, args...)...)
		if code != 2 || !strings.Contains(errOut, strings.TrimPrefix(args[0], "--")) {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}
