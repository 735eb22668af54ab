package pagerank

// The two shared real graphs' weighted references (testdata's
// make_personalized_refs.py, NetworkX's pagerank(G, weight='weight')): the
// graphs are unweighted, so the test writes each as a temporary .wel whose
// weights the script's formula derives from the edge's ids (derivedWeight),
// and every rank reads its share of that file with the weights.

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// writeDerivedWel writes the edge list at path (every directed edge it
// reads to, with the file's ids: the read ones plus offset) as a .wel
// file of derivedWeight weights in dir, and returns its path.
func writeDerivedWel(t *testing.T, path string, offset int64, dir string) string {
	t.Helper()
	ef, err := edgelist.ReadEdges(path, "")
	if err != nil {
		t.Fatal(err)
	}
	wel := filepath.Join(dir, filepath.Base(path)+".wel")
	f, err := os.Create(wel)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, e := range ef.Edges {
		u, v := e.U+offset, e.V+offset
		fmt.Fprintf(w, "%d %d %s\n", u, v, strconv.FormatFloat(float64(derivedWeight(u, v)), 'g', -1, 32))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return wel
}

// TestPageRankRealGraphsWeighted: weighted and personalized PageRank on
// the two real graphs with derived weights, each rank reading its share of
// the weighted file, equals NetworkX's to 1e-12 in L1 over every vertex on
// the rank counts and allreduces of realCombos, and at NetworkX's default
// tol stops at NetworkX's iteration; without the personalization its top
// 20 are NetworkX's to 1e-12 (the references' size allows one full vector
// per graph).
func TestPageRankRealGraphsWeighted(t *testing.T) {
	dir := testgraph.RealData()
	graphs := realGraphs
	if testing.Short() && os.Getenv("GRAPHRUN_PAGERANK_ALL_RANKS") != "1" {
		graphs = graphs[1:]
	}
	tmp := t.TempDir()
	for _, g := range graphs {
		wel := writeDerivedWel(t, filepath.Join(dir, g.file), g.idOffset, tmp)
		refPath := filepath.Join(dir, g.name+".pagerank_weighted.tsv.gz")
		iterations, err := testgraph.NetworkXIterations(refPath)
		if err != nil {
			t.Fatal(err)
		}
		top20, err := testgraph.ReadPageRank(filepath.Join(dir, g.name+".pagerank_weighted_top20.tsv"), 0, 1)
		if err != nil || len(top20) != 20 {
			t.Fatalf("top 20: %v (%d lines)", err, len(top20))
		}
		pers, err := ReadVectorFile(filepath.Join(dir, g.name+".personalize.txt"), 0) // the .wel's ids are the file's
		if err != nil {
			t.Fatal(err)
		}
		for i, cb := range realCombos() {
			cfg := DefaultConfig()
			cfg.Weighted, cfg.Allreduce = true, cb.kind
			name := fmt.Sprintf("%s weighted %s p=%d", g.name, cb.kind, cb.p)
			if i == 0 {
				cfg.Personalization = pers
				res, _, _ := runShares(t, cb.p, fileShares(t, wel, cb.p), cfg, 1)
				if res.Iterations != iterations || !res.Converged {
					t.Errorf("%s, personalized, Tol %g: %d iterations (L1 changes %.3g), NetworkX %d (N·tol %.3g)",
						name, cfg.Tol, res.Iterations, res.L1Changes, iterations, cfg.threshold(res.NumVertices))
				}
			}
			cfg.Tol = 1e-20 // n·Tol: about 1e-15 on these graphs, as the references
			ref, err := testgraph.ReadPageRank(refPath, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Personalization = pers
			res, scores, _ := runShares(t, cb.p, fileShares(t, wel, cb.p), cfg, 1)
			l1, err := l1Distance(wel, res, scores, ref)
			if err != nil {
				t.Fatalf("%s, personalized: %v", name, err)
			}
			t.Logf("%s, personalized: %d iterations, L1 distance from NetworkX %.3g", name, res.Iterations, l1)
			if l1 > 1e-12 {
				t.Errorf("%s, personalized: L1 distance from NetworkX's scores %.3g", name, l1)
			}
			cfg.Personalization = nil
			_, scores, _ = runShares(t, cb.p, fileShares(t, wel, cb.p), cfg, 1)
			var top float64
			for _, s := range top20 {
				top += math.Abs(scores[s.ID] - s.Score)
			}
			if top > 1e-12 {
				t.Errorf("%s: L1 distance from NetworkX's top 20 %.3g", name, top)
			}
		}
	}
}
