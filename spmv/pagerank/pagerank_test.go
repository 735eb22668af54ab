package pagerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// serialPageRank is a plain power iteration with NetworkX's semantics over
// the original ids: the vertices are the ids of the edges, duplicates
// collapse, self-loops stay, dangling mass is spread uniformly, and it stops
// when the L1 change is below n·tol. It returns the scores by original id
// and the number of iterations.
func serialPageRank(edges []graph.Edge, alpha, tol float64, maxIter, exact int) (map[int64]float64, int) {
	adj := map[int64]map[int64]bool{}
	ids := map[int64]bool{}
	for _, e := range edges {
		ids[e.U], ids[e.V] = true, true
		if adj[e.U] == nil {
			adj[e.U] = map[int64]bool{}
		}
		adj[e.U][e.V] = true
	}
	var verts []int64
	for v := range ids {
		verts = append(verts, v)
	}
	slices.Sort(verts)
	n := float64(len(verts))
	r := map[int64]float64{}
	for _, v := range verts {
		r[v] = 1 / n
	}
	it := 0
	for {
		if exact > 0 && it == exact || exact == 0 && it == maxIter {
			return r, it
		}
		it++
		var dangling float64
		next := map[int64]float64{}
		for _, u := range verts {
			if len(adj[u]) == 0 {
				dangling += r[u]
				continue
			}
			share := r[u] / float64(len(adj[u]))
			for v := range adj[u] {
				next[v] += share
			}
		}
		var l1 float64
		for _, v := range verts {
			x := (1-alpha)/n + alpha*(next[v]+dangling/n)
			l1 += math.Abs(x - r[v])
			next[v] = x
		}
		r = next
		if exact == 0 && l1 < n*tol {
			return r, it
		}
	}
}

// runPageRank runs PageRank on p in-process ranks, each reading edges[rank
// share], and returns rank 0's result, every vertex's score by original id
// and the top k.
func runPageRank(t *testing.T, p int, edges []graph.Edge, cfg Config, k int) (*Result, map[int64]float64, []VertexScore) {
	t.Helper()
	shares := make([]graph.EdgeShare, p)
	for r := range p {
		shares[r] = graph.EdgeChunks{edges[len(edges)*r/p : len(edges)*(r+1)/p]}
	}
	return runShares(t, p, shares, cfg, k)
}

// runShares runs RunShare on p in-process ranks, rank r reading
// shares[r], and returns what runPageRank returns.
func runShares(t *testing.T, p int, shares []graph.EdgeShare, cfg Config, k int) (*Result, map[int64]float64, []VertexScore) {
	t.Helper()
	var (
		mu     sync.Mutex
		res0   *Result
		scores = map[int64]float64{}
		top    []VertexScore
	)
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		res, err := RunShare(ctx, c, shares[c.Rank()], cfg)
		if err != nil {
			return err
		}
		tk, err := rankScores(ctx, c, res, k, &mu, scores)
		if err != nil {
			return err
		}
		all, err := res.Gather(ctx, c, 0)
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			res0, top = res, tk
			if int64(len(all)) != res.NumVertices {
				return fmt.Errorf("gathered %d vertices, want %d", len(all), res.NumVertices)
			}
			for i := 1; i < len(all); i++ {
				if all[i].ID <= all[i-1].ID {
					return fmt.Errorf("gathered ids not increasing at %d", i)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("PageRank on %d ranks: %v", p, err)
	}
	return res0, scores, top
}

// rankScores is a rank's part of a PageRank test's answer: res's top k (a
// collective on c) and, holding mu, res's scores added to scores under
// their original ids.
func rankScores(ctx context.Context, c comm.Comm, res *Result, k int, mu *sync.Mutex, scores map[int64]float64) ([]VertexScore, error) {
	tk, err := res.TopK(ctx, c, k)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	for l, s := range res.Scores {
		scores[res.Original[l]] = s
	}
	return tk, nil
}

// randomPRGraph draws a directed multigraph with sparse ids, self-loops,
// duplicates and dangling vertices.
func randomPRGraph(rng *rand.Rand) []graph.Edge {
	nv := 1 + rng.IntN(60)
	ids := make([]int64, nv)
	for i := range ids {
		ids[i] = rng.Int64N(1 << 40)
	}
	m := rng.IntN(4 * nv)
	var edges []graph.Edge
	for range m {
		u := ids[rng.IntN(nv)]
		// Sources from the first half only: the second half dangles.
		if rng.IntN(3) > 0 {
			u = ids[rng.IntN(max(1, nv/2))]
		}
		v := ids[rng.IntN(nv)]
		switch rng.IntN(8) {
		case 0:
			v = u // self-loop
		case 1:
			edges = append(edges, graph.Edge{U: u, V: v}) // duplicate
		}
		edges = append(edges, graph.Edge{U: u, V: v})
	}
	if len(edges) == 0 {
		edges = append(edges, graph.Edge{U: ids[0], V: ids[nv-1]})
	}
	// An isolated pair and a vertex only reachable as a source.
	edges = append(edges, graph.Edge{U: 1<<41 + rng.Int64N(100), V: 1<<42 + rng.Int64N(100)})
	rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	return edges
}

func TestPageRankMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	trials := 30
	if testing.Short() {
		trials = 8
	}
	for trial := range trials {
		edges := randomPRGraph(rng)
		cfg := DefaultConfig()
		cfg.Tol = 1e-13
		cfg.Undirected = trial%5 == 4
		in := edges
		if cfg.Undirected {
			in = slices.Clone(edges)
			for _, e := range edges {
				in = append(in, graph.Edge{U: e.V, V: e.U})
			}
		}
		want, wantIt := serialPageRank(in, cfg.Alpha, cfg.Tol, cfg.MaxIter, 0)
		for _, p := range []int{1, 3, 4} {
			for _, kind := range []Allreduce{AllreduceKylix, AllreduceDirect, AllreduceBinary, AllreduceDense} {
				cfg.Allreduce = kind
				cfg.Partition = []Partition{PartitionRandomEdge, PartitionBlock1D}[(trial+p)%2]
				res, got, _ := runPageRank(t, p, edges, cfg, 5)
				if len(got) != len(want) || res.NumVertices != int64(len(want)) {
					t.Fatalf("trial %d p=%d %s: %d vertices, want %d", trial, p, kind, len(got), len(want))
				}
				for v, w := range want {
					if math.Abs(got[v]-w) > 1e-12 {
						t.Fatalf("trial %d p=%d %s %s: vertex %d: %v, want %v", trial, p, kind, cfg.Partition, v, got[v], w)
					}
				}
				if d := res.Iterations - wantIt; d < -1 || d > 1 {
					t.Errorf("trial %d p=%d %s: %d iterations, serial %d", trial, p, kind, res.Iterations, wantIt)
				}
				if math.Abs(res.Total-1) > 1e-12 || !res.Converged || res.Residual >= cfg.threshold(res.NumVertices) {
					t.Errorf("trial %d p=%d %s: total %v converged %v residual %v", trial, p, kind, res.Total, res.Converged, res.Residual)
				}
			}
		}
	}
}

