package partition

// Tests named for what NumS (Elibol et al., 2022; cited in full in the
// package doc) specifies of Load Simulated Hierarchical Scheduling: the
// greedy step of §5 Algorithm 1, the objective of §5.1 equation 2, and the
// grid shapes of §4, with graphrun's blocks of an adjacency matrix as the
// operations to place.

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// eq2 evaluates NumS eq. 2 from scratch for the blocks placed so far
// (owner[k] < 0: not yet placed): per rank, memory (or work, when the
// blocks carry work), bytes in and bytes out under PlacementProblem's
// model, and the sum of the three maxima over the ranks.
func eq2(pb PlacementProblem, owner []int) int64 {
	mem := make([]int64, pb.Ranks)
	work := make([]int64, pb.Ranks)
	in := make([]int64, pb.Ranks)
	out := make([]int64, pb.Ranks)
	holds := map[[3]int]bool{} // {rank, 0 for a column or 1 for a row, index}
	for blk, k := range owner {
		if k < 0 {
			continue
		}
		a, b := blk/pb.BlockCols, blk%pb.BlockCols
		mem[k] += pb.Blocks[blk].Memory
		work[k] += pb.Blocks[blk].Work
		if col := [3]int{k, 0, b}; !holds[col] {
			holds[col] = true
			if home := pb.ColHome[b]; home != k {
				mem[k] += pb.ColBytes[b]
				in[k] += pb.ColBytes[b]
				out[home] += pb.ColBytes[b]
			}
		}
		if row := [3]int{k, 1, a}; !holds[row] {
			holds[row] = true
			if home := pb.RowHome[a]; home != k {
				mem[k] += pb.RowBytes[a]
				out[k] += pb.RowBytes[a]
				in[home] += pb.RowBytes[a]
			}
		}
	}
	first := slices.Max(mem)
	if pb.hasWork() {
		first = slices.Max(work)
	}
	return first + slices.Max(in) + slices.Max(out)
}

// TestEachBlockGoesWhereEq2IsLeast_Alg1 checks the step of NumS §5
// Algorithm 1: each operation (here a block, largest first) is placed on
// the node whose simulated placement gives the least objective (eq. 2 of
// §5.1), given the blocks placed before it. The objective is evaluated
// from scratch for every candidate rank, independently of LSHS's
// incremental state, on random problems with and without network cost and
// with memory or work as the first term; Placement.Objective is eq. 2 of
// the final placement.
func TestEachBlockGoesWhereEq2IsLeast_Alg1(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 1))
	for trial := range 12 {
		br, bc, p := 1+rng.IntN(8), 1+rng.IntN(8), 1+rng.IntN(9)
		pb := randomProblem(rng, br, bc, p, int64(trial%3)*2000)
		size := func(k int) int64 { return pb.Blocks[k].Memory }
		if trial%2 == 1 {
			for k := range pb.Blocks {
				pb.Blocks[k].Work = 1 + rng.Int64N(5000)
			}
			size = func(k int) int64 { return pb.Blocks[k].Work }
		}
		pl, err := PlaceLSHS(pb, OrderLargestFirst, 0)
		if err != nil {
			t.Fatal(err)
		}
		seq := make([]int, len(pb.Blocks))
		for k := range seq {
			seq[k] = k
		}
		slices.SortStableFunc(seq, func(x, y int) int { return cmp.Compare(size(y), size(x)) })
		placed := slices.Repeat([]int{-1}, len(pb.Blocks))
		for step, blk := range seq {
			best := int64(math.MaxInt64)
			for k := range p {
				placed[blk] = k
				best = min(best, eq2(pb, placed))
			}
			placed[blk] = pl.Owner[blk]
			if got := eq2(pb, placed); got != best {
				t.Fatalf("trial %d (%dx%d on %d), step %d: block %d on rank %d gives eq. 2 = %d, the least is %d",
					trial, br, bc, p, step, blk, pl.Owner[blk], got, best)
			}
		}
		if pl.Objective() != eq2(pb, pl.Owner) {
			t.Fatalf("trial %d: Objective %d, eq. 2 of the placement %d", trial, pl.Objective(), eq2(pb, pl.Owner))
		}
	}
}

