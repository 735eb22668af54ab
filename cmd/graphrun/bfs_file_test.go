package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bfsTree runs graphrun bfs (the test binary as graphrun, in a process of
// its own) with stdin and returns the --out tree it wrote.
func bfsTree(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	return treeOut(t, stdin, "bfs", args...)
}

// treeOut runs graphrun command (bfs or sssp) with args and --out, stdin
// as its standard input, in a child process, and returns the tree file.
func treeOut(t *testing.T, stdin []byte, command string, args ...string) string {
	t.Helper()
	clearJobEnv(t) // the child acts as graphrun, not as the test binary
	outPath := filepath.Join(t.TempDir(), "t.txt")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{command, "--out", outPath}, args...)...)
	var se bytes.Buffer
	cmd.Stdin, cmd.Stderr = bytes.NewReader(stdin), &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", command, args, err, se.String())
	}
	data := readFile(t, outPath)
	return string(data)
}

// TestBFSFileCLIStdin is the pipe check: `zcat FILE.gz | graphrun
// bfs - --format snap --root R --out t.txt` writes the file run's tree, on
// in-process ranks and on processes whose rank 0 reads the launcher's
// standard input.
func TestBFSFileCLIStdin(t *testing.T) {
	clearJobEnv(t)
	file := filepath.Join(sharedData(t), "soc-Slashdot0902.txt.gz")
	gz := readFile(t, file)
	var plain bytes.Buffer
	zcat := exec.Command("gzip", "-dc")
	zcat.Stdin, zcat.Stdout = bytes.NewReader(gz), &plain
	if err := zcat.Run(); err != nil {
		t.Skipf("no gzip: %v", err)
	}
	want := bfsTree(t, nil, file, "--root", "0")
	if !strings.HasPrefix(want, "0 0 0\n") || strings.Count(want, "\n") != 82168 {
		t.Fatalf("the file's tree starts %.40q and has %d lines", want, strings.Count(want, "\n"))
	}
	for _, ranks := range [][]string{{"--ranks", "3"}, {"--procs", "2"}} {
		got := bfsTree(t, plain.Bytes(), append([]string{"-", "--format", "snap", "--root", "0"}, ranks...)...)
		if got != want {
			t.Errorf("%v: standard input's tree differs from the file's", ranks)
		}
	}
	if got := bfsTree(t, gz, "-", "--format", "snap.gz", "--root", "0", "--ranks", "2"); got != want {
		t.Error("gzipped standard input's tree differs from the file's")
	}
}

