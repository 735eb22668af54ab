package main

// graphrun sssp FILE end to end: the distances of --root/--out against
// NetworkX's on the golden weighted graph (as .wel, gzipped, Matrix Market
// and a stream, on in-process ranks and processes), a gapbs .wsg against a
// Dijkstra of this test, unit weights against bfs's levels, and the
// refusals (no weights, bad weights, bad flags) with exit 2 and no output.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// ssspLine is a line "vertex parent distance" of sssp --out.
type ssspLine struct {
	parent int64
	dist   float32
}

// parseSSSPTree parses sssp --out text into its lines by vertex; every
// distance must read back as a float32 ("-1" unreached).
func parseSSSPTree(t *testing.T, text string) map[int64]ssspLine {
	t.Helper()
	out := map[int64]ssspLine{}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		f := strings.Split(line, " ")
		if len(f) != 3 {
			t.Fatalf("tree line %q: want \"vertex parent distance\"", line)
		}
		v, err1 := strconv.ParseInt(f[0], 10, 64)
		p, err2 := strconv.ParseInt(f[1], 10, 64)
		d, err3 := strconv.ParseFloat(f[2], 32)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("tree line %q", line)
		}
		if _, dup := out[v]; dup {
			t.Fatalf("vertex %d twice", v)
		}
		out[v] = ssspLine{p, float32(d)}
	}
	return out
}

// checkSSSPTree checks a tree against the distances want (absent:
// unreached) over edges with weights (the smallest per pair counts), ids
// shifted by offset: every distance is want's, exactly; an unreached
// vertex reads "-1 -1"; the root is its own parent at 0, and every other
// parent is joined to its vertex by an edge on a shortest path.
func checkSSSPTree(t *testing.T, name string, tree map[int64]ssspLine, want map[int64]float32, minW map[[2]int64]float32, root int64) {
	t.Helper()
	for v, l := range tree {
		d, reached := want[v]
		switch {
		case !reached && (l.parent != -1 || l.dist != -1):
			t.Fatalf("%s: unreached vertex %d reads %+v", name, v, l)
		case !reached:
		case l.dist != d:
			t.Fatalf("%s: vertex %d at %v, want %v", name, v, l.dist, d)
		case v == root && (l.parent != root || l.dist != 0):
			t.Fatalf("%s: root %+v", name, l)
		case v != root:
			w, edge := minW[[2]int64{l.parent, v}]
			if !edge || tree[l.parent].dist+w != l.dist {
				t.Fatalf("%s: vertex %d at %v has parent %d at %v, edge %v (%v)", name, v, l.dist, l.parent, tree[l.parent].dist, w, edge)
			}
		}
	}
	for v := range want {
		if _, ok := tree[v]; !ok {
			t.Fatalf("%s: reached vertex %d has no line", name, v)
		}
	}
}

// weightsOf reads a weighted file and returns the smallest weight of each
// ordered pair, both directions, ids shifted by offset.
func weightsOf(t *testing.T, path string, offset int64) map[[2]int64]float32 {
	t.Helper()
	ef, err := edgelist.ReadWeightedEdges(path, "")
	if err != nil {
		t.Fatal(err)
	}
	minW := map[[2]int64]float32{}
	for i, e := range ef.Edges {
		u, v, w := e.U+offset, e.V+offset, ef.Weights[i]
		for _, k := range [][2]int64{{u, v}, {v, u}} {
			if x, ok := minW[k]; !ok || w < x {
				minW[k] = w
			}
		}
	}
	return minW
}

