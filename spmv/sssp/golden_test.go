package sssp

// The golden weighted graph of internal/testgraph (weighted.wel: weights
// k/1024, so every distance is an exact sum in float32 and float64) against
// NetworkX's Dijkstra distances (weighted.wel.sssp.txt, made by
// make_refs.py), on 1 to 4 ranks, validated.

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// readWEL reads "u v w" lines into a weightedGraph of n vertices.
func readWEL(t *testing.T, path string, n int64) weightedGraph {
	t.Helper()
	g := weightedGraph{n: n}
	forLines(t, path, func(f []string) {
		u, err1 := strconv.ParseInt(f[0], 10, 64)
		v, err2 := strconv.ParseInt(f[1], 10, 64)
		w, err3 := strconv.ParseFloat(f[2], 32)
		if err1 != nil || err2 != nil || err3 != nil || u >= n || v >= n {
			t.Fatalf("%s: bad line %q", path, f)
		}
		g.edges = append(g.edges, graph.Edge{U: u, V: v})
		g.weights = append(g.weights, float32(w))
	})
	return g
}

// forLines calls fn with the fields of every line of path but comments.
func forLines(t *testing.T, path string, fn func([]string)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			fn(strings.Fields(line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestGoldenWeightedEqualsNetworkX(t *testing.T) {
	g, want := goldenWeighted(t)
	searchesEqual(t, g, g.edges[0].U, want, []int{1, 2, 3, 4}, "NetworkX")
}

// goldenWeighted is the golden weighted graph and NetworkX's distances
// from its first tuple's first vertex.
func goldenWeighted(t *testing.T) (weightedGraph, []float32) {
	const n = 256
	g := readWEL(t, testgraph.GoldenFile("weighted.wel"), n)
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(math.Inf(1))
	}
	forLines(t, testgraph.GoldenFile("weighted.wel.sssp.txt"), func(f []string) {
		v, err1 := strconv.Atoi(f[0])
		d, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil || v >= n {
			t.Fatalf("bad reference line %q", f)
		}
		want[v] = float32(d)
	})
	return g, want
}
