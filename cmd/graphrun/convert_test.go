package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// reachedLevels returns the "vertex level" pairs of a tree's reached
// vertices, sorted.
func reachedLevels(tree string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(tree), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[2] != "-1" {
			out = append(out, f[0]+" "+f[2])
		}
	}
	sort.Strings(out)
	return out
}

// TestConvertCLI checks convert on the Slashdot file and a
// generated Kronecker list: graphrun convert to .grb, then bfs on it, gives
// the text run's tree; generate -o x.grb gives the same graph; a .grb
// converts back to an edge list with the file's ids.
func TestConvertCLI(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	slashdot := filepath.Join(sharedData(t), "soc-Slashdot0902.txt.gz")
	kel, kgrb, kgen := filepath.Join(dir, "k.el"), filepath.Join(dir, "k.grb"), filepath.Join(dir, "kgen.grb")
	for _, args := range [][]string{
		{"generate", "--scale", "11", "-o", kel},
		{"generate", "--scale", "11", "-o", kgen},
		{"convert", kel, "-o", kgrb},
	} {
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	sgrb := filepath.Join(dir, "s.grb")
	if code, _, errOut := runCLI(t, "convert", slashdot, "-o", sgrb); code != 0 || !strings.Contains(errOut, "82168 vertices and 948464 tuples") {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	for _, c := range []struct{ text, bin, root string }{{slashdot, sgrb, "0"}, {kel, kgrb, "1"}, {kel, kgen, "1"}} {
		want := bfsTree(t, nil, c.text, "--root", c.root, "--ranks", "3")
		if got := bfsTree(t, nil, c.bin, "--root", c.root, "--ranks", "4", "--exchange", "packed"); got != want {
			t.Errorf("%s: the tree differs from %s's", c.bin, c.text)
		}
	}
	// And back: a .grb of a Matrix Market file keeps the 1-based ids.
	mtx := writeFile(t, filepath.Join(dir, "g.mtx"), "%%MatrixMarket matrix coordinate pattern general\n9 9 2\n9 1\n1 5\n")
	mgrb, mel := filepath.Join(dir, "m.grb"), filepath.Join(dir, "m.el")
	for _, args := range [][]string{{"convert", mtx, "-o", mgrb}, {"convert", mgrb, "-o", mel}} {
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	if got, _ := os.ReadFile(mel); string(got) != "9 1\n1 5\n" {
		t.Errorf("m.el holds %q", got)
	}
	if a, b := bfsTree(t, nil, mtx, "--root", "9"), bfsTree(t, nil, mgrb, "--root", "9"); a != b || !strings.HasPrefix(a, "1 9 1\n") {
		t.Errorf("Matrix Market tree %q, its .grb's %q", a, b)
	}
}

// TestBFSGapbsSerialized checks gapbs's format: the .sg files gapbs's
// converter made (graph/edgelist/testdata/gapbs) give the BFS levels of the text
// they came from.
func TestBFSGapbsSerialized(t *testing.T) {
	dir := filepath.Join("..", "..", "graph", "edgelist", "testdata", "gapbs")
	want := reachedLevels(bfsTree(t, nil, filepath.Join(dir, "small.el"), "--root", "11"))
	for _, name := range []string{"small.sg", "small-directed.sg", "small.wsg"} {
		if got := reachedLevels(bfsTree(t, nil, filepath.Join(dir, name), "--root", "11", "--ranks", "3")); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: levels %v, the text's %v", name, got, want)
		}
	}
}

// TestConvertCLIErrors checks convert's exit-2 errors.
func TestConvertCLIErrors(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "g.txt"), filepath.Join(dir, "bad.txt")
	corrupt := filepath.Join(dir, "c.grb")
	for p, data := range map[string]string{good: "1 2\n", bad: "1 2\n3\n", corrupt: "GRUNGRPH and more"} {
		writeFile(t, p, data)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{good}, "--out: an output file is required"},
		{[]string{good, "-o", filepath.Join(dir, "x.csv")}, "--to: cannot write \"csv\""},
		{[]string{bad, "-o", filepath.Join(dir, "x.grb")}, bad + ":2: want 2 columns"},
		{[]string{corrupt, "-o", filepath.Join(dir, "x.el")}, corrupt + ": offset"},
		{[]string{"-", "-o", filepath.Join(dir, "x.grb")}, "--format: - is read as a stream"},
		{[]string{good, "-o", good, "--to", "el"}, "--out"}, {[]string{good, "--output", good, "--to", "el"}, "--output"},
	} {
		code, _, errOut := runCLI(t, append([]string{"convert"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("convert %v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.grb")); err == nil {
		t.Error("a failed convert left its output")
	}
	code, _, errOut := runCLI(t, "bfs", corrupt)
	if code != 2 || !strings.Contains(errOut, "bad magic") && !strings.Contains(errOut, "offset") {
		t.Errorf("bfs on a corrupt .grb: exit %d, %s", code, errOut)
	}
}

// TestConvertStreamInputs: convert opens a named FIFO and a pipe given as
// /dev/fd/N (what a shell's <(…) passes) by their paths, not its own
// standard input; /dev/zero and an empty input are errors (exit 2), and a
// graph of self-loops only is a usage error for bfs.
func TestConvertStreamInputs(t *testing.T) {
	dir := t.TempDir()
	const edges = "1 2\n2 3\n"
	fifo := filepath.Join(dir, "in.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() { _ = os.WriteFile(fifo, []byte(edges), 0o600) }()
	out := filepath.Join(dir, "fifo.el")
	if code, _, stderr := runCLI(t, "convert", fifo, "--format", "snap", "-o", out); code != 0 || string(readFile(t, out)) != edges {
		t.Fatalf("convert FIFO: exit %d, %q; stderr %s", code, readFile(t, out), stderr)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() { _, _ = w.WriteString(edges); w.Close() }()
	out = filepath.Join(dir, "pipe.el")
	if code, _, stderr := runCLI(t, "convert", fmt.Sprintf("/dev/fd/%d", r.Fd()), "--format", "snap", "-o", out); code != 0 || string(readFile(t, out)) != edges {
		t.Fatalf("convert /dev/fd/N: exit %d; stderr %s", code, stderr)
	}

	empty := writeFile(t, filepath.Join(dir, "empty.txt"), "")
	for _, in := range []string{"/dev/zero", empty} {
		code, _, stderr := runCLI(t, "convert", in, "--format", "snap", "-o", filepath.Join(dir, "x.grb"))
		if code != 2 || !strings.Contains(stderr, in) {
			t.Errorf("convert %s: exit %d, stderr %q; want exit 2 naming it", in, code, stderr)
		}
	}
	assertEntries(t, dir, "in.fifo", "fifo.el", "pipe.el", "empty.txt")

	loops := writeFile(t, filepath.Join(dir, "loops.txt"), "1 1\n2 2\n")
	if code, _, stderr := runCLI(t, "bfs", loops); code != 2 || !strings.Contains(stderr, "no vertex of degree") {
		t.Errorf("bfs on self-loops only: exit %d, stderr %q; want exit 2", code, stderr)
	}
}

// TestCorruptGRBBlamesTheFile: a .grb whose header is corrupt is the
// file's error (exit 2, naming it), not --format's, which was not given.
func TestCorruptGRBBlamesTheFile(t *testing.T) {
	dir := t.TempDir()
	g := writeFile(t, filepath.Join(dir, "g.txt"), "1 2\n2 3\n3 1\n")
	grb := filepath.Join(dir, "g.grb")
	mustRun(t, "convert", g, "-o", grb)
	data := readFile(t, grb)
	data[20] ^= 0xff // inside the header: its checksum no longer matches
	writeFile(t, grb, string(data))
	for _, command := range []string{"bfs", "pagerank"} {
		code, _, stderr := runCLI(t, command, grb)
		if code != 2 || strings.Contains(stderr, "--format") || !strings.Contains(stderr, "g.grb") {
			t.Errorf("%s on a corrupt .grb: exit %d, stderr %q; want exit 2 naming the file, not --format", command, code, stderr)
		}
	}
}
