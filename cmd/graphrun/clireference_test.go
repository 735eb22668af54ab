package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// update rewrites docs/cli and docs/man from the commands:
// go test ./cmd/graphrun -run TestCLIReference -update
var update = flag.Bool("update", false, "rewrite docs/cli and docs/man from graphrun's commands")

// manDate is the date in the man pages' header: fixed, so that the pages
// change only when the commands do.
var manDate = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// writeCLIReference writes the markdown reference of graphrun's commands
// into dir/cli and their man pages into dir/man (github.com/spf13/cobra/doc).
func writeCLIReference(t *testing.T, dir string) {
	t.Helper()
	root := newRootCommand(io.Discard, io.Discard, &profileFlags{})
	var noTag func(*cobra.Command)
	noTag = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			noTag(sub)
		}
	}
	noTag(root)
	md, man := filepath.Join(dir, "cli"), filepath.Join(dir, "man")
	for _, d := range []string{md, man} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := doc.GenMarkdownTree(root, md); err != nil {
		t.Fatal(err)
	}
	header := &doc.GenManHeader{Title: "GRAPHRUN", Section: "1", Source: "graphrun " + releaseVersion, Manual: "graphrun manual", Date: &manDate}
	if err := doc.GenManTree(root, header, man); err != nil {
		t.Fatal(err)
	}
}

// referenceFiles are the files of the reference under dir: name → content.
func referenceFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, pattern := range []string{"cli/*.md", "man/*.1"} {
		names, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			rel, err := filepath.Rel(dir, name)
			if err != nil {
				t.Fatal(err)
			}
			files[rel] = readFile(t, name)
		}
	}
	return files
}

// TestCLIReference: docs/cli (markdown) and docs/man (man pages) are what
// github.com/spf13/cobra/doc generates from graphrun's commands; -update
// rewrites them.
func TestCLIReference(t *testing.T) {
	docs := filepath.Join("..", "..", "docs")
	if *update {
		for name := range referenceFiles(t, docs) {
			if err := os.Remove(filepath.Join(docs, name)); err != nil {
				t.Fatal(err)
			}
		}
		writeCLIReference(t, docs)
		return
	}
	dir := t.TempDir()
	writeCLIReference(t, dir)
	want, got := referenceFiles(t, dir), referenceFiles(t, docs)
	var names []string
	for name := range want {
		names = append(names, name)
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		w, inWant := want[name]
		g, inGot := got[name]
		switch {
		case !inGot:
			t.Errorf("docs/%s is missing (go test ./cmd/graphrun -run TestCLIReference -update)", name)
		case !inWant:
			t.Errorf("docs/%s is no command's (go test ./cmd/graphrun -run TestCLIReference -update)", name)
		case !bytes.Equal(w, g):
			t.Errorf("docs/%s differs from the commands (go test ./cmd/graphrun -run TestCLIReference -update)", name)
		}
	}
}
