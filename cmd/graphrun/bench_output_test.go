package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchWritesOnlyWhereAsked: without --dir and --doc a matrix prints
// its table and writes no file (no BENCHMARKS.md edited, no bench-out/
// made in the current directory); with them, it writes both.
func TestBenchWritesOnlyWhereAsked(t *testing.T) {
	clearJobEnv(t)
	cwd := t.TempDir()
	doc := writeFile(t, filepath.Join(cwd, "BENCHMARKS.md"), "# Benchmarks\n")
	t.Chdir(cwd)
	for _, args := range [][]string{
		{"bench", "transport", "--ranks", "2", "--sizes", "1Ki", "--min-time", "1ms"},
		{"bench", "allreduce-dense", "--ranks", "2", "--sizes", "10", "--repeat", "1"},
		{"bench", "transport", "--ranks", "2", "--sizes", "1Ki", "--min-time", "1ms", "--dir", "", "--doc", ""},
	} {
		code, stdout, errOut := runCLI(t, args...)
		if code != 0 || !strings.Contains(stdout, "| 2 |") && !strings.Contains(stdout, "| 1 KiB |") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, errOut)
		}
		if strings.Contains(errOut, "regenerated") {
			t.Errorf("%v: stderr says a table was regenerated: %q", args, errOut)
		}
	}
	entries, err := os.ReadDir(cwd)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(doc); len(entries) != 1 || string(data) != "# Benchmarks\n" {
		t.Fatalf("the current directory holds %d entries, BENCHMARKS.md %q; want it untouched and alone", len(entries), data)
	}
	code, _, errOut := runCLI(t, "bench", "transport", "--ranks", "2", "--sizes", "1Ki", "--min-time", "1ms", "--dir", "out", "--doc", "BENCHMARKS.md")
	if code != 0 || !strings.Contains(errOut, "table regenerated in BENCHMARKS.md") {
		t.Fatalf("with --dir and --doc: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(cwd, "out", "summary.json")); err != nil {
		t.Error(err)
	}
	if data, _ := os.ReadFile(doc); !strings.Contains(string(data), "<!-- bench:transport ranks=2 sizes=1Ki min-time=1ms -->") {
		t.Errorf("BENCHMARKS.md:\n%s", data)
	}
}

// benchDocHead is what newBenchDoc writes and every regeneration keeps.
const benchDocHead = "# Benchmarks\n\nkept\n"

// newBenchDoc makes a folder with a Markdown file holding benchDocHead,
// for a matrix's --doc; it returns the folder and the file.
func newBenchDoc(t *testing.T) (dir, doc string) {
	t.Helper()
	dir = t.TempDir()
	doc = filepath.Join(dir, "BENCH.md")
	writeFile(t, doc, benchDocHead)
	return dir, doc
}

// regenerated returns the text of doc after the matrices ran, failing
// unless it still starts with benchDocHead and holds each of once exactly
// once.
func regenerated(t *testing.T, doc string, once ...string) string {
	t.Helper()
	data := readFile(t, doc)
	text := string(data)
	if !strings.HasPrefix(text, benchDocHead) {
		t.Fatalf("the regenerated file lost its head:\n%s", text)
	}
	for _, want := range once {
		if strings.Count(text, want) != 1 {
			t.Errorf("want once %q in:\n%s", want, text)
		}
	}
	return text
}
