package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFileNamesCannotForgeLines: a file name with a newline and an escape
// code ($'g\ngraphrun: forged\e[2J.el') is shown quoted in every message
// that names an input or output path — a reader's error, a summary, a
// "wrote" line, an output refused — so that it never starts a forged
// "graphrun:" line nor clears the screen.
func TestFileNamesCannotForgeLines(t *testing.T) {
	dir := t.TempDir()
	forged := filepath.Join(dir, "g\ngraphrun: forged\x1b[2J")
	good := writeFile(t, filepath.Join(dir, "good.el"), "0 1\n1 2\n2 0\n")
	writeFile(t, forged+".el", "0 1\n1 2\n")
	writeFile(t, forged+"-bad.el", "0 1\nx y\n")
	json := filepath.Join(dir, "run.json")
	mustRun(t, "pagerank", good, "--json", json)
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		quiet bool // no message names the path
	}{
		{"bfs reader error", []string{"bfs", forged + "-bad.el"}, 2, false},
		{"pagerank reader error", []string{"pagerank", forged + "-bad.el"}, 2, false},
		{"pagerank summary", []string{"pagerank", forged + ".el"}, 0, false},
		{"pagerank --out", []string{"pagerank", good, "--out", forged + ".txt"}, 0, true},
		{"convert wrote", []string{"convert", good, "-o", forged + ".grb"}, 0, false},
		{"generate wrote", []string{"generate", "--scale", "4", "-o", forged + "-kron.el"}, 0, false},
		{"output refused", []string{"pagerank", good, "--out=" + filepath.Join(forged+"-missing", "x.txt")}, 2, false},
		{"output is the input", []string{"pagerank", forged + ".el", "--out", forged + ".el"}, 2, false},
		{"report wrote", []string{"report", json, "-o", forged + ".html"}, 0, false},
		{"missing input", []string{"bfs", forged + "-missing.el"}, 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout %q\nstderr %q", code, c.code, stdout, stderr)
			}
			named := false
			for _, out := range []string{stdout, stderr} {
				for _, line := range strings.Split(out, "\n") {
					if strings.HasPrefix(line, "graphrun: forged") || strings.Contains(line, "\x1b") {
						t.Errorf("forged line %q", line)
					}
				}
				named = named || strings.Contains(out, `graphrun: forged\x1b[2J`)
			}
			if !named && !c.quiet {
				t.Errorf("no message names the file quoted:\nstdout %q\nstderr %q", stdout, stderr)
			}
		})
	}
}
