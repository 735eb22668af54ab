package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchWritesOnlyWhereAsked: without --dir a matrix prints its table
// and writes no file (no BENCHMARKS.md edited, no bench-out/ made in the
// current directory); with it, it writes the run JSON there.
func TestBenchWritesOnlyWhereAsked(t *testing.T) {
	clearJobEnv(t)
	cwd := t.TempDir()
	doc := writeFile(t, filepath.Join(cwd, "BENCHMARKS.md"), "# Benchmarks\n")
	t.Chdir(cwd)
	for _, args := range [][]string{
		{"bench", "transport", "--ranks", "2", "--sizes", "1Ki", "--min-time", "1ms"},
		{"bench", "allreduce-dense", "--ranks", "2", "--sizes", "10", "--repeat", "1"},
		{"bench", "transport", "--ranks", "2", "--sizes", "1Ki", "--min-time", "1ms", "--dir", ""},
	} {
		code, stdout, errOut := runCLI(t, args...)
		if code != 0 || !strings.Contains(stdout, "| 2 |") && !strings.Contains(stdout, "| 1 KiB |") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, errOut)
		}
	}
	entries, err := os.ReadDir(cwd)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(doc); len(entries) != 1 || string(data) != "# Benchmarks\n" {
		t.Fatalf("the current directory holds %d entries, BENCHMARKS.md %q; want it untouched and alone", len(entries), data)
	}
	if code, _, errOut := runCLI(t, "bench", "transport", "--ranks", "2", "--sizes", "1Ki", "--min-time", "1ms", "--dir", "out"); code != 0 {
		t.Fatalf("with --dir: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(cwd, "out", "summary.json")); err != nil {
		t.Error(err)
	}
	if code, _, errOut := runCLI(t, "bench", "transport", "--doc", "BENCHMARKS.md"); code != 2 || !strings.Contains(errOut, "unknown flag: --doc") {
		t.Errorf("--doc: exit %d, stderr %q", code, errOut)
	}
}
