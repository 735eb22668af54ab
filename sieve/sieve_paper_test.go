package sieve

// Tests named for the parts of Lv et al. (Compression and Sieve, 2012; cited
// in full in the package doc) that this package implements: the cross
// directory of §V-A (eqs. 4–5), the sieve of Alg. 3 line 9, Lemmas V.1–V.2
// of §V-C, and graphrun's packed sieve on top of them. Most of them run on
// the 8-vertex graph of the paper's Fig. 2, spread over 4 ranks as in its
// Fig. 3: P1 holds v0, v1; P2 v2, v3; P3 v4, v5; P4 v6, v7 (ranks 0..3
// here).

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// fig2Edges are the undirected edges of Lv et al. Fig. 2, read off the
// adjacency matrix of §III-A.
var fig2Edges = [][2]int{{0, 2}, {0, 3}, {0, 5}, {1, 6}, {1, 7}, {2, 4}, {3, 5}, {3, 6}, {4, 7}, {5, 7}}

// fig2ID is the vertex id of the paper's v_k: processor P_{k/2+1} owns v_k
// as its (k mod 2)-th vertex. graphrun's 1D blocks are multiples of 64
// vertices, so each rank's two vertices start its block of 64; the other
// vertices are isolated.
func fig2ID(k int) int64 { return int64(k/2)*64 + int64(k%2) }

// fig2 is the Fig. 2 graph on 4 ranks with every rank's directory.
func fig2(t *testing.T) (csrtest.Graph, partition.Block1D, []*graph.CSR, []*Directory) {
	t.Helper()
	g := csrtest.Graph{Name: "fig2", N: 4 * 64}
	for _, e := range fig2Edges {
		g.Edges = append(g.Edges, graph.Edge{U: fig2ID(e[0]), V: fig2ID(e[1])})
	}
	part, csrs := csrtest.Build(t, g, 4, 1)
	return g, part, csrs, buildAll(t, part, csrs, 1)
}

// localSet returns the local positions set in a rank's bitmap.
func localSet(b frontier.Bitmap) []int64 {
	var s []int64
	for l := range int64(len(b)) * 64 {
		if b.Test(l) {
			s = append(s, l)
		}
	}
	return s
}

// TestCrossDirectoryMarksEdgesIntoPeerRows_Eq4 checks the directory vector
// of Lv et al. §V-A, eq. 4: bit u of V(i,j) is set exactly when u, owned by
// rank j, has an edge into rank i's rows. On Fig. 2 this gives the paper's
// own example, V_{4,2} = (0, 1): P4 needs only v3 from P2 (Fig. 3(d)), as
// v2 has no neighbour among v6, v7. The full directory, and that of random
// graphs on 1 to 5 ranks, is compared with the definition evaluated from
// the edge list.
func TestCrossDirectoryMarksEdgesIntoPeerRows_Eq4(t *testing.T) {
	g, part, _, dirs := fig2(t)
	if got := localSet(dirs[1].Column(3)); !slices.Equal(got, []int64{1}) {
		t.Fatalf("V(P4,P2) holds P2's local vertices %v, want [1] (v3 only)", got)
	}
	owners := neighbourOwners(g, part)
	for j, d := range dirs {
		checkAgainstEdges(t, d, owners, part, j)
	}
	rng := rand.New(rand.NewPCG(31, 1))
	for gi := range testgraph.Shapes {
		g := csrtest.Random(rng, gi)
		for p := 1; p <= 5; p++ {
			part, csrs := csrtest.Build(t, g, p, 2)
			owners := neighbourOwners(g, part)
			for j, d := range buildAll(t, part, csrs, 2) {
				checkAgainstEdges(t, d, owners, part, j)
			}
		}
	}
}

