package pagerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
)

// kronPREdges is a Kronecker graph's tuples as directed edges: at scale 13
// it has several update blocks (prBlock) of vertices.
func kronPREdges(scale int) []graph.Edge {
	kp := kronecker.DefaultParams(scale)
	edges := make([]graph.Edge, kp.NumEdges())
	kp.Generate(0, edges)
	return edges
}

// TestPageRankThreadsInvariant: for a given rank count the scores, the
// residual and the total are the same bits on any thread count — the
// one-rank fused iteration and the multi-rank update at home both sum their
// scalars per fixed block, combined in block order — and the one-rank and
// two-rank runs agree up to rounding; on the sparse and the dense
// allreduce.
func TestPageRankThreadsInvariant(t *testing.T) {
	for _, kind := range []Allreduce{AllreduceKylix, AllreduceDense} {
		t.Run(kind.String(), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Iterations, cfg.Allreduce = 12, kind
			checkThreadsInvariant(t, kronPREdges(13), cfg)
		})
	}
	t.Run("ids-local", func(t *testing.T) { // the one-rank order by id ranges
		cfg := DefaultConfig()
		cfg.Iterations = 12
		checkThreadsInvariant(t, gridPREdges(100), cfg)
	})
}

// gridPREdges is a side×side grid, row by row, each edge both ways: a
// graph whose ids are local (idsLocal).
func gridPREdges(side int) []graph.Edge {
	var edges []graph.Edge
	for v := range int64(side * side) {
		if (v+1)%int64(side) != 0 {
			edges = append(edges, graph.Edge{U: v, V: v + 1}, graph.Edge{U: v + 1, V: v})
		}
		if v+int64(side) < int64(side*side) {
			edges = append(edges, graph.Edge{U: v, V: v + int64(side)}, graph.Edge{U: v + int64(side), V: v})
		}
	}
	return edges
}

// TestIDsLocal: a grid numbered row by row has local ids, a Graph500
// Kronecker graph (ids permuted) does not, and only the first is ordered
// by id ranges, each range's vertices together.
func TestIDsLocal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edges []graph.Edge
		local bool
	}{{"grid", gridPREdges(40), true}, {"kronecker", kronPREdges(11), false}} {
		n := int64(0)
		for _, e := range tc.edges {
			n = max(n, e.U+1, e.V+1)
		}
		sh, err := idBits(n)
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]uint64, len(tc.edges))
		for i, e := range tc.edges {
			keys[i] = uint64(e.U)<<sh | uint64(e.V)
		}
		a := buildPRMatrix(keys, sh, 0, n, 2)
		at := a.positions()
		column := func(v uint32) int { return int(at[v]) }
		vertexOf := make([]uint32, len(a.in))
		for i, v := range a.in {
			vertexOf[a.slot[i]] = uint32(v)
		}
		if got := idsLocal(a, column, vertexOf); got != tc.local {
			t.Fatalf("%s: idsLocal %v, want %v", tc.name, got, tc.local)
		}
		deg := make([]float64, n)
		for _, e := range tc.edges {
			deg[e.U]++
		}
		order, _ := localOrder(a, column, deg, 2)
		ranges := 0
		for p := 1; p < len(order); p++ {
			if deg[order[p]] > 0 && uint64(order[p])<<idRangeBits/uint64(n) != uint64(order[p-1])<<idRangeBits/uint64(n) {
				ranges++
			}
		}
		if tc.local && ranges != 1<<idRangeBits-1 {
			t.Fatalf("%s: %d changes of id range along the order, want %d", tc.name, ranges, 1<<idRangeBits-1)
		}
		if !tc.local && ranges < 1<<idRangeBits {
			t.Fatalf("%s: %d changes of id range: ordered by ranges", tc.name, ranges)
		}
	}
}

