package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// TestGenerateWritesTheSearchedTuples: the file holds the generator's tuples,
// and a plain BFS over the file's tuples gives the levels that graphrun bfs
// prints for the same flags.
func TestGenerateWritesTheSearchedTuples(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"g.el", "g.bel"} {
		path := filepath.Join(dir, name)
		mustRun(t, "generate", "--scale", "9", "--edgefactor", "8", "--seed", "3", "-o", path)
		edges := readEdgeFile(t, path)
		p := kronecker.DefaultParams(9)
		p.EdgeFactor, p.Seed = 8, 3
		want := make([]graph.Edge, p.NumEdges())
		p.Generate(0, want)
		if !slices.Equal(edges, want) {
			t.Fatalf("%s: tuples differ from the generator's", name)
		}
	}
	edges := readEdgeFile(t, filepath.Join(dir, "g.el"))
	root := edges[0].U
	treePath := filepath.Join(dir, "tree")
	code, _, errOut := runCLI(t, "bfs", "--scale", "9", "--edgefactor", "8", "--seed", "3", "--ranks", "3",
		"--root", fmt.Sprint(root), "--out", treePath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	levels := plainBFSLevels(1<<9, edges, root)
	data := readFile(t, treePath)
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for v := 0; sc.Scan(); v++ {
		var vertex, parent, level int64
		if _, err := fmt.Sscan(sc.Text(), &vertex, &parent, &level); err != nil {
			t.Fatal(err)
		}
		if vertex != int64(v) || level != levels[v] {
			t.Fatalf("line %d: %q, want vertex %d level %d", v, sc.Text(), v, levels[v])
		}
	}
}

func plainBFSLevels(n int, edges []graph.Edge, root int64) []int64 {
	adj := make([][]int64, n)
	for _, e := range edges {
		adj[e.U] = append(adj[e.U], e.V)
		adj[e.V] = append(adj[e.V], e.U)
	}
	level := make([]int64, n)
	for i := range level {
		level[i] = -1
	}
	level[root] = 0
	for queue := []int64{root}; len(queue) > 0; queue = queue[1:] {
		for _, u := range adj[queue[0]] {
			if level[u] < 0 {
				level[u] = level[queue[0]] + 1
				queue = append(queue, u)
			}
		}
	}
	return level
}

func TestGenerateBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"generate", "--scale", "5"}, "--out"},
		{[]string{"generate", "--scale", "0", "-o", filepath.Join(dir, "x.el")}, "--scale"},
		{[]string{"generate", "--scale", "5", "-o", filepath.Join(dir, "missing", "x.el")}, "--out"},
		{[]string{"generate", "--scale", "5", "-o", filepath.Join(dir, "x.txt2")}, "--out"}, {[]string{"generate", "--scale", "5", "--output", filepath.Join(dir, "x.txt2")}, "--output"},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.flag) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input left files: %v", entries)
	}
}

// readEdgeFile reads a whole edge-list file with the edge-list reader.
func readEdgeFile(t *testing.T, path string) []graph.Edge {
	t.Helper()
	ef, err := edgelist.ReadEdges(path, "")
	if err != nil {
		t.Fatal(err)
	}
	return ef.Edges
}

// TestGenerateWeighted: generate to a .wel writes the generator's tuples
// with kernel 3's weights, exactly, and sssp on that file finds, from any
// root, the distances sssp finds on the generated graph of the same flags.
func TestGenerateWeighted(t *testing.T) {
	dir := t.TempDir()
	wel := filepath.Join(dir, "g.wel")
	mustRun(t, "generate", "--scale", "9", "--edgefactor", "8", "--seed", "3", "-o", wel)
	p := kronecker.DefaultParams(9)
	p.EdgeFactor, p.Seed = 8, 3
	want := make([]graph.Edge, p.NumEdges())
	p.Generate(0, want)
	wantW := make([]float32, p.NumEdges())
	p.Weights(0, wantW, 2)
	ef, err := edgelist.ReadWeightedEdges(wel, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ef.Edges, want) || !slices.Equal(ef.Weights, wantW) {
		t.Fatal("the .wel differs from the generator's tuples and weights")
	}
	root := want[0].U
	generated := parseSSSPTree(t, treeOut(t, nil, "sssp", "--scale", "9", "--edgefactor", "8", "--seed", "3", "--ranks", "2", "--root", fmt.Sprint(root)))
	fromFile := parseSSSPTree(t, treeOut(t, nil, "sssp", wel, "--ranks", "3", "--root", fmt.Sprint(root)))
	for v, l := range generated {
		f, ok := fromFile[v]
		if !ok && l.dist != -1 || ok && f.dist != l.dist {
			t.Fatalf("vertex %d: generated %+v, from the file %+v (%v)", v, l, f, ok)
		}
	}
}