func TestPageRankExactIterations(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	edges := randomPRGraph(rng)
	for _, iters := range []int{1, 2, 7} {
		want, _ := serialPageRank(edges, 0.85, 0, 0, iters)
		for _, kind := range []Allreduce{AllreduceKylix, AllreduceDense} {
			cfg := DefaultConfig()
			cfg.Iterations, cfg.Allreduce = iters, kind
			res, got, _ := runPageRank(t, 4, edges, cfg, 3)
			if res.Iterations != iters {
				t.Fatalf("%s: ran %d iterations, want %d", kind, res.Iterations, iters)
			}
			if res.Configuration <= 0 || res.Setup < res.Configuration {
				t.Fatalf("%s: set-up %v, allreduce configuration %v: want 0 < configuration ≤ set-up", kind, res.Setup, res.Configuration)
			}
			for v, w := range want {
				if math.Abs(got[v]-w) > 1e-14 {
					t.Fatalf("%s, %d iterations: vertex %d: %v, want %v", kind, iters, v, got[v], w)
				}
			}
		}
	}
	// MaxIter stops without converging.
	cfg := DefaultConfig()
	cfg.MaxIter, cfg.Tol = 3, 1e-300
	res, _, _ := runPageRank(t, 2, edges, cfg, 3)
	if res.Iterations != 3 || res.Converged {
		t.Fatalf("MaxIter 3: %d iterations, converged %v", res.Iterations, res.Converged)
	}
}

func TestPageRankConfigCheck(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.Alpha = 1.5 },
		func(c *Config) { c.Alpha = math.NaN() },
		func(c *Config) { c.Tol = 0 },
		func(c *Config) { c.MaxIter = 0 },
		func(c *Config) { c.Iterations = -1 },
		func(c *Config) { c.Partition = Partition(2) },
		func(c *Config) { c.Threads = 0 },
		func(c *Config) { c.Allreduce = Allreduce(-1) },
		func(c *Config) { c.Allreduce, c.Degrees = AllreduceDirect, []int{2} },
		func(c *Config) { c.Allreduce, c.Degrees = AllreduceDense, []int{2} },
	}
	for i, mod := range bad {
		cfg := DefaultConfig()
		mod(&cfg)
		if err := cfg.Check(); err == nil {
			t.Errorf("bad config %d accepted", i)
		}
	}
	if err := DefaultConfig().Check(); err != nil {
		t.Fatal(err)
	}
}