// TestSieveSendsOnlyDirectoryPositions_Alg3 checks the sieve of Lv et al.
// Alg. 3 line 9, f_{j→i} = f_j ⊙ V(i,j): a rank sends a peer only the
// frontier vertices in the peer's directory vector. The paper's example
// (§V-A): with P2's frontier (v2, v3) = (1, 1), P2 sends P4 (0, 1), one
// vertex instead of two. On random frontiers of random graphs the sieved
// bitmap is exactly the intersection, so it never holds a vertex outside
// V(i,j) nor drops one inside it.
func TestSieveSendsOnlyDirectoryPositions_Alg3(t *testing.T) {
	_, part, _, dirs := fig2(t)
	f2 := make(frontier.Bitmap, part.Words(1))
	f2.Set(0) // v2
	f2.Set(1) // v3
	if got := localSet(dirs[1].Sieve(nil, f2, 3)); !slices.Equal(got, []int64{1}) {
		t.Fatalf("P2 sieves (v2, v3) for P4 to local vertices %v, want [1] (v3)", got)
	}
	rng := rand.New(rand.NewPCG(31, 2))
	for gi := range testgraph.Shapes {
		g := csrtest.Random(rng, gi)
		part, csrs := csrtest.Build(t, g, 4, 2)
		dirs := buildAll(t, part, csrs, 2)
		for j, d := range dirs {
			f := randomFrontier(rng, part.Words(j), part.Count(j), 0.4)
			for i := range part.P {
				s := d.Sieve(nil, f, i)
				col := d.Column(i)
				for l := range int64(part.Count(j)) {
					if want := f.Test(l) && col.Test(l); s.Test(l) != want {
						t.Fatalf("%s: rank %d's sieve for %d, vertex %d: %v, want f∧V = %v", g.Name, j, i, l, s.Test(l), want)
					}
				}
			}
		}
	}
}

// bottomUpBFS runs a level-synchronous bottom-up BFS from root over the
// ranks' rows: every unvisited vertex takes as parent the first frontier
// vertex of its row, which holds neighbours in descending order, so the
// parent is the largest-labelled one (the (select, max) semiring of Lv et
// al. §III-A). With sieved, rank i reads the frontier the other ranks send
// it after sieving (Alg. 3); without, the whole frontier (Alg. 1). It
// returns every vertex's parent (−1: unreached) and the frontiers by level.
func bottomUpBFS(part partition.Block1D, csrs []*graph.CSR, dirs []*Directory, root int64, sieved bool) (parent []int64, levels [][]int64) {
	parent = make([]int64, part.N)
	for v := range parent {
		parent[v] = -1
	}
	parent[root] = root
	f := frontier.NewBitmap(part.N)
	f.Set(root)
	for f.Count() > 0 {
		levels = append(levels, localSet(f))
		next := frontier.NewBitmap(part.N)
		for i, g := range csrs {
			seen := f
			if sieved {
				seen = frontier.NewBitmap(part.N)
				for j := range part.P {
					w0 := int(part.First(j) >> 6)
					copy(seen[w0:], dirs[j].Sieve(nil, f[w0:w0+part.Words(j)], i))
				}
			}
			for v := range g.NumLocal {
				gv := g.FirstGlobal + int64(v)
				for k := g.Offsets[v]; k < g.Offsets[v+1] && parent[gv] < 0; k++ {
					if u := g.Neighbor(k); seen.Test(u) {
						parent[gv] = u
						next.Set(gv)
					}
				}
			}
		}
		f = next
	}
	return parent, levels
}

// TestBottomUpUnchangedBySieve_LemmaV2 checks Lemmas V.1 and V.2 of Lv et
// al. §V-C: t_i = Σ_j A_{i,j} ⊗ f_{j→i} equals A_i ⊗ f, so a BFS whose
// ranks read only sieved frontiers finds the same parent for every vertex
// as one that reads the whole frontier. On Fig. 2 from v0 both find the
// paper's levels {v0}, {v2, v3, v5}, {v4, v6, v7}, {v1} and the
// largest-label parents; random graphs on 3 ranks agree too.
func TestBottomUpUnchangedBySieve_LemmaV2(t *testing.T) {
	_, part, csrs, dirs := fig2(t)
	plain, levels := bottomUpBFS(part, csrs, dirs, fig2ID(0), false)
	sieved, sievedLevels := bottomUpBFS(part, csrs, dirs, fig2ID(0), true)
	wantLevels := [][]int{{0}, {2, 3, 5}, {4, 6, 7}, {1}}
	wantParent := []int{0, 7, 0, 0, 2, 0, 3, 5} // of v0..v7
	if len(levels) != len(wantLevels) {
		t.Fatalf("%d levels, want %d", len(levels), len(wantLevels))
	}
	for l, want := range wantLevels {
		ids := make([]int64, len(want))
		for x, k := range want {
			ids[x] = fig2ID(k)
		}
		if !slices.Equal(levels[l], ids) || !slices.Equal(sievedLevels[l], ids) {
			t.Fatalf("level %d: %v unsieved, %v sieved; want %v", l, levels[l], sievedLevels[l], ids)
		}
	}
	for k, p := range wantParent {
		if plain[fig2ID(k)] != fig2ID(p) || sieved[fig2ID(k)] != fig2ID(p) {
			t.Fatalf("parent of v%d: %d unsieved, %d sieved; want %d (v%d)", k, plain[fig2ID(k)], sieved[fig2ID(k)], fig2ID(p), p)
		}
	}
	rng := rand.New(rand.NewPCG(31, 3))
	for gi := range testgraph.Shapes {
		g := csrtest.Random(rng, gi)
		part, csrs := csrtest.Build(t, g, 3, 2)
		dirs := buildAll(t, part, csrs, 2)
		root := rng.Int64N(g.N)
		a, _ := bottomUpBFS(part, csrs, dirs, root, false)
		b, _ := bottomUpBFS(part, csrs, dirs, root, true)
		if !slices.Equal(a, b) {
			t.Fatalf("%s from %d: the sieve changed the BFS tree", g.Name, root)
		}
	}
}

