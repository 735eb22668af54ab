package main

import (
	"strings"
	"testing"
)

// TestWording: counts agree in number ("1 rank"), a one-rank PageRank says
// it reduces nothing rather than "kylix 1 allreduce", the top-k column is a
// position, not a rank, and help texts fit their command.
func TestWording(t *testing.T) {
	out, _ := mustRun(t, "pagerank", "--kron", "6", "--iterations", "2", "--top", "2")
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[0], ", 1 rank, no allreduce, random-edge partition") || strings.Contains(out, "1 ranks") {
		t.Errorf("summary line %q", lines[0])
	}
	if f := strings.Fields(lines[1]); len(f) != 3 || f[0] != "#" || f[1] != "vertex" {
		t.Errorf("top-k header %q", lines[1])
	}
	if _, out, _ := runCLI(t, "pagerank", "--kron", "6", "--iterations", "2", "--ranks", "4"); !strings.Contains(out, ", 4 ranks, kylix 2x2 allreduce,") {
		t.Errorf("4-rank summary %q", strings.SplitN(out, "\n", 2)[0])
	}
	_, help, _ := runCLI(t, "--help")
	if !strings.Contains(help, "goroutines per rank (default: CPUs / ranks, at least 1);") || !strings.Contains(help, "generate: in all") {
		t.Errorf("--threads help: %q", help)
	}
	if strings.Contains(help, "Micro-benchmarks") || !strings.Contains(help, "Benchmark matrices") {
		t.Errorf("bench's description: %q", help)
	}
}
