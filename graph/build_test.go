package graph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/partition"
)

// reference is the serial, obviously correct answer for an edge list: the
// adjacency set of every vertex (descending, no duplicates, no self-loops),
// the multiplicity-counted tuple degree, the self-loops per vertex and the
// number of distinct undirected non-loop edges.
type reference struct {
	adj        [][]int64
	tupleDeg   []int64
	loops      []int64
	undirected int64
}

// BuildSerialReference returns every vertex's adjacency set, sorted in
// descending order, without duplicates or self-loops.
func BuildSerialReference(n int64, edges []Edge) [][]int64 {
	sets := make([]map[int64]bool, n)
	for _, e := range edges {
		if e.U == e.V {
			continue
		}
		for _, h := range [2][2]int64{{e.U, e.V}, {e.V, e.U}} {
			if sets[h[0]] == nil {
				sets[h[0]] = map[int64]bool{}
			}
			sets[h[0]][h[1]] = true
		}
	}
	adj := make([][]int64, n)
	for v, s := range sets {
		for u := range s {
			adj[v] = append(adj[v], u)
		}
		slices.Sort(adj[v])
		slices.Reverse(adj[v])
	}
	return adj
}

func buildReference(n int64, edges []Edge) reference {
	r := reference{
		adj:      BuildSerialReference(n, edges),
		tupleDeg: make([]int64, n),
		loops:    make([]int64, n),
	}
	for _, e := range edges {
		if e.U == e.V {
			r.loops[e.U]++
			continue
		}
		r.tupleDeg[e.U]++
		r.tupleDeg[e.V]++
	}
	for v, a := range r.adj {
		for _, u := range a {
			if u > int64(v) {
				r.undirected++
			}
		}
	}
	return r
}

// randomGraph returns m tuples on n vertices with self-loops, duplicates and
// (when m is small) isolated vertices; hubs make some rows long.
func randomGraph(rng *rand.Rand, n int64, m int) []Edge {
	edges := make([]Edge, 0, m)
	hubs := []int64{rng.Int64N(n), rng.Int64N(n)}
	for len(edges) < m {
		var e Edge
		switch k := rng.IntN(20); {
		case k == 0: // self-loop
			v := rng.Int64N(n)
			e = Edge{v, v}
		case k == 1 && len(edges) > 0: // duplicate, maybe reversed
			e = edges[rng.IntN(len(edges))]
			if rng.IntN(2) == 0 {
				e.U, e.V = e.V, e.U
			}
		case k < 6: // hub edge
			e = Edge{hubs[rng.IntN(2)], rng.Int64N(n)}
		default:
			e = Edge{rng.Int64N(n), rng.Int64N(n)}
		}
		edges = append(edges, e)
	}
	return edges
}

// splitEdges deals edges out to p ranks in uneven contiguous slices (some
// possibly empty), as independent generators would.
func splitEdges(rng *rand.Rand, edges []Edge, p int) [][]Edge {
	cuts := make([]int, p-1)
	for i := range cuts {
		cuts[i] = rng.IntN(len(edges) + 1)
	}
	slices.Sort(cuts)
	out := make([][]Edge, p)
	lo := 0
	for r := range p {
		hi := len(edges)
		if r < p-1 {
			hi = cuts[r]
		}
		out[r] = edges[lo:hi]
		lo = hi
	}
	return out
}

// block1D is the 1D partition of n vertices over p ranks, failing the test
// when there is none.
func block1D(t testing.TB, n int64, p int) partition.Block1D {
	t.Helper()
	part, err := partition.NewBlock1D(n, p)
	if err != nil {
		t.Fatal(err)
	}
	return part
}

// runBuild builds on p in-process ranks and returns every rank's CSR. The
// round size varies with the shares, so most builds take several rounds.
func runBuild(part partition.Block1D, perRank [][]Edge, threads int, wide bool) ([]*CSR, error) {
	largest := 0
	for _, es := range perRank {
		largest = max(largest, len(es))
	}
	return runBuildChunk(part, perRank, threads, wide, int64(1+largest/(1+threads+part.P%3)))
}

// runBuildChunk is runBuild with chunk tuples per round (0: the default).
func runBuildChunk(part partition.Block1D, perRank [][]Edge, threads int, wide bool, chunk int64) ([]*CSR, error) {
	out := make([]*CSR, part.P)
	err := inproc.Run(context.Background(), part.P, func(ctx context.Context, c comm.Comm) error {
		g, _, err := buildUndirected(ctx, c, part, EdgeSlice(perRank[c.Rank()]), threads, wide, chunk)
		if err != nil {
			return err
		}
		out[c.Rank()] = g
		return nil
	})
	return out, err
}

