package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchPageRankAllreduce: the matrix runs direct, binary and kylix on the
// same graph, reports the butterflies' fewer messages, and regenerates its
// table in place.
func TestBenchPageRankAllreduce(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "B.md")
	for range 2 {
		code, out, errOut := runCLI(t, "bench", "pagerank-allreduce", "--scale", "8", "--ranks", "8", "--iterations", "2",
			"--dir", filepath.Join(dir, "out"), "--doc", doc)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 5 || !strings.HasPrefix(lines[2], "| direct 8 | 112 | 1.000 |") || !strings.HasPrefix(lines[3], "| binary 2x2x2 | 48 | 0.429 |") {
			t.Fatalf("table:\n%s", out)
		}
	}
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "<!-- bench:pagerank-allreduce scale=8 ranks=8 iterations=2 -->"); n != 1 {
		t.Fatalf("%d copies of the table:\n%s", n, data)
	}
	if code, _, errOut := runCLI(t, "bench", "pagerank-allreduce", "--input", filepath.Join(dir, "missing.el")); code != 2 || !strings.Contains(errOut, "--input") {
		t.Fatalf("missing input: exit %d, %q", code, errOut)
	}
}
