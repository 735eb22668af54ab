package pagerank

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// TestBuildPRMatrix checks the local matrix against a plain construction
// from the edge set: in-set, out-set with the block, degrees, slots by
// descending degree, and every column's sources in slot order.
func TestBuildPRMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for trial := range 60 {
		n := int64(1 + rng.IntN(300))
		if trial%10 == 9 {
			n = 1
		}
		sh, err := idBits(n)
		if err != nil {
			t.Fatal(err)
		}
		m := rng.IntN(int(4 * n))
		if trial%7 == 0 {
			m = 0
		}
		var keys []uint64
		set := map[[2]int64]bool{}
		for range m {
			u := rng.Int64N(n)
			if rng.IntN(2) == 0 {
				u = rng.Int64N(max(1, n/8)) // heavy sources
			}
			v := rng.Int64N(n)
			keys = append(keys, uint64(u)<<sh|uint64(v))
			if rng.IntN(4) == 0 { // duplicate
				keys = append(keys, uint64(u)<<sh|uint64(v))
			}
			set[[2]int64{u, v}] = true
		}
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		first := rng.Int64N(n)
		cnt := rng.Int64N(n - first + 1)
		var src1 []uint32
		var colStart1 []int
		var slot1 []uint32
		for _, threads := range []int{1, 2, 5} {
			a := buildPRMatrix(slices.Clone(keys), sh, first, cnt, threads)
			checkPRMatrix(t, a, set, first, cnt, threads)
			if src1 == nil {
				src1, colStart1, slot1 = slices.Clone(a.src), slices.Clone(a.colStart), slices.Clone(a.slot)
			} else if !slices.Equal(a.src, src1) || !slices.Equal(a.colStart, colStart1) || !slices.Equal(a.slot, slot1) {
				t.Fatalf("trial %d: the matrix depends on the thread count", trial)
			}
			checkArranged(t, a, rng)
		}
	}
}

// checkArranged arranges a built matrix and checks that every worker's
// columns are now by descending length (ties by out-set index), that each
// keeps its edges in order, and that pull gives every column's sum in the
// order sumRuns documents, at the column's position.
func checkArranged(t *testing.T, a *prMatrix, rng *rand.Rand) {
	t.Helper()
	cols := make([][]uint32, len(a.out))
	for j := range cols {
		cols[j] = slices.Clone(columnOf(a, j))
	}
	a.arrange()
	seen := make([]bool, len(a.out))
	for w := 0; w+1 < len(a.splits) && !a.fused; w++ { // a fused matrix keeps the fused order
		for p := a.splits[w]; p < a.splits[w+1]; p++ {
			j := a.order[p]
			if j < uint32(a.splits[w]) || j >= uint32(a.splits[w+1]) || seen[j] {
				t.Fatalf("position %d holds column %d: not a permutation within worker %d's %v", p, j, w, a.splits)
			}
			seen[j] = true
			if !slices.Equal(a.src[a.colStart[p]:a.colStart[p+1]], cols[j]) {
				t.Fatalf("column %d moved without its edges in order", j)
			}
			if p > a.splits[w] {
				prev, cur := len(cols[a.order[p-1]]), len(cols[j])
				if prev < cur || prev == cur && a.order[p-1] > j {
					t.Fatalf("positions %d, %d: columns %d (%d edges), %d (%d edges)", p-1, p, a.order[p-1], prev, j, cur)
				}
			}
		}
	}
	x := make([]float64, len(a.in))
	for i := range x {
		x[i] = rng.Float64()
	}
	y := make([]float64, len(a.out))
	a.pull(x, y)
	at := a.positions()
	for j, col := range cols {
		if p := at[j]; a.order[p] != uint32(j) {
			t.Fatalf("positions: column %d at %d, where order has %d", j, p, a.order[p])
		}
		if want := referenceColumnSum(col, x); y[at[j]] != want {
			t.Fatalf("column %d (position %d): sum %v, want %v", j, at[j], y[at[j]], want)
		}
	}
}

