package pagerank

// Tests that map to the papers behind this package: Kylix's PageRank (Zhao
// and Canny, ICPP 2014: random edge partition §II-B, configuration once
// and one reduction per iteration §III, PageRank §I-A and §VII-D) and
// NetworkX's pagerank semantics (Page et al.'s PageRank: dangling mass
// spread uniformly, scores summing to 1, the L1 stopping rule). The full
// references are in the package doc.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// runRanksAll runs RunShare on p in-process ranks, rank r reading
// shares[r], and returns every rank's result by rank and every vertex's
// score by original id.
func runRanksAll(t *testing.T, p int, shares []graph.EdgeShare, cfg Config) ([]*Result, map[int64]float64) {
	t.Helper()
	var mu sync.Mutex
	results, scores := make([]*Result, p), map[int64]float64{}
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		res, err := RunShare(ctx, c, shares[c.Rank()], cfg)
		if err != nil {
			return err
		}
		if _, err := rankScores(ctx, c, res, 0, &mu, scores); err != nil {
			return err
		}
		mu.Lock()
		results[c.Rank()] = res
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatalf("PageRank on %d ranks: %v", p, err)
	}
	return results, scores
}

// evenShares cuts edges into p contiguous shares of about the same size.
func evenShares(edges []graph.Edge, p int) []graph.EdgeShare {
	shares := make([]graph.EdgeShare, p)
	for r := range p {
		shares[r] = graph.EdgeChunks{edges[len(edges)*r/p : len(edges)*(r+1)/p]}
	}
	return shares
}

// TestRandomEdgePartitionSameScoresAnyRanks_KylixIIB: Kylix §II-B spreads
// the edges (the matrix's non-zeros) over the machines by a random edge
// partition, and §I-A's PageRank is the same product whatever the
// partition. Here every rank count, both partitions (random edge, block of
// the source) and any spread of the input over the reading ranks (even,
// or all of it on the last rank) give the scores of one rank, and every
// distinct edge is owned by exactly one rank.
func TestRandomEdgePartitionSameScoresAnyRanks_KylixIIB(t *testing.T) {
	rng := rand.New(rand.NewPCG(2014, 7))
	trials := 3
	if raceEnabled {
		trials = 1
	}
	for trial := range trials {
		edges := randomPRGraph(rng)
		cfg := DefaultConfig()
		cfg.Tol = 1e-14
		_, want := runRanksAll(t, 1, evenShares(edges, 1), cfg)
		for _, p := range []int{2, 3, 5, 8} {
			for _, part := range []Partition{PartitionRandomEdge, PartitionBlock1D} {
				for _, skewed := range []bool{false, true} {
					shares := evenShares(edges, p)
					if skewed {
						for r := range p - 1 {
							shares[r] = graph.EdgeChunks{}
						}
						shares[p-1] = graph.EdgeChunks{edges}
					}
					cfg.Partition = part
					name := fmt.Sprintf("trial %d, %d ranks, %s, skewed input %v", trial, p, part, skewed)
					results, got := runRanksAll(t, p, shares, cfg)
					if len(got) != len(want) {
						t.Fatalf("%s: %d vertices, one rank %d", name, len(got), len(want))
					}
					for v, w := range want {
						if math.Abs(got[v]-w) > 1e-12 {
							t.Fatalf("%s: vertex %d: %v, one rank %v", name, v, got[v], w)
						}
					}
					var owned int64
					for _, res := range results {
						owned += res.LocalEdges
					}
					if owned != results[0].NumEdges {
						t.Fatalf("%s: the ranks own %d edges, the graph has %d", name, owned, results[0].NumEdges)
					}
				}
			}
		}
	}
}

// TestRealGraphSameScoresAnyRanks_KylixVIID: Kylix §VII-D runs PageRank on
// real power-law graphs over a random edge partition. On the road graph
// shipped in testdata/, 1 rank, 3 ranks with the random edge partition and
// 2 ranks with the block partition give the same scores, and their top 20
// is NetworkX's.
func TestRealGraphSameScoresAnyRanks_KylixVIID(t *testing.T) {
	if raceEnabled && testing.Short() {
		t.Skip("three runs over 240k edges: too slow under the race detector (TestPageRankRealGraphs runs the road graph there)")
	}
	dir := testgraph.RealData()
	path := filepath.Join(dir, "road-luxembourg-osm.mtx")
	ref := readTop20(t, filepath.Join(dir, "road-luxembourg-osm.pagerank_top20.tsv"))
	var first map[int64]float64
	for _, run := range []struct {
		p    int
		part Partition
	}{{1, PartitionRandomEdge}, {3, PartitionRandomEdge}, {2, PartitionBlock1D}} {
		shares := fileShares(t, path, run.p)
		cfg := DefaultConfig()
		cfg.Tol = 1e-15 // n·Tol: about 1e-10 on these graphs
		cfg.Partition = run.part
		results, scores := runRanksAll(t, run.p, shares, cfg)
		name := fmt.Sprintf("%d ranks, %s", run.p, run.part)
		top := topScores(mapValues(scores))
		for i := range ref {
			// The reader makes Matrix Market ids 0-based; the reference keeps 1-based ids.
			if top[i].ID+1 != ref[i].ID || math.Abs(top[i].Score-ref[i].Score) > 1e-9 {
				t.Errorf("%s: #%d is %d (%.12e), NetworkX %d (%.12e)", name, i+1, top[i].ID+1, top[i].Score, ref[i].ID, ref[i].Score)
			}
		}
		if !results[0].Converged {
			t.Errorf("%s: did not converge", name)
		}
		if first == nil {
			first = scores
			continue
		}
		for v, s := range scores {
			if math.Abs(s-first[v]) > 1e-12 {
				t.Fatalf("%s: vertex %d: %v, one rank %v", name, v, s, first[v])
			}
		}
	}
}

