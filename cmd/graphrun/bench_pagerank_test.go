package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchPageRankAllreduce: the matrix runs direct, binary and kylix on the
// same graph, reports the butterflies' fewer messages, and prints its
// table with its note.
func TestBenchPageRankAllreduce(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "bench", "pagerank-allreduce", "--scale", "8", "--ranks", "8", "--iterations", "2",
		"--dir", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := tableLines(out)
	if len(lines) != 5 || !strings.HasPrefix(lines[2], "| direct 8 | 112 | 1.000 |") || !strings.HasPrefix(lines[3], "| binary 2x2x2 | 48 | 0.429 |") ||
		!strings.Contains(out, "Per iteration, all ranks; Kronecker scale 8, in-process ranks.") {
		t.Fatalf("table:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "bench", "pagerank-allreduce", "--input", filepath.Join(dir, "missing.el")); code != 2 || !strings.Contains(errOut, "--input") {
		t.Fatalf("missing input: exit %d, %q", code, errOut)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"--degrees", "3x3"}}, {[]string{"--degrees", "auto"}}, {[]string{"--degrees", "4x2,"}},
		{[]string{"--dir", writeFile(t, filepath.Join(dir, "file"), "")}}, {[]string{"--procs", "2"}},
	} {
		args := append([]string{"bench", "pagerank-allreduce", "--scale", "8", "--ranks", "8", "--dir", filepath.Join(dir, "bad")}, c.args...)
		if code, _, errOut := runCLI(t, args...); code != 2 || !strings.HasPrefix(errOut, "graphrun: "+c.args[0]+": ") {
			t.Errorf("%v: exit %d, %q; want 2 naming %s", c.args, code, errOut, c.args[0])
		}
	}
}

// TestBenchPageRankDegrees: --degrees adds kylix runs on the given networks
// to the matrix, named in its key.
func TestBenchPageRankDegrees(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, errOut := runCLI(t, "bench", "pagerank-allreduce", "--scale", "8", "--ranks", "8", "--iterations", "2", "--degrees", "4x2, 2X4",
		"--dir", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := tableLines(stdout)
	if len(lines) != 7 || !strings.HasPrefix(lines[5], "| kylix 4x2 | 64 | 0.571 |") || !strings.HasPrefix(lines[6], "| kylix 2x4 | ") || !strings.Contains(errOut, "[5/5]") {
		t.Fatalf("table:\n%s\nstderr:\n%s", stdout, errOut)
	}
	var summary struct {
		Key, Command string
	}
	readJSONFile(t, filepath.Join(out, "summary.json"), &summary)
	if summary.Key != "pagerank-allreduce scale=8 ranks=8 iterations=2 degrees=4x2,2x4" ||
		summary.Command != "graphrun bench pagerank-allreduce --scale 8 --ranks 8 --iterations 2 --degrees 4x2,2x4" {
		t.Errorf("summary %+v", summary)
	}
	for _, f := range []string{"summary.json", "pagerank-allreduce-p8-04-kylix-4x2.json", "pagerank-allreduce-p8-05-kylix-2x4.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBenchPageRankSpeed: the pagerank matrix runs every graph on every
// rank count, one row each, the first row of a graph as its ratio's base,
// writes one JSON per run and prints its table; bad flags exit 2 naming
// the flag.
func TestBenchPageRankSpeed(t *testing.T) {
	t.Setenv(asMain, "1") // the children run graphrun's main, not the tests
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	input := writeEdges(t, "1 2\n2 3\n3 1\n3 4\n")
	code, stdout, errOut := runCLI(t, "bench", "pagerank", "--inputs", input, "--scales", "8", "--ranks", "2", "--iterations", "3",
		"--dir", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := tableLines(stdout)
	if len(lines) != 6 || !strings.HasPrefix(lines[2], "| g.txt | 4 | 1 × ") || !strings.Contains(lines[2], "| 1.00 |") ||
		!strings.HasPrefix(lines[3], "| g.txt | 4 | 2 × ") || !strings.HasPrefix(lines[4], "| Kronecker 8, symmetric | ") ||
		!strings.Contains(lines[4], "| 1.00 |") {
		t.Fatalf("table:\n%s", stdout)
	}
	var summary struct{ Key string }
	readJSONFile(t, filepath.Join(out, "summary.json"), &summary)
	if summary.Key != "pagerank inputs=g.txt scales=8 ranks=2 iterations=3" {
		t.Errorf("summary key %q", summary.Key)
	}
	for _, f := range []string{"summary.json", "pagerank-g-txt-p1.json", "pagerank-g-txt-p2.json", "pagerank-kron8-p1.json", "pagerank-kron8-p2.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range [][]string{
		{"--inputs", filepath.Join(dir, "missing.el")}, {"--scales", "0"}, {"--scales", "x"}, {"--ranks", "0"},
		{"--iterations", "0"}, {"--dir", writeFile(t, filepath.Join(dir, "file"), "")},
	} {
		args := append([]string{"bench", "pagerank", "--scales", "8", "--dir", filepath.Join(dir, "bad")}, c...)
		if code, _, errOut := runCLI(t, args...); code != 2 || !strings.HasPrefix(errOut, "graphrun: "+c[0]+": ") {
			t.Errorf("%v: exit %d, %q; want 2 naming %s", c, code, errOut, c[0])
		}
	}
	if code, _, errOut := runCLI(t, "bench", "pagerank", "--scales", "", "--dir", filepath.Join(dir, "bad")); code != 2 || !strings.Contains(errOut, "no graph") {
		t.Errorf("no graph: exit %d, %q", code, errOut)
	}
}

// tableLines are the lines of a bench's output that belong to its
// Markdown table (those starting with "|"), without the note after it.
func tableLines(out string) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "|") {
			lines = append(lines, line)
		}
	}
	return lines
}