// TestPageRankNames: the partition and allreduce names parse to the
// values that print them, and an unknown name is refused naming the
// accepted ones.
func TestPageRankNames(t *testing.T) {
	for _, p := range []Partition{PartitionRandomEdge, PartitionBlock1D} {
		if got, err := ParsePartition(p.String()); err != nil || got != p {
			t.Errorf("ParsePartition(%q) = %v, %v", p.String(), got, err)
		}
	}
	for _, a := range []Allreduce{AllreduceKylix, AllreduceDirect, AllreduceBinary, AllreduceDense} {
		if got, err := ParseAllreduce(a.String()); err != nil || got != a {
			t.Errorf("ParseAllreduce(%q) = %v, %v", a.String(), got, err)
		}
	}
	if _, err := ParsePartition("2d"); err == nil || err.Error() != `unknown partition "2d" (want random-edge or 1d)` {
		t.Errorf("partition 2d: %v", err)
	}
	if _, err := ParseAllreduce("ring"); err == nil || err.Error() != `unknown network "ring" (want kylix, direct, binary or dense)` {
		t.Errorf("allreduce ring: %v", err)
	}
	if s := []string{AllreduceKylix.String(), AllreduceDense.String(), PartitionBlock1D.String()}; s[0] != "kylix" || s[1] != "dense" || s[2] != "1d" {
		t.Errorf("names %q", s)
	}
}

func TestPageRankNoEdges(t *testing.T) {
	res, got, top := runPageRank(t, 3, nil, DefaultConfig(), 5)
	if res.NumVertices != 0 || len(got) != 0 || len(top) != 0 || res.Iterations != 0 {
		t.Fatalf("empty graph: %+v", res)
	}
}