// randomCase draws a graph of n vertices and m edges from the PCG seeds
// and builds its reference; the generator goes on to split the edges.
func randomCase(seed1, seed2 uint64, n int64, m int) (*rand.Rand, []Edge, reference) {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	edges := randomGraph(rng, n, m)
	return rng, edges, buildReference(n, edges)
}

// buildChecked builds perRank's edges on part with runBuild and checks the
// CSRs against ref; what names the case in a failure.
func buildChecked(t *testing.T, what string, part partition.Block1D, perRank [][]Edge, threads int, wide bool, ref reference) {
	t.Helper()
	gs, err := runBuild(part, perRank, threads, wide)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	checkBuild(t, part, gs, ref, wide)
}

// checkBuild compares every rank's CSR with the reference.
func checkBuild(t *testing.T, part partition.Block1D, gs []*CSR, ref reference, wide bool) {
	t.Helper()
	var edgesSum, loopSum, wantLoops int64
	for _, l := range ref.loops {
		wantLoops += l
	}
	for r, g := range gs {
		if g.NumGlobal != part.N || g.FirstGlobal != part.First(r) || g.NumLocal != part.Count(r) {
			t.Fatalf("rank %d: header N=%d first=%d local=%d, want %d %d %d",
				r, g.NumGlobal, g.FirstGlobal, g.NumLocal, part.N, part.First(r), part.Count(r))
		}
		if (g.Cols32 == nil) != wide || (g.Cols64 == nil) == wide {
			t.Fatalf("rank %d: Cols32 set %v, Cols64 set %v, want wide=%v", r, g.Cols32 != nil, g.Cols64 != nil, wide)
		}
		if len(g.Offsets) != g.NumLocal+1 || g.Offsets[0] != 0 || len(g.TupleDegree) != g.NumLocal {
			t.Fatalf("rank %d: %d offsets, %d tuple degrees for %d vertices", r, len(g.Offsets), len(g.TupleDegree), g.NumLocal)
		}
		ncols := int64(len(g.Cols32) + len(g.Cols64))
		if g.NumEdges() != ncols {
			t.Fatalf("rank %d: NumEdges %d, %d columns", r, g.NumEdges(), ncols)
		}
		var loops int64
		for l := range g.NumLocal {
			v := g.FirstGlobal + int64(l)
			loops += ref.loops[v]
			row := make([]int64, 0, g.Degree(uint32(l)))
			for i := g.Offsets[l]; i < g.Offsets[l+1]; i++ {
				row = append(row, g.Neighbor(i))
			}
			if !slices.Equal(row, ref.adj[v]) {
				t.Fatalf("rank %d vertex %d: row %v, want %v", r, v, row, ref.adj[v])
			}
			if int64(g.TupleDegree[l]) != ref.tupleDeg[v] {
				t.Fatalf("rank %d vertex %d: TupleDegree %d, want %d", r, v, g.TupleDegree[l], ref.tupleDeg[v])
			}
		}
		if g.SelfLoops != loops {
			t.Fatalf("rank %d: SelfLoops %d, want %d", r, g.SelfLoops, loops)
		}
		edgesSum += g.NumEdges()
		loopSum += g.SelfLoops
	}
	if edgesSum != 2*ref.undirected {
		t.Fatalf("NumEdges sum %d, want 2×%d", edgesSum, ref.undirected)
	}
	if loopSum != wantLoops {
		t.Fatalf("SelfLoops sum %d, want %d", loopSum, wantLoops)
	}
}

func TestBuildUndirectedRandom(t *testing.T) {
	sizes := []int64{1, 2, 63, 64, 65, 100, 129, 500, 1000, 2000}
	for seed := uint64(0); seed < 24; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x6b31))
		n := sizes[int(seed)%len(sizes)]
		if seed >= uint64(len(sizes)) {
			n = 1 + rng.Int64N(2000)
		}
		m := rng.IntN(int(4*n) + 10)
		edges := randomGraph(rng, n, m)
		ref := buildReference(n, edges)
		for p := 1; p <= 8; p++ {
			part := block1D(t, n, p)
			perRank := splitEdges(rng, edges, p)
			for threads := 1; threads <= 4; threads++ {
				wide := (int(seed)+p+threads)%5 == 0 // the 64-bit path on some runs too
				t.Run(fmt.Sprintf("seed%d/n%d/m%d/p%d/t%d/wide%v", seed, n, m, p, threads, wide), func(t *testing.T) {
					buildChecked(t, "build", part, perRank, threads, wide, ref)
				})
			}
		}
	}
}