// kroneckerBlocks is the expected share of the edges of each block of a
// 2^levels × 2^levels grid over an unpermuted Kronecker graph with the
// Graph500 initiator (A, B, C, D) = (0.57, 0.19, 0.19, 0.05), scaled to
// total entries: block (a, b) gets the product over the levels of the
// quadrant probability picked by the bits of a and b.
func kroneckerBlocks(levels int, total float64) []PlacementBlock {
	side := 1 << levels
	quad := [2][2]float64{{0.57, 0.19}, {0.19, 0.05}}
	blocks := make([]PlacementBlock, side*side)
	for a := range side {
		for b := range side {
			w := 1.0
			for l := range levels {
				w *= quad[a>>l&1][b>>l&1]
			}
			e := int64(math.Round(w * total))
			blocks[a*side+b] = PlacementBlock{Edges: e, Memory: BlockMemory(e, 1<<16, 1<<16, min(e, 1<<16), min(e, 1<<16))}
		}
	}
	return blocks
}

// TestLSHSNoWorseThanRoundRobin_Skewed checks the claim LSHS is used for
// (NumS §5, against §4's cyclic layout): on the skewed blocks of an
// unpermuted Kronecker graph, a 16×16 grid placed on rank counts that do
// not divide it, LSHS's largest rank memory and its eq. 2 objective are
// never above round-robin's, and its memory imbalance is lower.
func TestLSHSNoWorseThanRoundRobin_Skewed(t *testing.T) {
	const n = 1 << 20
	blocks := kroneckerBlocks(4, 16*n)
	for _, p := range []int{3, 5, 6, 7, 12} {
		pb, err := GridProblem(n, 16, 16, p, blocks)
		if err != nil {
			t.Fatal(err)
		}
		lshs, err := PlaceLSHS(pb, OrderLargestFirst, 0)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := PlaceRoundRobin(pb)
		if err != nil {
			t.Fatal(err)
		}
		maxMem := func(pl Placement) int64 {
			var m int64
			for _, l := range pl.Loads {
				m = max(m, l.Memory)
			}
			return m
		}
		what := fmt.Sprintf("%d ranks: max memory %d LSHS, %d round-robin; eq. 2 %d and %d; imbalance %.3f and %.3f",
			p, maxMem(lshs), maxMem(rr), lshs.Objective(), rr.Objective(), lshs.Imbalance().Memory, rr.Imbalance().Memory)
		t.Log(what)
		if maxMem(lshs) > maxMem(rr) || lshs.Objective() > rr.Objective() || lshs.Imbalance().Memory >= rr.Imbalance().Memory {
			t.Errorf("%s", what)
		}
	}
}

// TestGridShapeRule_Sec4 checks the grid shapes: NumS §4 factors the p
// workers over an array's dimensions by a softmax of its shape, which for
// a square matrix (an adjacency matrix) gives √p × √p; AutoGrid gives
// that square grid whenever p is a square and otherwise the most square
// factorisation r×c = p with r ≥ c, noting when only p×1 exists (p prime)
// or the sides differ by more than a factor of 2.
func TestGridShapeRule_Sec4(t *testing.T) {
	for p := 1; p <= 130; p++ {
		r, c, note := AutoGrid(p)
		if r*c != p || r < c {
			t.Fatalf("AutoGrid(%d) = %dx%d", p, r, c)
		}
		if s := int(math.Sqrt(float64(p))); s*s == p && (r != s || c != s) {
			t.Fatalf("AutoGrid(%d) = %dx%d, want the square %dx%d", p, r, c, s, s)
		}
		for d := c + 1; d*d <= p; d++ {
			if p%d == 0 {
				t.Fatalf("AutoGrid(%d) = %dx%d, but %dx%d is more square", p, r, c, p/d, d)
			}
		}
		if wantNote := (p > 1 && c == 1) || r > 2*c; wantNote != (note != "") {
			t.Fatalf("AutoGrid(%d) = %dx%d with note %q", p, r, c, note)
		}
	}
}
