package pagerank

// The golden graphs of internal/testgraph, each with every vertex's PageRank
// made by NetworkX (testdata/make_refs.py there), on several rank counts and
// allreduces.

import (
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// fileID turns a reference's id into the reader's (Matrix Market files are
// 1-based in the references, 0-based once read).
func fileID(name string, id int64) int64 {
	if strings.HasSuffix(name, ".mtx") {
		return id - 1
	}
	return id
}

func TestGoldenGraphsPageRank(t *testing.T) {
	for _, name := range testgraph.Golden() {
		ef, err := edgelist.ReadEdges(testgraph.GoldenFile(name), "")
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Tol = 1e-16 // n·Tol: an L1 change of at most 2.6e-14 here
		checkGolden(t, name, ef.Edges, nil, cfg, ".pagerank.tsv", 1, 0)
	}
}