// readTop20 reads a shared *.pagerank_top20.tsv reference: vertex and
// converged score by rank (testgraph.ReadPageRank, columns 1 and 3).
func readTop20(t *testing.T, path string) []VertexScore {
	t.Helper()
	scores, err := testgraph.ReadPageRank(path, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	ref := make([]VertexScore, len(scores))
	for i, s := range scores {
		ref[i] = VertexScore{ID: s.ID, Score: s.Score}
	}
	return ref
}

// fileShares is every rank's share of the edge list at path, on p ranks
// each streaming its own (edgelist.FileShare).
func fileShares(t *testing.T, path string, p int) []graph.EdgeShare {
	t.Helper()
	shares := make([]graph.EdgeShare, p)
	for r := range shares {
		share, err := edgelist.NewFileShare(path, "", r, p)
		if err != nil {
			t.Fatal(err)
		}
		shares[r] = share
	}
	return shares
}

// TestPageRankRealGraphs checks the top 20 of the two shared real graphs
// against NetworkX's converged answer, for every network and several rank
// counts, each rank streaming its own share of the file (edgelist.FileShare).
func TestPageRankRealGraphs(t *testing.T) {
	dir := testgraph.RealData()
	// The reader makes Matrix Market indices 0-based; the reference
	// keeps the file's 1-based ids.
	graphs := []struct {
		file, ref string
		idOffset  int64
	}{
		{"soc-Slashdot0902.txt.gz", "soc-Slashdot0902.pagerank_top20.tsv", 0},
		{"road-luxembourg-osm.mtx", "road-luxembourg-osm.pagerank_top20.tsv", 1},
	}
	type combo struct {
		kind Allreduce
		p    int
	}
	combos := []combo{{AllreduceKylix, 1}, {AllreduceDirect, 4}, {AllreduceBinary, 16}, {AllreduceDense, 4}}
	if raceEnabled && testing.Short() {
		// Under the race detector, the combinations that run ranks and
		// allreduce rounds concurrently, on the road graph (the Slashdot
		// runs take twice as long there); the full set runs without it.
		combos = []combo{{AllreduceKylix, 4}, {AllreduceDense, 4}}
		graphs = graphs[1:]
	}
	if !testing.Short() {
		// Every network on 4 ranks, and kylix on 1 and 16 (one rank count
		// per network is enough: TestRealGraphSameScoresAnyRanks_KylixVIID
		// checks the rank counts and partitions).
		combos = []combo{{AllreduceKylix, 1}, {AllreduceKylix, 16}}
		for _, kind := range []Allreduce{AllreduceKylix, AllreduceDirect, AllreduceBinary, AllreduceDense} {
			combos = append(combos, combo{kind, 4})
		}
	}
	for _, g := range graphs {
		ref := readTop20(t, filepath.Join(dir, g.ref))
		var first map[int64]float64
		for _, cb := range combos {
			cfg := DefaultConfig()
			cfg.Tol = 1e-15 // n·Tol: about 1e-10 on these graphs
			cfg.Allreduce = cb.kind
			path := filepath.Join(dir, g.file)
			shares := fileShares(t, path, cb.p)
			res0, scores, top := runShares(t, cb.p, shares, cfg, len(ref))
			name := fmt.Sprintf("%s %s p=%d", g.file, cb.kind, cb.p)
			t.Logf("%s: n=%d m=%d iterations %d residual %.3g total %.15f", name, res0.NumVertices, res0.NumEdges, res0.Iterations, res0.Residual, res0.Total)
			if len(top) != len(ref) {
				t.Fatalf("%s: top %d, want %d", name, len(top), len(ref))
			}
			for i := range ref {
				if top[i].ID+g.idOffset != ref[i].ID || math.Abs(top[i].Score-ref[i].Score) > 1e-9 {
					t.Errorf("%s: #%d is %d (%.12e), want %d (%.12e)", name, i+1, top[i].ID+g.idOffset, top[i].Score, ref[i].ID, ref[i].Score)
				}
			}
			if math.Abs(res0.Total-1) > 1e-9 || !res0.Converged {
				t.Errorf("%s: total %v, converged %v", name, res0.Total, res0.Converged)
			}
			if first == nil {
				first = scores
				continue
			}
			if len(scores) != len(first) {
				t.Fatalf("%s: %d vertices, first run %d", name, len(scores), len(first))
			}
			for v, s := range scores {
				if math.Abs(s-first[v]) > 1e-12 {
					t.Fatalf("%s: vertex %d: %v, first run %v", name, v, s, first[v])
				}
			}
		}
	}
}

// TestPageRankGaussSeidel: the in-place sweep (GaussSeidel) reaches
// NetworkX's answer on both real graphs, in fewer iterations than Jacobi
// (road 61 against 119, the Slashdot text with its self-loops 104 against
// 111), the same bits on 1 and 3 threads; and it refuses more than one
// rank and the dense allreduce.
func TestPageRankGaussSeidel(t *testing.T) {
	dir := testgraph.RealData()
	graphs := []struct {
		file, ref string
		idOffset  int64
	}{
		{"soc-Slashdot0902.txt.gz", "soc-Slashdot0902.pagerank_top20.tsv", 0},
		{"road-luxembourg-osm.mtx", "road-luxembourg-osm.pagerank_top20.tsv", 1},
	}
	if raceEnabled && testing.Short() {
		graphs = graphs[1:] // the Slashdot runs take a minute under the race detector
	}
	for _, g := range graphs {
		ref := readTop20(t, filepath.Join(dir, g.ref))
		share, err := edgelist.NewFileShare(filepath.Join(dir, g.file), "", 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Tol = 1e-15 // n·Tol: about 1e-10 on these graphs
		jacobi, _, _ := runShares(t, 1, []graph.EdgeShare{share}, cfg, len(ref))
		cfg.GaussSeidel = true
		var first map[int64]float64
		for _, threads := range []int{1, 3} {
			cfg.Threads = threads
			res, scores, top := runShares(t, 1, []graph.EdgeShare{share}, cfg, len(ref))
			name := fmt.Sprintf("%s, gauss-seidel, %d threads", g.file, threads)
			t.Logf("%s: %d iterations (Jacobi %d), residual %.3g", name, res.Iterations, jacobi.Iterations, res.Residual)
			if !res.Converged || res.Iterations >= jacobi.Iterations || math.Abs(res.Total-1) > 1e-9 {
				t.Errorf("%s: converged %v in %d iterations (Jacobi %d), total %v", name, res.Converged, res.Iterations, jacobi.Iterations, res.Total)
			}
			for i := range ref {
				if top[i].ID+g.idOffset != ref[i].ID || math.Abs(top[i].Score-ref[i].Score) > 1e-9 {
					t.Errorf("%s: #%d is %d (%.12e), want %d (%.12e)", name, i+1, top[i].ID+g.idOffset, top[i].Score, ref[i].ID, ref[i].Score)
				}
			}
			if first == nil {
				first = scores
				continue
			}
			for v, s := range scores {
				if s != first[v] {
					t.Fatalf("%s: vertex %d: %v, on 1 thread %v", name, v, s, first[v])
				}
			}
		}
	}
	cfg := DefaultConfig()
	cfg.GaussSeidel = true
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		_, err := Run(ctx, c, []graph.Edge{{U: 0, V: 1}}, cfg)
		return err
	})
	if fielderr.Field(err) != "GaussSeidel" || !errors.Is(err, ErrConfig) {
		t.Errorf("gauss-seidel on 2 ranks: %v", err)
	}
	cfg.Allreduce = AllreduceDense
	if err := cfg.Check(); fielderr.Field(err) != "GaussSeidel" {
		t.Errorf("gauss-seidel with the dense allreduce: %v", err)
	}
}