// mapValues returns scores as parallel slices of scores and ids, with the
// number of entries topScores should keep (20).
func mapValues(scores map[int64]float64) ([]float64, []int64, int) {
	s, ids := make([]float64, 0, len(scores)), make([]int64, 0, len(scores))
	for id, v := range scores {
		s, ids = append(s, v), append(ids, id)
	}
	return s, ids, 20
}

// TestOneSparseAllreducePerIteration_KylixIII: Kylix §III configures the
// allreduce once (the in- and out-sets are fixed for PageRank) and runs
// one reduction, a down pass and an up pass through every layer, per
// iteration. The iterations' traffic is exactly the layers' down and up
// passes, one collective per layer and pass per iteration, with no
// configuration traffic and no other collective: the L1 change, the
// dangling mass and the total rank ride in the reduction's up pass, and
// the L1 changes it sums are those of the serial power iteration.
func TestOneSparseAllreducePerIteration_KylixIII(t *testing.T) {
	edges := randomPRGraph(rand.New(rand.NewPCG(3, 2014)))
	const iterations = 6
	serialL1 := make([]float64, iterations)
	prev, _ := serialPageRank(edges, DefaultAlpha, 0, 0, 0) // r = 1/n
	for it := range iterations {
		next, _ := serialPageRank(edges, DefaultAlpha, 0, 0, it+1)
		for v, s := range next {
			serialL1[it] += math.Abs(s - prev[v])
		}
		prev = next
	}
	for _, network := range []struct {
		kind    Allreduce
		degrees []int
	}{{AllreduceKylix, []int{2, 2}}, {AllreduceKylix, nil}, {AllreduceDirect, nil}, {AllreduceBinary, nil}} {
		cfg := DefaultConfig()
		cfg.Allreduce, cfg.Degrees, cfg.Iterations = network.kind, network.degrees, iterations
		results, _ := runRanksAll(t, 4, evenShares(edges, 4), cfg)
		for rank, res := range results {
			name := fmt.Sprintf("%s, rank %d", res.Network, rank)
			var passes comm.PhaseCounters
			for _, lv := range res.LayerVolume {
				if lv.Config != (comm.PhaseCounters{}) || lv.ConfigReduce != (comm.PhaseCounters{}) {
					t.Errorf("%s: layer %d configured during the iterations: %+v, %+v", name, lv.Layer, lv.Config, lv.ConfigReduce)
				}
				if lv.Down.Calls != iterations || lv.Up.Calls != iterations {
					t.Errorf("%s: layer %d: %d down and %d up collectives in %d iterations", name, lv.Layer, lv.Down.Calls, lv.Up.Calls, iterations)
				}
				passes.Add(lv.Down)
				passes.Add(lv.Up)
			}
			if res.Layers != len(res.LayerVolume) || res.Layers == 0 {
				t.Errorf("%s: %d layers, %d measured", name, res.Layers, len(res.LayerVolume))
			}
			if res.Traffic != passes {
				t.Errorf("%s: the iterations' traffic %+v is not the reduction's passes %+v", name, res.Traffic, passes)
			}
			for it, l1 := range res.L1Changes {
				if math.Abs(l1-serialL1[it]) > 1e-12 {
					t.Errorf("%s: iteration %d: L1 change %v, serial %v", name, it+1, l1, serialL1[it])
				}
			}
		}
	}
}

