package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// writeGapbsSG writes the undirected graph of edges as gapbs's converter
// with -s does (docs/formats.md; graph/edgelist/sg.go reads it): every
// edge in both directions, self-loops and duplicates dropped, rows sorted,
// ids as given. It returns the undirected edges it kept.
func writeGapbsSG(t *testing.T, path string, edges []graph.Edge) int64 {
	t.Helper()
	var n int64
	for _, e := range edges {
		n = max(n, e.U+1, e.V+1)
	}
	adj := make([][]int32, n)
	for _, e := range edges {
		if e.U != e.V {
			adj[e.U] = append(adj[e.U], int32(e.V))
			adj[e.V] = append(adj[e.V], int32(e.U))
		}
	}
	var offs, neigh []byte
	var entries int64
	for u := range adj {
		offs = binary.LittleEndian.AppendUint64(offs, uint64(entries))
		slices.Sort(adj[u])
		adj[u] = slices.Compact(adj[u])
		for _, v := range adj[u] {
			neigh = binary.LittleEndian.AppendUint32(neigh, uint32(v))
		}
		entries += int64(len(adj[u]))
	}
	offs = binary.LittleEndian.AppendUint64(offs, uint64(entries))
	head := []byte{0} // undirected
	head = binary.LittleEndian.AppendUint64(head, uint64(entries))
	head = binary.LittleEndian.AppendUint64(head, uint64(n))
	if err := os.WriteFile(path, slices.Concat(head, offs, neigh), 0o644); err != nil {
		t.Fatal(err)
	}
	return entries / 2
}

// bfsCounts runs bfs on args and returns its tuple count and the nedge of
// its one search.
func bfsCounts(t *testing.T, args ...string) (tuples, nedge int64) {
	t.Helper()
	j := filepath.Join(t.TempDir(), "run.json")
	mustRun(t, append([]string{"bfs", "-j", j}, args...)...)
	run := readRun(t, j)
	if len(run.Searches) != 1 || !run.Validated() {
		t.Fatalf("bfs %v: %d searches, validated %v", args, len(run.Searches), run.Validated())
	}
	return run.Tuples, run.Searches[0].NEdge
}

// TestCountRule is docs/formats.md's count rule: a tuple is an input edge,
// and an undirected input lists each edge once however it is stored. The
// Luxembourg road graph as its symmetric Matrix Market file, the .el and
// .grb convert writes of it, a .grb converted from that .el, and the
// undirected gapbs .sg of it give bfs the same tuple count and nedge; a
// generated Kronecker .el and its .sg differ by exactly the self-loops and
// duplicate pairs gapbs drops, not by a factor of two.
func TestCountRule(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	mtx := filepath.Join(sharedData(t), "road-luxembourg-osm.mtx")
	el, grb, elgrb, sg := filepath.Join(dir, "l.el"), filepath.Join(dir, "l.grb"), filepath.Join(dir, "el.grb"), filepath.Join(dir, "l.sg")
	mustRun(t, "convert", mtx, "-o", grb)
	if _, errOut := mustRun(t, "convert", mtx, "-o", el); !strings.Contains(errOut, "wrote 119666 tuples") || !strings.Contains(errOut, "each edge once") {
		t.Errorf("convert to .el says %q", errOut)
	}
	mustRun(t, "convert", el, "-o", elgrb)
	ef, err := edgelist.ReadEntries(mtx, "")
	if err != nil {
		t.Fatal(err)
	}
	one := make([]graph.Edge, len(ef.Edges)) // the .mtx's 1-based ids, as the .el has them
	for i, e := range ef.Edges {
		one[i] = graph.Edge{U: e.U + 1, V: e.V + 1}
	}
	if kept := writeGapbsSG(t, sg, one); kept != int64(len(one)) {
		t.Fatalf("the Luxembourg graph has %d edges once deduplicated, %d entries", kept, len(one))
	}
	wantT, wantN := bfsCounts(t, mtx, "--root", "1")
	if wantT != 119666 || wantN != 119666 {
		t.Errorf("the .mtx: %d tuples, nedge %d; want 119666 (one connected graph)", wantT, wantN)
	}
	for _, f := range []struct {
		path  string
		ranks string
	}{{el, "1"}, {grb, "2"}, {elgrb, "3"}, {sg, "1"}, {sg, "3"}} {
		if tu, ne := bfsCounts(t, f.path, "--root", "1", "--ranks", f.ranks); tu != wantT || ne != wantN {
			t.Errorf("%s on %s ranks: %d tuples, nedge %d; the .mtx: %d, %d", filepath.Base(f.path), f.ranks, tu, ne, wantT, wantN)
		}
	}

	// A Kronecker list has self-loops and duplicates, which gapbs drops.
	kel, ksg, kdedup := filepath.Join(dir, "k.el"), filepath.Join(dir, "k.sg"), filepath.Join(dir, "kd.el")
	mustRun(t, "generate", "--scale", "10", "-o", kel)
	kf, err := edgelist.ReadEdges(kel, "")
	if err != nil {
		t.Fatal(err)
	}
	kept := writeGapbsSG(t, ksg, kf.Edges)
	mustRun(t, "convert", ksg, "-o", kdedup) // gapbs's edge set, each edge once
	loopsAndDups := int64(len(kf.Edges)) - kept
	if loopsAndDups <= 0 || 2*kept <= int64(len(kf.Edges)) {
		t.Fatalf("%d tuples, %d kept by gapbs: want a few lost, and the .sg's %d entries above the tuples", len(kf.Edges), kept, 2*kept)
	}
	root := kf.Edges[0].U
	if root == kf.Edges[0].V {
		root = kf.Edges[1].U
	}
	r := []string{"--root", strconv.FormatInt(root, 10), "--ranks", "2"}
	elT, elN := bfsCounts(t, append([]string{kel}, r...)...)
	sgT, sgN := bfsCounts(t, append([]string{ksg}, r...)...)
	dT, dN := bfsCounts(t, append([]string{kdedup}, r...)...)
	if elT != int64(len(kf.Edges)) || sgT != kept || dT != kept || sgN != dN || elN < sgN || elN > sgN+loopsAndDups {
		t.Errorf("k.el: %d tuples, nedge %d; k.sg: %d, %d; its .el: %d, %d; gapbs kept %d of %d tuples",
			elT, elN, sgT, sgN, dT, dN, kept, len(kf.Edges))
	}
}
