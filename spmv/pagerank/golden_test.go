package pagerank

// The golden graphs of internal/testgraph, each with every vertex's PageRank
// made by NetworkX (testdata/make_refs.py there), on several rank counts and
// allreduces.

import (
	"math"
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
		ref, err := testgraph.ReadPageRank(testgraph.GoldenFile(name+".pagerank.tsv"), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		ef, err := edgelist.ReadEdges(testgraph.GoldenFile(name), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []int{1, 3, 4} {
			for _, kind := range []Allreduce{AllreduceKylix, AllreduceDirect, AllreduceBinary, AllreduceDense} {
				cfg := DefaultConfig()
				cfg.Allreduce = kind
				cfg.Tol = 1e-14
				res, scores, _ := runPageRank(t, p, ef.Edges, cfg, 1)
				if int64(len(ref)) != res.NumVertices {
					t.Fatalf("%s p=%d %s: %d vertices, reference %d", name, p, kind, res.NumVertices, len(ref))
				}
				var worst float64
				for _, s := range ref {
					got, ok := scores[fileID(name, s.ID)]
					if !ok {
						t.Fatalf("%s p=%d %s: vertex %d has no score", name, p, kind, s.ID)
					}
					worst = max(worst, math.Abs(got-s.Score))
				}
				if worst > 1e-12 {
					t.Fatalf("%s p=%d %s: largest difference from the reference %.3g", name, p, kind, worst)
				}
			}
		}
	}
}