// TestBFSFileCLI runs bfs on a Matrix Market file: the tree keeps the
// file's 1-based ids, the JSON names the input, and the 64-key run
// validates.
func TestBFSFileCLI(t *testing.T) {
	dir := t.TempDir()
	mtx := filepath.Join(dir, "g.mtx")
	// A path 1-2-3 and a triangle 5-6-7, symmetric, 1-based.
	data := "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n7 7 5\n2 1\n3 2\n6 5\n7 6\n7 5\n"
	writeFile(t, mtx, data)
	tree := filepath.Join(dir, "t.txt")
	js := filepath.Join(dir, "run.json")
	out, errOut := mustRun(t, "bfs", mtx, "--root", "1", "--out", tree, "--json", js, "--ranks", "2", "--partition", "2d")
	if !strings.Contains(out, "NBFS:                           1\n") {
		t.Errorf("no Graph500 block:\n%s", out)
	}
	got := readFile(t, tree)
	if want := "1 1 0\n2 1 1\n3 2 2\n5 -1 -1\n6 -1 -1\n7 -1 -1\n"; string(got) != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}
	var doc struct {
		Input    string `json:"input"`
		Vertices int64  `json:"vertices"`
		Tuples   int64  `json:"tuples"`
	}
	if readJSONFile(t, js, &doc); doc.Input != mtx || doc.Vertices != 6 || doc.Tuples != 5 { // one tuple per entry
		t.Errorf("JSON input %+v", doc)
	}
	code, out, errOut := runCLI(t, "bfs", mtx, "--ranks", "3", "--exchange", "packed")
	if code != 0 || !strings.Contains(out, "NBFS:                           6\n") || !strings.Contains(errOut, "only 6 vertices have degree") {
		t.Errorf("sampled run: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestBFSFileCLIBlocksPerRank: --blocks-per-rank on a file, in-process and
// in processes, with either placement, writes the 1D tree.
func TestBFSFileCLIBlocksPerRank(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	mtx := filepath.Join(dir, "g.mtx")
	data := "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n7 7 6\n2 1\n3 2\n6 5\n7 6\n7 5\n4 3\n"
	writeFile(t, mtx, data)
	want := filepath.Join(dir, "want.txt")
	mustRun(t, "bfs", mtx, "--root", "2", "--out", want)
	wantTree := readFile(t, want)
	for _, extra := range [][]string{
		{"--ranks", "2", "--blocks-per-rank", "2"},
		{"--ranks", "3", "--blocks-per-rank", "4", "--placement", "round-robin"},
		{"--procs", "2", "--blocks-per-rank", "2"},
	} {
		got := filepath.Join(dir, "got.txt")
		args := append([]string{"bfs", mtx, "--root", "2", "--partition", "2d", "--out", got}, extra...)
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if tree := readFile(t, got); !bytes.Equal(tree, wantTree) {
			t.Fatalf("%v: tree\n%s\nwant\n%s", args, tree, wantTree)
		}
	}
}

// TestBFSFileCLIErrors checks that bad input exits with status 2 and a
// message naming the flag or file:line, as for pagerank.
func TestBFSFileCLIErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	good := filepath.Join(dir, "g.el")
	empty := filepath.Join(dir, "empty.txt")
	for p, data := range map[string]string{bad: "1 2\n3 x\n", good: "10 20\n20 30\n", empty: "# none\n"} {
		writeFile(t, p, data)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{bad, "--ranks", "2"}, bad + ":2: bad vertex id \"x\""},
		{[]string{filepath.Join(dir, "missing.txt")}, "no such file"},
		{[]string{empty}, empty + ": no edges"},
		{[]string{good, "--root", "5"}, "root 5 is not a vertex of " + good},
		{[]string{good, "--root", "-3"}, "--root: -3 is negative"},
		{[]string{good, "--scale", "10"}, "--scale: chooses a Kronecker graph"},
		{[]string{"--scale", "10", "--format", "snap"}, "--format: needs an edge list FILE"},
		{[]string{good, "--format", "csv"}, "--format: unknown edge format"},
		{[]string{"-"}, "--format: - is read as a stream"},
		{[]string{good, "--out", good, "--root", "10"}, "--out"},
		{[]string{good, "x.txt"}, "accepts at most 1 arg"},
	} {
		code, _, errOut := runCLI(t, append([]string{"bfs"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("bfs %v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestBFSKroneckerIsolatedRoot checks that a root without edges warns:
// its TEPS is 0, never silently.
func TestBFSKroneckerIsolatedRoot(t *testing.T) {
	out, errOut := mustRun(t, "bfs", "--scale", "10", "--root", "0")
	if !strings.Contains(out, "harmonic_mean_TEPS:     !  0\n") || !strings.Contains(errOut, "warning: root 0 has no edges") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

// TestBFSFileCLIDirected runs --directed: out-edges only, the tree in the
// file's ids, on in-process ranks and processes alike; the flags it
// cannot combine with exit 2.
func TestBFSFileCLIDirected(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "d.txt"), "10 20\n20 30\n40 10\n")
	want := "10 10 0\n20 10 1\n30 20 2\n40 -1 -1\n"
	for _, ranks := range [][]string{{"--ranks", "2"}, {"--procs", "2"}} {
		if got := bfsTree(t, nil, append([]string{path, "--directed", "--root", "10"}, ranks...)...); got != want {
			t.Errorf("%v: tree %q, want %q", ranks, got, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{path, "--directed", "--partition", "2d"}, "--partition: cannot be combined with --directed"},
		{[]string{path, "--directed", "--exchange", "packed"}, "--exchange: cannot be combined with --directed"},
		{[]string{"--directed", "--scale", "5"}, "--directed: needs an edge list FILE"},
	} {
		code, _, errOut := runCLI(t, append([]string{"bfs"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("bfs %v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
