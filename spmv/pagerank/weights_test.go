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
	"github.com/graphrun/graphrun/internal/fielderr"
)

// serialWeighted is weighted PageRank by a plain power iteration over the
// original ids, as NetworkX's pagerank(G, weight=) on the DiGraph whose
// duplicate edges keep their smallest weight, to an L1 change below limit:
// u's rank goes to its out-edges in proportion to their weights, and a
// vertex whose out-edges weigh 0 in all is dangling.
func serialWeighted(edges []graph.Edge, ws []float32, alpha, limit float64) map[int64]float64 {
	adj := map[int64]map[int64]float64{}
	ids := map[int64]bool{}
	for i, e := range edges {
		ids[e.U], ids[e.V] = true, true
		if adj[e.U] == nil {
			adj[e.U] = map[int64]float64{}
		}
		if w, ok := adj[e.U][e.V]; !ok || float64(ws[i]) < w {
			adj[e.U][e.V] = float64(ws[i])
		}
	}
	out := map[int64]float64{}
	for u, vs := range adj {
		for _, w := range vs {
			out[u] += w
		}
	}
	n := float64(len(ids))
	r := map[int64]float64{}
	for v := range ids {
		r[v] = 1 / n
	}
	for range 100000 {
		var dangling float64
		next := map[int64]float64{}
		for u := range ids {
			if out[u] == 0 {
				dangling += r[u]
				continue
			}
			for v, w := range adj[u] {
				next[v] += r[u] / out[u] * w
			}
		}
		var l1 float64
		for v := range ids {
			x := (1-alpha)/n + alpha*(next[v]+dangling/n)
			l1 += math.Abs(x - r[v])
			next[v] = x
		}
		r = next
		if l1 < limit {
			break
		}
	}
	return r
}

// randomWeights are weights for edges: halves from 0 to 3, so some
// vertices' out-edges weigh 0 in all, and duplicates that differ.
func randomWeights(rng *rand.Rand, edges []graph.Edge) []float32 {
	ws := make([]float32, len(edges))
	for i := range ws {
		ws[i] = float32(rng.IntN(7)) / 2
	}
	return ws
}

// TestWeightedMatchesSerial: weighted PageRank equals the serial weighted
// power iteration on random graphs with duplicates of different weights,
// zero weights and self-loops, on every allreduce, partition, rank count
// and thread count.
func TestWeightedMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	trials := 20
	if testing.Short() {
		trials = 6
	}
	for trial := range trials {
		edges := randomPRGraph(rng)
		ws := randomWeights(rng, edges)
		cfg := DefaultConfig()
		cfg.Tol, cfg.Weighted, cfg.Threads = 1e-15, true, 1+trial%3
		cfg.Undirected = trial%4 == 3
		in, inW := edges, ws
		if cfg.Undirected {
			in, inW = slices.Clone(edges), slices.Clone(ws)
			for i, e := range edges {
				in, inW = append(in, graph.Edge{U: e.V, V: e.U}), append(inW, ws[i])
			}
		}
		want := serialWeighted(in, inW, cfg.Alpha, 1e-15)
		for _, p := range []int{1, 2, 3, 4} {
			for _, kind := range goldenAllreduces {
				cfg.Allreduce = kind
				cfg.Partition = []Partition{PartitionRandomEdge, PartitionBlock1D}[(trial+p)%2]
				res, got, _ := runShares(t, p, weightedShares(edges, ws, p), cfg, 1)
				var l1 float64
				for v, w := range want {
					l1 += math.Abs(got[v] - w)
				}
				if len(got) != len(want) || l1 > 1e-12 || math.Abs(res.Total-1) > 1e-12 {
					t.Fatalf("trial %d p=%d %s %s: %d vertices (want %d), L1 distance %.3g, total %v",
						trial, p, kind, cfg.Partition, len(got), len(want), l1, res.Total)
				}
			}
		}
	}
}

// TestKroneckerWeighted: a Kronecker graph with its generated weights (the
// Source's weighted shares) equals the serial weighted power iteration on
// 1, 3 and 4 ranks.
func TestKroneckerWeighted(t *testing.T) {
	params := kronecker.DefaultParams(9)
	all := params.Share(0, 1, 1)
	edges, ws := make([]graph.Edge, all.Len()), make([]float32, all.Len())
	ctx := context.Background()
	if err := all.Read(ctx, 0, edges); err != nil {
		t.Fatal(err)
	}
	if err := all.ReadWeights(ctx, 0, ws); err != nil {
		t.Fatal(err)
	}
	want := serialWeighted(edges, ws, DefaultAlpha, 1e-15)
	src := &Source{Kron: params, Threads: 2, Weighted: true}
	cfg := DefaultConfig()
	cfg.Tol, cfg.Weighted = 1e-18, true
	for _, p := range []int{1, 3, 4} {
		shares := make([]graph.EdgeShare, p)
		for r := range shares {
			share, err := src.load(ctx, r, p)
			if err != nil {
				t.Fatal(err)
			}
			shares[r] = share
		}
		_, got, _ := runShares(t, p, shares, cfg, 1)
		var l1 float64
		for v, w := range want {
			l1 += math.Abs(got[v] - w)
		}
		if len(got) != len(want) || l1 > 1e-12 {
			t.Errorf("p=%d: %d vertices (want %d), L1 distance %.3g", p, len(got), len(want), l1)
		}
	}
}