// TestSSSPFileEqualsNetworkX: sssp on the golden weighted graph from the
// source of its NetworkX reference writes NetworkX's distances, exactly
// (weights k/1024 sum exactly), as .wel, .wel.gz, a real Matrix Market
// file (1-based ids) and standard input, on 1 to 3 in-process ranks and 2
// processes.
func TestSSSPFileEqualsNetworkX(t *testing.T) {
	wel := testgraph.GoldenFile("weighted.wel")
	want := map[int64]float32{}
	var root int64 = -1
	for _, line := range strings.Split(string(readFile(t, wel+".sssp.txt")), "\n") {
		if strings.HasPrefix(line, "# source ") {
			fmt.Sscanf(line, "# source %d", &root)
			continue
		}
		var v int64
		var d float64
		if n, _ := fmt.Sscanf(line, "%d %g", &v, &d); n == 2 {
			want[v] = float32(d)
		}
	}
	if root < 0 || len(want) < 100 {
		t.Fatalf("reference: source %d, %d distances", root, len(want))
	}
	text := readFile(t, wel)
	dir := t.TempDir()
	gz := filepath.Join(dir, "w.wel.gz")
	if err := os.WriteFile(gz, gzipData(t, text), 0o644); err != nil {
		t.Fatal(err)
	}
	var mtx strings.Builder
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	fmt.Fprintf(&mtx, "%%%%MatrixMarket matrix coordinate real general\n%% the golden graph, 1-based\n256 256 %d\n", len(lines))
	for _, l := range lines {
		var u, v int64
		var w string
		fmt.Sscanf(l, "%d %d %s", &u, &v, &w)
		fmt.Fprintf(&mtx, "%d %d %s\n", u+1, v+1, w)
	}
	mm := writeFile(t, filepath.Join(dir, "w.mtx"), mtx.String())
	minW := weightsOf(t, wel, 0)
	for _, c := range []struct {
		stdin []byte
		args  []string
	}{
		{nil, []string{wel, "--ranks", "1"}},
		{nil, []string{wel, "--ranks", "3"}},
		{nil, []string{gz, "--ranks", "2"}},
		{nil, []string{wel, "--procs", "2"}},
		{text, []string{"-", "--format", "wel", "--ranks", "2"}},
	} {
		tree := parseSSSPTree(t, treeOut(t, c.stdin, "sssp", append(c.args, "--root", strconv.FormatInt(root, 10))...))
		checkSSSPTree(t, strings.Join(c.args, " "), tree, want, minW, root)
	}
	// Matrix Market: the same distances under the file's 1-based ids.
	want1 := map[int64]float32{}
	for v, d := range want {
		want1[v+1] = d
	}
	tree := parseSSSPTree(t, treeOut(t, nil, "sssp", mm, "--ranks", "2", "--root", strconv.FormatInt(root+1, 10)))
	checkSSSPTree(t, "mtx", tree, want1, weightsOf(t, mm, 1), root+1)
}

// TestSSSPFileRun: sssp on a weighted file makes the Graph500 run of both
// kernels from the same sampled keys, every search validated, the JSON
// naming the file.
func TestSSSPFileRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	mustRun(t, "sssp", testgraph.GoldenFile("weighted.wel"), "--ranks", "2", "--roots", "6", "--json", path)
	run := readRun(t, path)
	if run.SSSP == nil || len(run.SSSP.Searches) != 6 || !run.Validated() || !strings.HasSuffix(run.Input, "weighted.wel") {
		t.Fatalf("run: input %q, sssp %+v", run.Input, run.SSSP)
	}
	for i, x := range run.SSSP.Searches {
		if x.Root != run.Searches[i].Root || x.NEdge != run.Searches[i].NEdge || !x.Validated {
			t.Errorf("search %d: sssp %+v, bfs root %d nedge %d", i, x.Search, run.Searches[i].Root, run.Searches[i].NEdge)
		}
	}
}

// TestSSSPFileWSG: sssp on gapbs's weighted small.wsg (integer weights)
// writes a serial Dijkstra's distances (testgraph.Dijkstra).
func TestSSSPFileWSG(t *testing.T) {
	wsg := filepath.Join("..", "..", "graph", "edgelist", "testdata", "gapbs", "small.wsg")
	minW := weightsOf(t, wsg, 0)
	const root = 11
	tree := parseSSSPTree(t, treeOut(t, nil, "sssp", wsg, "--ranks", "3", "--root", strconv.Itoa(root)))
	checkSSSPTree(t, "wsg", tree, testgraph.Dijkstra(minW, root), minW, root)
}

