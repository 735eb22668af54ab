package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/bench"
)

// TestBenchMemory measures two tiny runs of each kind in child processes
// (this test binary acting as graphrun) and regenerates the table.
func TestBenchMemory(t *testing.T) {
	clearJobEnv(t)
	t.Setenv(asMain, "1") // the children run graphrun's main, not the tests
	dir := t.TempDir()
	doc := filepath.Join(dir, "BENCH.md")
	out := filepath.Join(dir, "out")
	stdout, _ := mustRun(t, "bench", "memory", "--scales", "10", "--ranks", "1,2", "--roots", "2", "--dir", out, "--doc", doc)
	for _, row := range []string{"| bfs | 10 | 1 |", "| bfs | 10 | 2 |", "| bfs-2d | 10 | 2 |", "| pagerank | 10 | 1 |"} {
		if !strings.Contains(stdout, row) {
			t.Errorf("no row %q in\n%s", row, stdout)
		}
	}
	var summary struct {
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
	text, err := os.ReadFile(doc)
	if err != nil || !strings.Contains(string(text), "<!-- bench:memory scales=10 ranks=1,2 kinds=bfs,bfs-2d,pagerank roots=2 -->") {
		t.Fatalf("doc: %v\n%s", err, text)
	}
}

func TestBenchMemoryBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--scales", "20-18"}, {"--scales", "x"}, {"--scales", "40"},
		{"--ranks", "0"}, {"--kinds", "bfs,sssp"}, {"--roots", "0"},
	} {
		code, _, errOut := runCLI(t, append([]string{"bench", "memory", "--doc", "", "--dir", t.TempDir()}, args...)...)
		if code != 2 || !strings.Contains(errOut, strings.TrimPrefix(args[0], "--")) {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}