func checkPRMatrix(t *testing.T, a *prMatrix, set map[[2]int64]bool, first, cnt int64, threads int) {
	t.Helper()
	deg := map[int64]int{}
	outs := map[int64]bool{}
	for e := range set {
		deg[e[0]]++
		outs[e[1]] = true
	}
	for v := first; v < first+cnt; v++ {
		outs[v] = true
	}
	var wantIn, wantOut []int64
	for u := range deg {
		wantIn = append(wantIn, u)
	}
	for v := range outs {
		wantOut = append(wantOut, v)
	}
	slices.Sort(wantIn)
	slices.Sort(wantOut)
	if !slices.Equal(a.in, wantIn) || !slices.Equal(a.out, wantOut) {
		t.Fatalf("in %v out %v, want %v and %v", a.in, a.out, wantIn, wantOut)
	}
	if len(a.src) != len(set) || len(a.colStart) != len(a.out)+1 || a.colStart[len(a.out)] != len(set) {
		t.Fatalf("%d edges, colStart %v, want %d edges", len(a.src), a.colStart, len(set))
	}
	vertexAt := make([]int64, len(a.in)) // slot → in-set vertex
	seen := make([]bool, len(a.in))
	for l, q := range a.slot {
		if seen[q] {
			t.Fatalf("slot %d used twice", q)
		}
		seen[q] = true
		vertexAt[q] = a.in[l]
		if int(a.localDeg[l]) != deg[a.in[l]] {
			t.Fatalf("vertex %d: degree %v, want %d", a.in[l], a.localDeg[l], deg[a.in[l]])
		}
	}
	for q := 1; q < len(vertexAt); q++ {
		d0, d1 := deg[vertexAt[q-1]], deg[vertexAt[q]]
		if d0 < d1 || d0 == d1 && vertexAt[q-1] > vertexAt[q] {
			t.Fatalf("slots not by descending degree, then id, at %d", q)
		}
	}
	got := 0
	for j, v := range a.out {
		col := columnOf(a, j)
		for i, q := range col {
			if i > 0 && q <= col[i-1] {
				t.Fatalf("column %d not in ascending slot order", v)
			}
			if !set[[2]int64{vertexAt[q], v}] {
				t.Fatalf("edge (%d, %d) is not an input edge", vertexAt[q], v)
			}
			got++
		}
	}
	if got != len(set) {
		t.Fatalf("%d edges in the columns, want %d", got, len(set))
	}
	if len(a.splits) != threads+1 || a.splits[0] != 0 || a.splits[threads] != len(a.out) || !slices.IsSorted(a.splits) {
		t.Fatalf("splits %v for %d columns and %d threads", a.splits, len(a.out), threads)
	}
}

// columnOf returns the sources of the column of out-set vertex j, wherever
// the matrix's layout put it.
func columnOf(a *prMatrix, j int) []uint32 {
	p := j
	if a.order != nil {
		p = int(a.positions()[j])
	}
	return a.src[a.colStart[p]:a.colStart[p+1]]
}

func TestIDBits(t *testing.T) {
	for _, c := range []struct {
		n    int64
		bits uint
	}{{1, 0}, {2, 1}, {3, 2}, {1 << 20, 20}, {1<<20 + 1, 21}, {1 << 32, 32}} {
		if b, err := idBits(c.n); err != nil || b != c.bits {
			t.Errorf("idBits(%d) = %d, %v; want %d", c.n, b, err, c.bits)
		}
	}
	if _, err := idBits(1<<32 + 1); err == nil {
		t.Error("idBits accepted 2^32+1 vertices")
	}
}

// TestPageRankThreads: the scores are bit-identical for every thread
// count, on one and on several ranks.
func TestPageRankThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	var edges []graph.Edge
	for range 20000 {
		// Power-law-ish sources over sparse ids.
		u := int64(math.Floor(math.Exp(rng.Float64() * 8)))
		edges = append(edges, graph.Edge{U: u * 977, V: rng.Int64N(3000) * 977})
	}
	for _, p := range []int{1, 3} {
		var first map[int64]float64
		for _, threads := range []int{1, 2, 3} {
			cfg := DefaultConfig()
			cfg.Threads = threads
			cfg.Allreduce = AllreduceKylix
			_, got, _ := runPageRank(t, p, edges, cfg, 1)
			if first == nil {
				first = got
				continue
			}
			for v, s := range got {
				if math.Float64bits(s) != math.Float64bits(first[v]) {
					t.Fatalf("p=%d threads=%d: vertex %d: %v, with 1 thread %v", p, threads, v, s, first[v])
				}
			}
		}
	}
}