// TestSSSPUnitWeightsEqualsBFS: a file without weights is refused (exit
// 2, the file and --unit-weights named, no output); with --unit-weights
// every distance is bfs's level.
func TestSSSPUnitWeightsEqualsBFS(t *testing.T) {
	el := testgraph.GoldenFile("small-undirected.el")
	out := filepath.Join(t.TempDir(), "d.txt")
	code, stdout, errOut := runCLI(t, "sssp", el, "--root", "0", "--out", out)
	if code != 2 || stdout != "" || !strings.Contains(errOut, el) || !strings.Contains(errOut, "--unit-weights") {
		t.Errorf("unweighted file: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run left %s: %v", out, err)
	}
	levels := map[int64]float32{}
	for _, line := range strings.Split(strings.TrimSpace(bfsTree(t, nil, el, "--root", "0")), "\n") {
		var v, p, l int64
		fmt.Sscanf(line, "%d %d %d", &v, &p, &l)
		if l >= 0 {
			levels[v] = float32(l)
		}
	}
	ones := map[[2]int64]float32{}
	for k := range weightsOfUnit(t, el) {
		ones[k] = 1
	}
	for _, ranks := range []string{"1", "2"} {
		tree := parseSSSPTree(t, treeOut(t, nil, "sssp", el, "--unit-weights", "--ranks", ranks, "--root", "0"))
		checkSSSPTree(t, "unit weights", tree, levels, ones, 0)
	}
}

// weightsOfUnit is the pairs of an unweighted file, both directions.
func weightsOfUnit(t *testing.T, path string) map[[2]int64]bool {
	t.Helper()
	ef, err := edgelist.ReadEdges(path, "")
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[[2]int64]bool{}
	for _, e := range ef.Edges {
		pairs[[2]int64{e.U, e.V}], pairs[[2]int64{e.V, e.U}] = true, true
	}
	return pairs
}

// Bad weights and bad flags on a file: exit 2, one line naming file:line
// or the flag, nothing on stdout and no --out file.
func TestSSSPFileBadInput(t *testing.T) {
	dir := t.TempDir()
	neg := writeFile(t, filepath.Join(dir, "neg.wel"), "0 1 0.5\n1 2 0.25\n2 3 -1\n")
	nan := writeFile(t, filepath.Join(dir, "nan.wel"), "0 1 0.5\n1 2 NaN\n")
	inf := writeFile(t, filepath.Join(dir, "inf.mtx"), "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n3 2 inf\n")
	el := writeFile(t, filepath.Join(dir, "g.el"), "0 1\n1 2\n")
	good := testgraph.GoldenFile("weighted.wel")
	out := filepath.Join(dir, "d.txt")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{neg, "-r", "0", "-o", out}, neg + ":3: negative weight"},
		{[]string{neg, "--ranks", "3", "-r", "0", "-o", out}, neg + ":3: negative weight"},
		{[]string{nan, "-r", "0", "-o", out}, nan + ":2: bad weight"},
		{[]string{inf, "--ranks", "2", "-r", "1", "-o", out}, inf + ":4: bad real value"},
		{[]string{el, "--format", "wel", "-r", "0", "-o", out}, el + ":1: want 3 columns"},
		{[]string{good, "--directed"}, "--directed"},
		{[]string{good, "--unit-weights", "--directed"}, "--directed"},
		{[]string{"--scale", "5", "--unit-weights"}, "--unit-weights"},
		{[]string{good, "--format", "el"}, "--unit-weights"},
		{[]string{good, "-r", "100000", "-o", out}, "root 100000"},
	} {
		code, stdout, errOut := runCLI(t, append([]string{"sssp"}, c.args...)...)
		// On several ranks, lines after the first say how the others stopped.
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != 2 || stdout != "" || !strings.Contains(lines[0], c.want) || len(lines) > 1 && !slices.Contains(c.args, "--ranks") {
			t.Errorf("sssp %v: exit %d, stdout %q, stderr %q; want 2 and a line with %q", c.args, code, stdout, errOut, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("sssp %v left %s: %v", c.args, out, err)
		}
	}
}