func checkThreadsInvariant(t *testing.T, edges []graph.Edge, cfg Config) {
	var one *Result
	var oneScores map[int64]float64
	for _, p := range []int{1, 2} {
		cfg.Threads = 1
		base, baseScores, _ := runPageRank(t, p, edges, cfg, 0)
		if base.NumVertices <= 2*prBlock {
			t.Fatalf("%d vertices: not several blocks", base.NumVertices)
		}
		for _, threads := range []int{2, 3, 7} {
			cfg.Threads = threads
			res, scores, _ := runPageRank(t, p, edges, cfg, 0)
			if res.Residual != base.Residual || res.Total != base.Total {
				t.Errorf("%d ranks, %d threads: residual %v total %v; 1 thread: %v %v", p, threads, res.Residual, res.Total, base.Residual, base.Total)
			}
			for v, s := range baseScores {
				if scores[v] != s {
					t.Fatalf("%d ranks, %d threads: vertex %d: %v, 1 thread: %v", p, threads, v, scores[v], s)
				}
			}
		}
		if p == 1 {
			one, oneScores = base, baseScores
			continue
		}
		if math.Abs(base.Residual-one.Residual) > 1e-12 {
			t.Errorf("residual %v on 2 ranks, %v on 1", base.Residual, one.Residual)
		}
		for v, s := range baseScores {
			if math.Abs(oneScores[v]-s) > 1e-15 {
				t.Fatalf("vertex %d: %v on 2 ranks, %v on 1", v, s, oneScores[v])
			}
		}
	}
}

// TestPrPartialsCombine: the blocks' scalars add in block order, whatever
// the thread count that filled them.
func TestPrPartialsCombine(t *testing.T) {
	var p prPartials
	p.resize(3*prBlock + 1)
	if len(p) != 4*numPRScalars {
		t.Fatalf("%d partials for 4 blocks", len(p))
	}
	for b := range 4 {
		p[b*numPRScalars+prL1], p[b*numPRScalars+prDangling], p[b*numPRScalars+prTotal] = float64(b), 1, 0.25
	}
	got := make([]float64, numPRScalars)
	p.combine(got)
	if got[prL1] != 6 || got[prDangling] != 4 || got[prTotal] != 1 {
		t.Errorf("combined %v", got)
	}
	for _, threads := range []int{1, 2, 5} {
		seen := make([]int, 3*prBlock+1)
		forBlocks(len(seen), threads, func(lo, hi int) {
			if lo%prBlock != 0 {
				t.Errorf("block starts at %d", lo)
			}
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("%d threads: vertex %d updated %d times", threads, i, c)
			}
		}
	}
}

// TestSumRunsColumnOrder: sumRuns gives every column's sum, bit for bit
// as the column's documented order adds it (edge order below longColumn
// edges, four interleaved running sums from there), for runs of every width
// it special-cases, starting mid-array.
func TestSumRunsColumnOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, gather := range []bool{false, gatherColumns} { // the Go loop, then the gathers where there are
		x := make([]float64, 1000)
		for i := range x {
			x[i] = rng.Float64() * math.Pow(10, float64(rng.IntN(12)-6))
		}
		const lo, skip = 5000, 3 // the block's first position; edges before its first column
		src := make([]uint32, skip)
		var ends, widths []int
		var want []float64
		for _, w := range []int{0, 1, 2, 3, 4, 5, 9, longColumn - 1, longColumn, longColumn + 3, 70} {
			for range 1 + rng.IntN(4) {
				for range w {
					src = append(src, uint32(rng.IntN(len(x))))
				}
				want = append(want, referenceColumnSum(src[len(src)-w:], x))
			}
			ends, widths = append(ends, lo+len(want)), append(widths, w)
		}
		y := make([]float64, len(want))
		sumRuns(ends, widths, src, x, y, lo, skip, gather)
		for i := range want {
			if y[i] != want[i] {
				t.Fatalf("gather %v, column %d: %v, want %v", gather, i, y[i], want[i])
			}
		}
	}
}

// TestLongColumnSumGather: the AVX2 gathers give the Go loop's bits for
// every length around the unrolled rounds of four and eight, on values of
// twelve magnitudes, so a run's sums do not depend on the processor.
func TestLongColumnSumGather(t *testing.T) {
	if !gatherColumns {
		t.Skip("no AVX2 gathers on this processor; longColumnSum is the Go loop")
	}
	rng := rand.New(rand.NewPCG(19, 23))
	x := make([]float64, 5000)
	for i := range x {
		x[i] = (rng.Float64() - 0.25) * math.Pow(10, float64(rng.IntN(12)-6))
	}
	for n := range 140 {
		for range 5 {
			col := make([]uint32, n)
			for k := range col {
				col[k] = uint32(rng.IntN(len(x)))
			}
			got, want := longColumnSumAVX2(col, vec(x)), longColumnSumGo(col, vec(x))
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%d sources: gathered %v, Go loop %v", n, got, want)
			}
			if ref := referenceColumnSum(col, x); n >= longColumn && got != ref {
				t.Fatalf("%d sources: %v, want %v in the documented order", n, got, ref)
			}
		}
	}
}