// TestPackedSieveSendsUnsentDirectoryPositions checks graphrun's packed
// sieve, the step after Lv et al. Alg. 3 line 9: along a search, the
// message from rank j to rank i has one bit per position of V(i,j) not
// yet sent as set, and bit k of it is the frontier bit at the k-th such
// position. On Fig. 2 from v0, P2's messages to P4 are the single bit of
// v3, clear at level 0 and set at level 1; once v3 has been sent, P2 has
// nothing left to send P4.
func TestPackedSieveSendsUnsentDirectoryPositions(t *testing.T) {
	_, part, csrs, dirs := fig2(t)
	packers := make([]*Packer, part.P)
	unsent := make([][]frontier.Bitmap, part.P) // [j][i]: V(i,j) minus what j sent i
	for j, d := range dirs {
		pk, err := NewPacker(d, csrs[j], 1)
		if err != nil {
			t.Fatal(err)
		}
		packers[j] = pk
		unsent[j] = make([]frontier.Bitmap, part.P)
		for i := range part.P {
			unsent[j][i] = slices.Clone(d.Column(i))
		}
	}
	_, levels := bottomUpBFS(part, csrs, dirs, fig2ID(0), false)
	for l, level := range levels {
		for j := range part.P {
			f := make(frontier.Bitmap, part.Words(j))
			for _, v := range level {
				if part.Owner(v) == j {
					f.Set(int64(part.Local(v)))
				}
			}
			for i := range part.P {
				if i == j {
					continue
				}
				pos := localSet(unsent[j][i])
				if packers[j].Live(i) != len(pos) {
					t.Fatalf("level %d, %d→%d: %d live positions, want %d unsent directory positions", l, j, i, packers[j].Live(i), len(pos))
				}
				msg := packers[j].Pack(nil, f, i)
				for k, u := range pos {
					if msg.Test(int64(k)) != f.Test(u) {
						t.Fatalf("level %d, %d→%d: packed bit %d is %v, frontier bit of position %d is %v", l, j, i, k, msg.Test(int64(k)), u, f.Test(u))
					}
					if f.Test(u) {
						unsent[j][i].Unset(u)
					}
				}
				if extra := localSet(msg); len(extra) > 0 && extra[len(extra)-1] >= int64(len(pos)) {
					t.Fatalf("level %d, %d→%d: packed bit %d beyond the %d positions", l, j, i, extra[len(extra)-1], len(pos))
				}
				if j == 1 && i == 3 {
					checkP2ToP4(t, l, len(pos), msg)
				}
			}
		}
	}
}

// checkP2ToP4 checks the Fig. 2 example of the packed sieve: P2's message
// to P4 is v3's bit, set, at level 1 (v3 is in the frontier) and empty
// from then on.
func checkP2ToP4(t *testing.T, level, bits int, msg frontier.Bitmap) {
	t.Helper()
	switch {
	case level == 0 && (bits != 1 || msg.Test(0)):
		t.Fatalf("level 0: P2→P4 sends %d bits %v, want v3's bit, clear", bits, localSet(msg))
	case level == 1 && (bits != 1 || !msg.Test(0)):
		t.Fatalf("level 1: P2→P4 sends %d bits %v, want v3's bit, set", bits, localSet(msg))
	case level > 1 && bits != 0:
		t.Fatalf("level %d: P2→P4 sends %d bits after v3 was sent", level, bits)
	}
}
