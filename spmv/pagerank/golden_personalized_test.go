package pagerank

// The golden graphs' NetworkX references beyond the plain PageRank
// (internal/testgraph's make_refs.py): the iteration at which NetworkX's
// tol=1e-6 stops, and PageRank with a personalization, a dangling
// distribution and a start vector, on several rank counts and allreduces.

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// goldenRanks and goldenAllreduces are the runs every golden reference is
// checked on.
var (
	goldenRanks      = []int{1, 3, 4}
	goldenAllreduces = []Allreduce{AllreduceKylix, AllreduceDirect, AllreduceBinary, AllreduceDense}
)

// goldenVector reads the golden graph name's vector file (suffix
// ".personalize.txt", ...) with the graph's id offset.
func goldenVector(t *testing.T, name, suffix string) *Vector {
	t.Helper()
	var offset int64
	if strings.HasSuffix(name, ".mtx") {
		offset = 1
	}
	v, err := ReadVectorFile(testgraph.GoldenFile(name+suffix), offset)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// l1Distance is Σ|scores − ref| over the reference's vertices (by the
// file's ids), or an error if a vertex has no score or the counts differ.
func l1Distance(name string, res *Result, scores map[int64]float64, ref []testgraph.Score) (float64, error) {
	if int64(len(ref)) != res.NumVertices {
		return 0, fmt.Errorf("%d vertices, reference %d", res.NumVertices, len(ref))
	}
	var l1 float64
	for _, s := range ref {
		got, ok := scores[fileID(name, s.ID)]
		if !ok {
			return 0, fmt.Errorf("vertex %d has no score", s.ID)
		}
		l1 += math.Abs(got - s.Score)
	}
	return l1, nil
}

// checkGolden runs cfg on every golden rank count and allreduce and
// compares the scores with column col of the reference file ref to 1e-12
// in L1 and, if iterations > 0, the iterations with it. ws, if not nil,
// are the edges' weights (cfg.Weighted).
func checkGolden(t *testing.T, name string, edges []graph.Edge, ws []float32, cfg Config, ref string, col, iterations int) {
	t.Helper()
	checkGoldenShares(t, name, func(p int) []graph.EdgeShare { return weightedShares(edges, ws, p) }, cfg, ref, col, iterations)
}

// checkGoldenShares is checkGolden on the shares of p ranks that shares
// returns.
func checkGoldenShares(t *testing.T, name string, shares func(p int) []graph.EdgeShare, cfg Config, ref string, col, iterations int) {
	t.Helper()
	want, err := testgraph.ReadPageRank(testgraph.GoldenFile(name+ref), 0, col)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range goldenRanks {
		for _, kind := range goldenAllreduces {
			cfg.Allreduce = kind
			res, scores, _ := runShares(t, p, shares(p), cfg, 1)
			l1, err := l1Distance(name, res, scores, want)
			switch {
			case err != nil:
				t.Fatalf("%s%s column %d, p=%d %s: %v", name, ref, col, p, kind, err)
			case l1 > 1e-12:
				t.Errorf("%s%s column %d, p=%d %s: L1 distance from the reference %.3g", name, ref, col, p, kind, l1)
			case iterations > 0 && res.Iterations != iterations:
				t.Errorf("%s%s, p=%d %s: %d iterations (L1 changes %.3g), NetworkX %d (N·tol %.3g)",
					name, ref, p, kind, res.Iterations, res.L1Changes, iterations, cfg.threshold(res.NumVertices))
			case iterations > 0 && !res.Converged:
				t.Errorf("%s%s, p=%d %s: not converged", name, ref, p, kind)
			}
		}
	}
}

// TestGoldenGraphsNetworkXTolerance: with Tol as NetworkX's tol (1e-6, its
// default), a run stops at the iteration NetworkX's pagerank stops at
// (make_refs.py counts them), plain and with all three vectors, whose
// scores at that iteration are NetworkX's own.
func TestGoldenGraphsNetworkXTolerance(t *testing.T) {
	for _, name := range testgraph.Golden() {
		ef, err := edgelist.ReadEdges(testgraph.GoldenFile(name), "")
		if err != nil {
			t.Fatal(err)
		}
		plain, err := testgraph.NetworkXIterations(testgraph.GoldenFile(name + ".pagerank.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range goldenRanks {
			for _, kind := range goldenAllreduces {
				cfg := DefaultConfig()
				cfg.Allreduce = kind
				res, _, _ := runPageRank(t, p, ef.Edges, cfg, 1)
				if res.Iterations != plain || !res.Converged {
					t.Errorf("%s p=%d %s: %d iterations (converged %v, L1 changes %.3g), NetworkX %d (N·tol %.3g)",
						name, p, kind, res.Iterations, res.Converged, res.L1Changes, plain, cfg.threshold(res.NumVertices))
				}
			}
		}
		ref := ".pagerank_personalized.tsv"
		iterations, err := testgraph.NetworkXIterations(testgraph.GoldenFile(name + ref))
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Personalization = goldenVector(t, name, ".personalize.txt")
		cfg.Dangling = goldenVector(t, name, ".dangling.txt")
		cfg.NStart = goldenVector(t, name, ".nstart.txt")
		checkGolden(t, name, ef.Edges, nil, cfg, ref, 3, iterations)
	}
}

// TestGoldenGraphsPersonalized: personalized PageRank, the dangling mass
// following the personalization or a distribution of its own, equals
// NetworkX's on every golden graph, rank count, allreduce and partition.
func TestGoldenGraphsPersonalized(t *testing.T) {
	for _, name := range testgraph.Golden() {
		ef, err := edgelist.ReadEdges(testgraph.GoldenFile(name), "")
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Tol = 1e-16
		cfg.Personalization = goldenVector(t, name, ".personalize.txt")
		checkGolden(t, name, ef.Edges, nil, cfg, ".pagerank_personalized.tsv", 1, 0)
		cfg.Dangling = goldenVector(t, name, ".dangling.txt")
		checkGolden(t, name, ef.Edges, nil, cfg, ".pagerank_personalized.tsv", 2, 0)
		cfg.Partition = PartitionBlock1D
		checkGolden(t, name, ef.Edges, nil, cfg, ".pagerank_personalized.tsv", 2, 0)
	}
}
