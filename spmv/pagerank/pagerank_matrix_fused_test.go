package pagerank

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// TestFusedOrder: a one-rank matrix is laid out in the order localOrder
// gives the fused run (so that its copy of the sources is in place), on
// local ids (a grid), permuted ones (Kronecker) and random graphs with
// duplicates, isolated and dangling vertices; the copy made in place equals
// the one made into new room, and the fused sums are those of the
// columns.
func TestFusedOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	graphs := [][]graph.Edge{gridPREdges(40), kronPREdges(11)}
	for range 20 {
		n := int64(1 + rng.IntN(500))
		var edges []graph.Edge
		for range rng.IntN(int(6 * n)) {
			edges = append(edges, graph.Edge{U: rng.Int64N(max(1, n/4)), V: rng.Int64N(n)})
		}
		graphs = append(graphs, append(edges, graph.Edge{U: n - 1, V: n - 1}))
	}
	for gi, edges := range graphs {
		n := int64(0)
		for _, e := range edges {
			n = max(n, e.U+1, e.V+1)
		}
		sh, err := idBits(n)
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]uint64, len(edges))
		for i, e := range edges {
			keys[i] = uint64(e.U)<<sh | uint64(e.V)
		}
		for _, threads := range []int{1, 3} {
			a := buildPRMatrix(slices.Clone(keys), sh, 0, n, threads)
			if !a.fused {
				t.Fatalf("graph %d: a one-rank matrix is not laid out fused", gi)
			}
			deg := make([]float64, n)
			for i, v := range a.in {
				deg[v] = a.localDeg[i]
			}
			at := a.positions()
			order, posOfSlot := localOrder(a, func(v uint32) int { return int(at[v]) }, deg, threads)
			if !slices.Equal(order, a.order) {
				t.Fatalf("graph %d, %d threads: the fused layout is not localOrder's", gi, threads)
			}
			// The fused copy as newPRLocal makes it: into new room, and in
			// place into spare.
			fresh, inPlace := make([]uint32, len(a.src)), slices.Clone(a.src)
			for p, v := range order {
				lo, hi := a.colStart[at[v]], a.colStart[at[v]+1]
				if lo != a.colStart[p] {
					t.Fatalf("graph %d: position %d starts at %d, its column at %d", gi, p, a.colStart[p], lo)
				}
				col := inPlace[a.colStart[p] : a.colStart[p]+hi-lo]
				for k, s := range inPlace[lo:hi] {
					fresh[lo+k], col[k] = posOfSlot[s], posOfSlot[s]
				}
				slices.Sort(fresh[lo:hi])
				slices.Sort(col)
			}
			if !slices.Equal(fresh, inPlace) {
				t.Fatalf("graph %d: the copy made in place differs", gi)
			}
			if spare := a.spare(); len(a.src) > 0 && &spare[0] != &a.src[0] {
				t.Fatalf("graph %d: a fused matrix's spare room is not its sources", gi)
			}
			checkArranged(t, a, rng)
		}
	}
}
