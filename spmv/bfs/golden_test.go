package bfs

// The golden graphs of internal/testgraph, each with references made by
// NetworkX (testdata/make_refs.py there): BFS level sizes of the undirected
// view, on several rank counts and exchanges (PageRank's: spmv/pagerank).

import (
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/testgraph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/spmv"
)

// goldenGraph reads a golden graph and relabels its ids densely in id order,
// as the serial oracle would: the BFS engine's input.
func goldenGraph(t *testing.T, name string) (g csrtest.Graph, dense map[int64]int64, ef *edgelist.EdgeFile) {
	t.Helper()
	ef, err := edgelist.ReadEdges(testgraph.GoldenFile(name), "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, e := range ef.Edges {
		ids = append(ids, e.U, e.V)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	dense = make(map[int64]int64, len(ids))
	for i, id := range ids {
		dense[id] = int64(i)
	}
	g = csrtest.Graph{Name: name, N: int64(len(ids))}
	for _, e := range ef.Edges {
		g.Edges = append(g.Edges, graph.Edge{U: dense[e.U], V: dense[e.V]})
	}
	return g, dense, ef
}

// fileID turns a reference's id into the reader's (Matrix Market files are
// 1-based in the references, 0-based once read).
func fileID(name string, id int64) int64 {
	if strings.HasSuffix(name, ".mtx") {
		return id - 1
	}
	return id
}

func TestGoldenGraphsBFSLevels(t *testing.T) {
	modes := []Config{
		{Exchange: spmv.ExchangeAllgather, Codec: "raw", Direction: spmv.DirectionAuto},
		{Exchange: spmv.ExchangePacked, Codec: "wah", Direction: spmv.DirectionAuto},
		{Exchange: spmv.ExchangeSieve, Codec: "auto", Direction: spmv.DirectionBottomUp},
		{Exchange: spmv.ExchangePush},
	}
	for _, name := range testgraph.Golden() {
		ref, err := testgraph.ReadBFSReference(testgraph.GoldenFile(name + ".bfs.txt"))
		if err != nil {
			t.Fatal(err)
		}
		g, dense, _ := goldenGraph(t, name)
		if g.N != ref.Vertices {
			t.Fatalf("%s: %d vertices, reference %d", name, g.N, ref.Vertices)
		}
		root := dense[fileID(name, ref.Source)]
		for _, p := range []int{1, 3, 4} {
			for _, mode := range modes {
				_, level, nedge, verr := distributedBFS(t, g, root, p, 2, mode)
				if verr != nil {
					t.Fatalf("%s p=%d %v: validation: %v", name, p, mode, verr)
				}
				sizes := make([]int64, ref.Depth+1)
				var reached int64
				for _, l := range level {
					if l < 0 {
						continue
					}
					if int(l) >= len(sizes) {
						t.Fatalf("%s p=%d %v: level %d beyond the reference's depth %d", name, p, mode, l, ref.Depth)
					}
					sizes[l]++
					reached++
				}
				if reached != ref.Reached || !slices.Equal(sizes, ref.LevelSizes) {
					t.Fatalf("%s p=%d %v: reached %d, levels %v; reference %d, %v", name, p, mode, reached, sizes, ref.Reached, ref.LevelSizes)
				}
				if nedge <= 0 {
					t.Fatalf("%s p=%d %v: nedge %d", name, p, mode, nedge)
				}
			}
		}
	}
}