// TestWeightedBadInput: a negative or non-finite weight is an input
// error naming the edge, and a weighted run of an input without weights a
// configuration error naming Weighted.
func TestWeightedBadInput(t *testing.T) {
	edges := []graph.Edge{{U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 1}}
	cfg := DefaultConfig()
	cfg.Weighted = true
	for _, bad := range []float32{-1, float32(math.NaN()), float32(math.Inf(1))} {
		for _, p := range []int{1, 2} {
			err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
				share := WeightedEdges{Edges: edges, Weights: []float32{1, bad, 1}}
				if c.Rank() > 0 {
					share = WeightedEdges{}
				}
				_, err := RunShare(ctx, c, share, cfg)
				return err
			})
			if !errors.Is(err, ErrWeight) || !IsInputError(err) {
				t.Errorf("weight %v on %d ranks: %v, want an input error wrapping ErrWeight", bad, p, err)
			}
		}
	}
	err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
		_, err := RunShare(ctx, c, graph.EdgeChunks{edges}, cfg)
		return err
	})
	if fe, ok := fielderr.As(err); !ok || fe.Field != "Weighted" || !errors.Is(err, ErrConfig) {
		t.Errorf("a weighted run of unweighted edges: %v, want a configuration error of Weighted", err)
	}
}

// TestWeightedLongColumnSumGather: the weighted AVX2 gathers give the Go
// loop's bits for every length around the unrolled rounds of four and
// eight, on values and weights of many magnitudes (each product rounded
// before it is added), and the Go loop adds in the documented order.
func TestWeightedLongColumnSumGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 31))
	x := make([]float64, 5000)
	for i := range x {
		x[i] = (rng.Float64() - 0.25) * math.Pow(10, float64(rng.IntN(12)-6))
	}
	for n := range 140 {
		for range 5 {
			col, ws := make([]uint32, n), make([]float32, n)
			for k := range col {
				col[k] = uint32(rng.IntN(len(x)))
				ws[k] = float32(rng.Float64() * math.Pow(10, float64(rng.IntN(8)-4)))
			}
			want := weightedLongColumnSumGo(col, wvec(ws), vec(x))
			var s [4]float64
			for k, u := range col {
				j := k % 4 // edge k below n &^ 3 to sum k mod 4, the rest to sum 0
				if k >= n&^3 {
					j = 0
				}
				s[j] += float64(float64(ws[k]) * x[u])
			}
			if ref := (s[0] + s[1]) + (s[2] + s[3]); want != ref {
				t.Fatalf("%d sources: Go loop %v, want %v in the documented order", n, want, ref)
			}
			if !gatherColumns {
				continue
			}
			if got := weightedLongColumnSumAVX2(col, wvec(ws), vec(x)); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%d sources: gathered %v, Go loop %v", n, got, want)
			}
		}
	}
}

// TestWeightedSumRunGather: a run's weighted column sums are the same bits
// with and without gathers (where the processor has them) for every width, short and long, and each
// column equals its sum in edge order to rounding.
func TestWeightedSumRunGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 41))
	x := make([]float64, 3000)
	for i := range x {
		x[i] = rng.Float64()
	}
	for w := range 3 * longColumn {
		cols := 1 + rng.IntN(9)
		src, ws := make([]uint32, w*cols), make([]float32, w*cols)
		for k := range src {
			src[k], ws[k] = uint32(rng.IntN(len(x))), rng.Float32()
		}
		plain, gathered := make([]float64, cols), make([]float64, cols)
		weightedSumRun(src, ws, w, x, plain, false)
		weightedSumRun(src, ws, w, x, gathered, gatherColumns) // the Go loop again without AVX2
		for i := range cols {
			var ref float64
			for k := w * i; k < w*i+w; k++ {
				ref += float64(ws[k]) * x[src[k]]
			}
			if math.Float64bits(plain[i]) != math.Float64bits(gathered[i]) || math.Abs(plain[i]-ref) > 1e-12*max(1, ref) {
				t.Fatalf("width %d, column %d: %v in Go, %v gathered, %v in edge order", w, i, plain[i], gathered[i], ref)
			}
		}
	}
}

// TestFusedSeedsMatchUnfused: on one rank, the fused iteration with
// weights and a sparse seed set (personalization and dangling vectors
// read only at their seeds, updateSeeds) and the general one (SpMV, then
// the update at home) give the same ranks and residuals up to rounding,
// with one thread and three.
func TestFusedSeedsMatchUnfused(t *testing.T) {
	edges := kronPREdges(12)
	ws := randomWeights(rand.New(rand.NewPCG(43, 47)), edges)
	for _, threads := range []int{1, 3} {
		cfg := DefaultConfig()
		cfg.Threads, cfg.Weighted = threads, true
		cfg.Personalization = &Vector{IDs: []int64{edges[0].U, edges[7].V, edges[99].U}, Weights: []float64{1, 2, 3}}
		cfg.Dangling = UniformVector([]int64{edges[5].V, edges[50].U})
		err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
			share := WeightedEdges{edges, ws}
			plain, res, err := preparePageRank(ctx, c, share, cfg)
			if err != nil {
				return err
			}
			fused, _, err := preparePageRank(ctx, c, share, cfg)
			if err != nil {
				return err
			}
			if err := fused.fuse(c, res.NumVertices, threads, false); err != nil {
				return err
			}
			if fused.local == nil || !fused.local.sparse || len(fused.local.seeds) != 5 {
				return errors.New("one rank did not fuse with five seeds")
			}
			defer fused.close()
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
			t.Fatalf("%d threads: %v", threads, err)
		}
	}
}
