// Paper tests of the distributed CSR (kernel 1) against Huiwei Lv, Guangming
// Tan, Mingyu Chen and Ninghui Sun, "Compression and Sieve: Reducing
// Communication in Parallel Breadth First Search on Distributed Memory
// Systems", arXiv preprint, 2012: the example graph of its Fig. 2 (§II),
// whose adjacency matrix §III-A prints, built on the four processors of
// that example, P1 {0,1} to P4 {6,7}. Kernel 1's row blocks are multiples
// of 64 vertices (so that frontier bitmaps concatenate word by word), so
// the example's vertex v is global id lvID(v), in blocks of 128: each
// processor owns its two example vertices first, in the same order.

package graph

import (
	"slices"
	"testing"

	"github.com/graphrun/graphrun/partition"
)

// lvFig2Rows are the rows of the adjacency matrix of Lv et al. Fig. 2, as
// §III-A prints A^T (the graph is undirected, so A = A^T): vertex v's
// neighbours.
var lvFig2Rows = [8][]int64{
	{2, 3, 5}, {6, 7}, {0, 4}, {0, 5, 6}, {2, 7}, {0, 3, 7}, {1, 3}, {1, 4, 5},
}

// lvID is the global id of the example's vertex v; lvVertex inverts it.
func lvID(v int64) int64 { return v/2*128 + v%2 }

func lvVertex(g int64) int64 { return g/128*2 + g%128 }

// buildLvFig2 builds the Fig. 2 graph on Lv et al.'s four processors, each
// undirected edge given once, by a rank that does not own it, and returns
// the partition and every rank's CSR.
func buildLvFig2(t *testing.T) (partition.Block1D, []*CSR) {
	t.Helper()
	part := block1D(t, 4*128, 4)
	perRank := make([][]Edge, 4)
	for u, row := range lvFig2Rows {
		for _, v := range row {
			if int64(u) < v {
				r := (part.Owner(lvID(int64(u))) + 1) % 4
				perRank[r] = append(perRank[r], Edge{U: lvID(int64(u)), V: lvID(v)})
			}
		}
	}
	gs, err := runBuild(part, perRank, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	return part, gs
}

// TestEachProcessorHoldsItsRowBlock_LvSecIIIB_Alg1: in Algorithm 1 (line 4)
// processor P_i multiplies its own row block A_i. Kernel 1 gives each rank
// exactly the rows of the vertices the example assigns it (P1 {0,1}, ...,
// P4 {6,7}), whoever read the tuples, with neighbours as global ids.
func TestEachProcessorHoldsItsRowBlock_LvSecIIIB_Alg1(t *testing.T) {
	_, gs := buildLvFig2(t)
	for r, g := range gs {
		if g.FirstGlobal != lvID(int64(2*r)) || g.NumLocal != 128 {
			t.Fatalf("P%d holds global ids %d.. (%d of them), want its block from %d", r+1, g.FirstGlobal, g.NumLocal, lvID(int64(2*r)))
		}
		for l := range g.NumLocal {
			var row []int64
			for i := g.Offsets[l]; i < g.Offsets[l+1]; i++ {
				row = append(row, lvVertex(g.Neighbor(i)))
			}
			var want []int64
			if l < 2 {
				want = slices.Clone(lvFig2Rows[2*r+l])
				slices.Reverse(want)
			}
			if !slices.Equal(row, want) {
				t.Errorf("P%d local row %d: %v, want %v", r+1, l, row, want)
			}
		}
	}
}

// TestLevelsAreRowBlockSpMV_LvSecIIIA: a level is f_L(k+1) = A^T ⊗ f_Lk ⊙
// ¬π_k, each processor computing the entries of its own rows. From vertex
// 0 the row blocks give the frontiers §III-A lists: {2,3,5}, {4,6,7}, {1}.
func TestLevelsAreRowBlockSpMV_LvSecIIIA(t *testing.T) {
	_, gs := buildLvFig2(t)
	frontier, visited := []int64{0}, map[int64]bool{0: true}
	want := [][]int64{{2, 3, 5}, {4, 6, 7}, {1}, nil}
	for k, w := range want {
		var next []int64
		for _, g := range gs { // each processor, its rows only
			for l := range 2 {
				v := lvVertex(g.FirstGlobal + int64(l))
				if visited[v] {
					continue
				}
				for _, u := range frontier {
					if g.HasEdge(uint32(l), lvID(u)) {
						next = append(next, v)
						break
					}
				}
			}
		}
		for _, v := range next {
			visited[v] = true
		}
		if !slices.Equal(next, w) {
			t.Fatalf("f_L%d = %v, want %v", k+1, next, w)
		}
		frontier = next
	}
}

// TestDescendingRowsFindTheMaxParentFirst_LvSecIIIA: the (select, max)
// semiring keeps, of a vertex's frontier neighbours, the largest id. Rows
// are stored in descending order, so the first frontier neighbour a scan
// meets is that maximum and the scan can stop there.
func TestDescendingRowsFindTheMaxParentFirst_LvSecIIIA(t *testing.T) {
	_, gs := buildLvFig2(t)
	frontier := map[int64]bool{2: true, 3: true, 5: true} // f_L1
	for _, g := range gs {
		for l := range 2 {
			v := lvVertex(g.FirstGlobal + int64(l))
			first, best := int64(-1), int64(-1)
			for i := g.Offsets[l]; i < g.Offsets[l+1]; i++ {
				if u := lvVertex(g.Neighbor(i)); frontier[u] {
					if first < 0 {
						first = u
					}
					best = max(best, u)
				}
			}
			if first != best {
				t.Errorf("vertex %d: the scan meets parent %d first, the max is %d", v, first, best)
			}
		}
	}
}
