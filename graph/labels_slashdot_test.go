// The dense relabelling (labels.go) of a real graph read by the edge-list
// readers: an external test, since package edgelist imports graph.

package graph_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// TestRelabelSlashdot relabels the Slashdot graph (read from the
// repository's copy) split over 1, 2 and 4 ranks: the dense labelling is identical, and it is the rank of the
// original id among the distinct ids.
func TestRelabelSlashdot(t *testing.T) {
	ef, err := edgelist.ReadEdges(testgraph.RealFile(t, "soc-Slashdot0902.txt.gz"), "")
	if err != nil {
		t.Fatal(err)
	}
	edges, ids := ef.Edges, graph.DistinctIDs(ef.Edges)
	want := make([]graph.Edge, len(edges))
	for i, e := range edges {
		u, _ := slices.BinarySearch(ids, e.U)
		v, _ := slices.BinarySearch(ids, e.V)
		want[i] = graph.Edge{U: int64(u), V: int64(v)}
	}
	for _, p := range []int{1, 2, 4} {
		shares := make([][]graph.Edge, p)
		for r := range p {
			lo, hi := graph.ShareStart(int64(len(edges)), r, p), graph.ShareStart(int64(len(edges)), r+1, p)
			shares[r] = edges[lo:hi]
		}
		dense, original, n := graph.RunRelabel(t, shares)
		graph.CheckRelabel(t, fmt.Sprintf("%d ranks", p), ids, dense, original, n)
		if got := slices.Concat(dense...); !slices.Equal(got, want) {
			t.Errorf("%d ranks: the dense edges differ from the serial labelling", p)
		}
	}
}
