package pagerank

// Weighted PageRank against NetworkX's pagerank(G, weight='weight') on
// the golden graphs (internal/testgraph's make_refs.py): weights derived
// from the edges' ids by the script's formula, plain and personalized, on
// every golden rank count and allreduce, and the iteration NetworkX's
// tol=1e-6 stops at.

import (
	"math"
	"testing"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// derivedWeight is the reference scripts' weight of edge (u, v), by the
// file's ids: ((3u + 5v) mod 7) / 2, so 0 to 3 in halves, exact in float32.
func derivedWeight(u, v int64) float32 { return float32((3*u+5*v)%7) / 2 }

// derivedWeights is derivedWeight of every edge, whose ids are the file's
// less offset (1 for Matrix Market files, which are read 0-based).
func derivedWeights(edges []graph.Edge, offset int64) []float32 {
	ws := make([]float32, len(edges))
	for i, e := range edges {
		ws[i] = derivedWeight(e.U+offset, e.V+offset)
	}
	return ws
}

// weightedShares splits edges (and ws, if not nil) over p ranks in order.
func weightedShares(edges []graph.Edge, ws []float32, p int) []graph.EdgeShare {
	shares := make([]graph.EdgeShare, p)
	for r := range p {
		lo, hi := len(edges)*r/p, len(edges)*(r+1)/p
		if ws == nil {
			shares[r] = graph.EdgeChunks{edges[lo:hi]}
		} else {
			shares[r] = WeightedEdges{Edges: edges[lo:hi], Weights: ws[lo:hi]}
		}
	}
	return shares
}

// TestGoldenGraphsWeighted: weighted PageRank, plain and personalized,
// equals NetworkX's on every golden graph, rank count and allreduce (and
// the 1d partition), and stops at NetworkX's iteration at its default tol.
func TestGoldenGraphsWeighted(t *testing.T) {
	for _, name := range testgraph.Golden() {
		ef, err := edgelist.ReadEdges(testgraph.GoldenFile(name), "")
		if err != nil {
			t.Fatal(err)
		}
		ws := derivedWeights(ef.Edges, -fileID(name, 0)) // by the file's ids
		ref := ".pagerank_weighted.tsv"
		iterations, err := testgraph.NetworkXIterations(testgraph.GoldenFile(name + ref))
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Weighted = true
		cfg.Personalization = goldenVector(t, name, ".personalize.txt")
		checkGolden(t, name, ef.Edges, ws, cfg, ref, 3, iterations)
		cfg.Tol = 1e-16
		checkGolden(t, name, ef.Edges, ws, cfg, ref, 2, 0)
		cfg.Personalization = nil
		checkGolden(t, name, ef.Edges, ws, cfg, ref, 1, 0)
		cfg.Partition = PartitionBlock1D
		checkGolden(t, name, ef.Edges, ws, cfg, ref, 1, 0)
	}
}

// TestWeightedAllEqualIsUnweighted: weights that are all equal give the
// unweighted scores (duplicates collapse either way), to rounding.
func TestWeightedAllEqualIsUnweighted(t *testing.T) {
	ef, err := edgelist.ReadEdges(testgraph.GoldenFile("kron8.el"), "")
	if err != nil {
		t.Fatal(err)
	}
	ws := make([]float32, len(ef.Edges))
	for i := range ws {
		ws[i] = 2.5
	}
	cfg := DefaultConfig()
	cfg.Tol = 1e-16
	for _, p := range []int{1, 3} {
		_, plain, _ := runShares(t, p, weightedShares(ef.Edges, nil, p), cfg, 1)
		wcfg := cfg
		wcfg.Weighted = true
		_, weighted, _ := runShares(t, p, weightedShares(ef.Edges, ws, p), wcfg, 1)
		var l1 float64
		for v, s := range plain {
			l1 += math.Abs(s - weighted[v])
		}
		if len(plain) != len(weighted) || l1 > 1e-13 {
			t.Errorf("p=%d: %d and %d vertices, L1 distance %.3g", p, len(plain), len(weighted), l1)
		}
	}
}

// TestGoldenWeightedFile: the golden weighted.wel, each rank reading its
// share of the file with its weights (duplicate pairs of different weights
// keep the smallest, as the reference script's DiGraph does), equals
// NetworkX's weighted PageRank, plain and personalized.
func TestGoldenWeightedFile(t *testing.T) {
	name := "weighted.wel"
	path := testgraph.GoldenFile(name)
	shares := func(p int) []graph.EdgeShare { return fileShares(t, path, p) }
	ref := ".pagerank_weighted.tsv"
	iterations, err := testgraph.NetworkXIterations(testgraph.GoldenFile(name + ref))
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Weighted = true
	cfg.Personalization = goldenVector(t, name, ".personalize.txt")
	checkGoldenShares(t, name, shares, cfg, ref, 3, iterations)
	cfg.Tol = 1e-16
	checkGoldenShares(t, name, shares, cfg, ref, 2, 0)
	cfg.Personalization = nil
	checkGoldenShares(t, name, shares, cfg, ref, 1, 0)
}