// TestDanglingMassSpreadUniformly_NetworkX: NetworkX's pagerank gives the
// mass of the dangling vertices (no out-edge) to every vertex alike. On
// 0 → 1, with 1 dangling, the fixed point is r_0 = 1/(2+α),
// r_1 = (1+α)/(2+α); and on any graph, a vertex without in-edges scores
// exactly (1−α)/n + α·D/n, D being the dangling vertices' total.
func TestDanglingMassSpreadUniformly_NetworkX(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tol = 1e-15
	_, pair := runRanksAll(t, 2, evenShares([]graph.Edge{{U: 10, V: 11}}, 2), cfg)
	a := cfg.Alpha
	if math.Abs(pair[10]-1/(2+a)) > 1e-12 || math.Abs(pair[11]-(1+a)/(2+a)) > 1e-12 {
		t.Errorf("0 → 1: %v, %v; want %v, %v", pair[10], pair[11], 1/(2+a), (1+a)/(2+a))
	}

	edges := randomPRGraph(rand.New(rand.NewPCG(1999, 66)))
	outDeg, inDeg := map[int64]int{}, map[int64]int{}
	for _, e := range edges {
		outDeg[e.U]++
		inDeg[e.V]++
	}
	for _, p := range []int{1, 3} {
		_, scores := runRanksAll(t, p, evenShares(edges, p), cfg)
		n := float64(len(scores))
		var dangling float64
		for v, s := range scores {
			if outDeg[v] == 0 {
				dangling += s
			}
		}
		base := (1-a)/n + a*dangling/n
		sources := 0
		for v, s := range scores {
			if inDeg[v] == 0 {
				sources++
				if math.Abs(s-base) > 1e-12 {
					t.Errorf("%d ranks: vertex %d without in-edges: %v, want (1−α)/n + α·D/n = %v", p, v, s, base)
				}
			}
		}
		if sources == 0 {
			t.Fatalf("%d ranks: the graph has no vertex without in-edges", p)
		}
	}
}

// TestScoresSumToOne_NetworkX: NetworkX's scores are a probability
// distribution: starting from 1/n, every iteration keeps the total at 1,
// with and without dangling vertices, on any rank count and network.
func TestScoresSumToOne_NetworkX(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1999))
	for trial := range 4 {
		edges := randomPRGraph(rng)
		for _, kind := range []Allreduce{AllreduceKylix, AllreduceDense} {
			for _, p := range []int{1, 4} {
				cfg := DefaultConfig()
				cfg.Allreduce, cfg.Iterations, cfg.Undirected = kind, 1+trial*5, trial%2 == 1
				results, scores := runRanksAll(t, p, evenShares(edges, p), cfg)
				var sum float64
				for _, s := range scores {
					sum += s
				}
				if math.Abs(sum-1) > 1e-12 || math.Abs(results[0].Total-1) > 1e-12 {
					t.Errorf("trial %d, %s, %d ranks: the scores sum to %v, reported total %v", trial, kind, p, sum, results[0].Total)
				}
			}
		}
	}
}

// TestStopsOnL1Change_NetworkX: NetworkX's power iteration stops at the
// first iteration whose L1 change falls below N·tol (N the vertex count),
// or after MaxIter iterations unconverged;
// Iterations runs exactly that many.
func TestStopsOnL1Change_NetworkX(t *testing.T) {
	edges := randomPRGraph(rand.New(rand.NewPCG(5, 1999)))
	for _, p := range []int{1, 3} {
		cfg := DefaultConfig()
		cfg.Tol = 1e-9
		results, _ := runRanksAll(t, p, evenShares(edges, p), cfg)
		res := results[0]
		l1, limit := res.L1Changes, float64(res.NumVertices)*cfg.Tol
		if !res.Converged || len(l1) != res.Iterations || l1[len(l1)-1] >= limit || res.Residual != l1[len(l1)-1] {
			t.Fatalf("%d ranks: converged %v after %d iterations, L1 changes %v", p, res.Converged, res.Iterations, l1)
		}
		for it, d := range l1[:len(l1)-1] {
			if d < limit {
				t.Errorf("%d ranks: iteration %d changed %v < N·Tol but did not stop", p, it+1, d)
			}
		}
		// Sums in another order may cross N·Tol one iteration apart.
		if _, wantIt := serialPageRank(edges, cfg.Alpha, cfg.Tol, cfg.MaxIter, 0); res.Iterations < wantIt-1 || res.Iterations > wantIt+1 {
			t.Errorf("%d ranks: %d iterations, the serial power iteration %d", p, res.Iterations, wantIt)
		}

		capped := cfg
		capped.MaxIter = res.Iterations - 1
		results, _ = runRanksAll(t, p, evenShares(edges, p), capped)
		if r := results[0]; r.Converged || r.Iterations != capped.MaxIter {
			t.Errorf("%d ranks, MaxIter %d: converged %v after %d iterations", p, capped.MaxIter, r.Converged, r.Iterations)
		}

		exact := cfg
		exact.Iterations = res.Iterations + 3
		results, _ = runRanksAll(t, p, evenShares(edges, p), exact)
		if r := results[0]; !r.Converged || r.Iterations != exact.Iterations {
			t.Errorf("%d ranks, Iterations %d: converged %v after %d iterations", p, exact.Iterations, r.Converged, r.Iterations)
		}
	}
}