// TestGatherTrials: a matrix whose input fits in L2 never gathers; a
// larger one tries the Go loop and gathers on alternate calls after a
// warm-up, then keeps the faster (which depends on the processor and the
// clock; the bits do not).
func TestGatherTrials(t *testing.T) {
	var small columnRuns
	for range 2 * gatherTrials {
		if small.gathers(make([]float64, gatherAbove)) {
			t.Fatal("gathers from an input that fits in L2")
		}
		small.timed()
	}
	var large columnRuns
	x := make([]float64, gatherAbove+1)
	var modes []bool
	for range gatherTrials {
		modes = append(modes, large.gathers(x))
		large.timed()
	}
	want := []bool{false, false, gatherColumns, false, gatherColumns}
	if !slices.Equal(modes, want) {
		t.Fatalf("trial calls gathered %v, want %v", modes, want)
	}
	for range 3 {
		if g := large.gathers(x); g != large.gather || (g && !gatherColumns) {
			t.Fatalf("after the trials: %v, chosen %v (processor has gathers: %v)", g, large.gather, gatherColumns)
		}
		large.timed()
	}
}

// referenceColumnSum is a column's sum in the order sumRuns documents.
func referenceColumnSum(col []uint32, x []float64) float64 {
	var s [4]float64
	if len(col) < longColumn {
		for _, u := range col {
			s[0] += x[u]
		}
		return s[0]
	}
	whole := len(col) / 4 * 4
	for k, u := range col[:whole] {
		s[k%4] += x[u]
	}
	for _, u := range col[whole:] {
		s[0] += x[u]
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

// TestFusedIterationMatchesUnfused: on one rank, the fused iteration (its
// own vertex order, sums by runs) and the general one (SpMV, then the update
// at home through the allreduce) give the same ranks and residuals up to
// rounding, on a graph with dangling vertices and on a symmetric one, with
// one thread and three.
func TestFusedIterationMatchesUnfused(t *testing.T) {
	directed := kronPREdges(12)
	symmetric := slices.Clone(directed)
	for _, e := range directed {
		symmetric = append(symmetric, graph.Edge{U: e.V, V: e.U})
	}
	cases := map[string][]graph.Edge{"directed": directed[:len(directed)/3], "symmetric": symmetric, "ids-local": gridPREdges(70)}
	for name, edges := range cases {
		for _, threads := range []int{1, 3} {
			cfg := DefaultConfig()
			cfg.Threads = threads
			err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
				plain, res, err := preparePageRank(ctx, c, graph.EdgeChunks{edges}, cfg)
				if err != nil {
					return err
				}
				fused, _, err := preparePageRank(ctx, c, graph.EdgeChunks{edges}, cfg)
				if err != nil {
					return err
				}
				if err := fused.fuse(c, res.NumVertices, threads, false); err != nil {
					return err
				}
				if fused.local == nil {
					return errors.New("one rank did not fuse")
				}
				defer fused.close()
				if fused.local.nonZero == len(fused.up.cur) && name == "directed" {
					return errors.New("no dangling vertex")
				}
				for it := range 15 {
					for _, run := range []*prRun{plain, fused} {
						if _, err := run.step(ctx); err != nil {
							return err
						}
					}
					if math.Abs(fused.residual-plain.residual) > 1e-14 || math.Abs(fused.total-plain.total) > 1e-14 {
						return fmt.Errorf("iteration %d: residual %v and total %v fused, %v and %v not",
							it, fused.residual, fused.total, plain.residual, plain.total)
					}
				}
				cur := make([]float64, len(plain.up.cur))
				fused.local.scores(cur)
				for v, r := range plain.up.cur {
					if math.Abs(cur[v]-r) > 1e-15 {
						return fmt.Errorf("vertex %d: %v fused, %v not", v, cur[v], r)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s, %d threads: %v", name, threads, err)
			}
		}
	}
}