func TestBuildUndirectedWideAllThreads(t *testing.T) {
	const n = 777
	rng, edges, ref := randomCase(7, 7, n, 5000)
	for _, p := range []int{1, 3, 8} {
		part := block1D(t, n, p)
		perRank := splitEdges(rng, edges, p)
		for threads := 1; threads <= 4; threads++ {
			buildChecked(t, fmt.Sprintf("p=%d threads=%d", p, threads), part, perRank, threads, true, ref)
		}
	}
}

func TestBuildUndirectedSpecialGraphs(t *testing.T) {
	star := func(n int64) []Edge {
		var es []Edge
		for v := int64(1); v < n; v++ {
			es = append(es, Edge{0, v}, Edge{v, 0})
		}
		return es
	}
	path := func(n int64) []Edge {
		var es []Edge
		for v := int64(1); v < n; v++ {
			es = append(es, Edge{v - 1, v})
		}
		return es
	}
	cases := []struct {
		name  string
		n     int64
		edges []Edge
	}{
		{"empty", 10, nil},
		{"one vertex loops", 1, []Edge{{0, 0}, {0, 0}, {0, 0}}},
		{"only loops", 300, []Edge{{0, 0}, {299, 299}, {150, 150}, {150, 150}}},
		{"star", 1000, star(1000)},
		{"path", 1000, path(1000)},
		{"one duplicated edge", 200, slices.Repeat([]Edge{{3, 190}, {190, 3}}, 50)},
	}
	for _, tc := range cases {
		ref := buildReference(tc.n, tc.edges)
		for _, p := range []int{1, 2, 5, 8} {
			part := block1D(t, tc.n, p)
			perRank := splitEdges(rand.New(rand.NewPCG(uint64(p), 1)), tc.edges, p)
			for _, threads := range []int{1, 3} {
				buildChecked(t, fmt.Sprintf("%s p=%d threads=%d", tc.name, p, threads), part, perRank, threads, false, ref)
			}
		}
	}
}

func TestBuildUndirectedPublicAPI(t *testing.T) {
	const n = 300
	rng, edges, ref := randomCase(3, 3, n, 1500)
	part := block1D(t, n, 3)
	perRank := splitEdges(rng, edges, 3)
	gs := make([]*CSR, 3)
	err := inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		g, st, err := BuildUndirectedFrom(ctx, c, part, EdgeSlice(perRank[c.Rank()]), 0) // 0: GOMAXPROCS threads
		gs[c.Rank()] = g
		if err != nil {
			return err
		}
		for _, phase := range []string{RoutePhaseCount, RoutePhaseFill} {
			if calls := c.Stats().Phase(phase).Calls; calls != int64(st.Rounds) || st.Rounds != 1 {
				return fmt.Errorf("rank %d: %d %s calls in %d rounds, want 1", c.Rank(), calls, phase, st.Rounds)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkBuild(t, part, gs, ref, false)
}

func TestHasEdgeOnBuiltRows(t *testing.T) {
	const n = 400
	rng, edges, ref := randomCase(11, 5, n, 3000)
	for _, wide := range []bool{false, true} {
		part := block1D(t, n, 4)
		gs, err := runBuild(part, splitEdges(rng, edges, 4), 2, wide)
		if err != nil {
			t.Fatal(err)
		}
		for r, g := range gs {
			for l := range g.NumLocal {
				v := g.FirstGlobal + int64(l)
				for u := int64(-1); u <= n; u++ {
					want := slices.Contains(ref.adj[v], u)
					if got := g.HasEdge(uint32(l), u); got != want {
						t.Fatalf("wide=%v rank %d: HasEdge(%d,%d) = %v, want %v", wide, r, v, u, got, want)
					}
				}
			}
		}
	}
}

func TestFitsCols32(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want bool
	}{{1, true}, {1 << 32, true}, {1<<32 + 1, false}, {1 << 33, false}} {
		if got := fitsCols32(c.n); got != c.want {
			t.Errorf("fitsCols32(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

// TestBuildManyRounds builds with one to a few tuples per round, so that
// ranks with unequal shares, empty rounds and every chunk boundary occur.
func TestBuildManyRounds(t *testing.T) {
	const n = 700
	rng, edges, ref := randomCase(6, 1, n, 900)
	for _, p := range []int{1, 2, 5} {
		part := block1D(t, n, p)
		perRank := splitEdges(rng, edges, p)
		if p > 1 { // unequal shares, one of them empty
			perRank[0] = slices.Concat(perRank[0], perRank[p-1])
			perRank[p-1] = nil
		}
		for _, chunk := range []int64{1, 2, 7, 64} {
			gs, err := runBuildChunk(part, perRank, 2, chunk%2 == 0, chunk)
			if err != nil {
				t.Fatalf("p=%d chunk=%d: %v", p, chunk, err)
			}
			checkBuild(t, part, gs, ref, chunk%2 == 0)
		}
	}
}
