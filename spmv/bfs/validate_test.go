package bfs

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/sieve"
	"github.com/graphrun/graphrun/spmv"
)

// mutationGraph is a random graph with one big component, a second small
// component and isolated vertices, so that every mutation class has material.
func mutationGraph() (csrtest.Graph, int64) {
	rng := rand.New(rand.NewPCG(11, 13))
	g := csrtest.Graph{Name: "mutation", N: 500}
	for e := 0; e < 1500; e++ {
		g.Edges = append(g.Edges, graph.Edge{U: rng.Int64N(400), V: rng.Int64N(400)})
	}
	for v := int64(401); v < 420; v++ { // a path component 400..419
		g.Edges = append(g.Edges, graph.Edge{U: v - 1, V: v})
	}
	g.Edges = append(g.Edges, graph.Edge{U: 3, V: 3}, graph.Edge{U: 5, V: 9}, graph.Edge{U: 9, V: 5})
	return g, g.Edges[0].U
}

func adjacency(g csrtest.Graph) []map[int64]bool {
	adj := make([]map[int64]bool, g.N)
	for i := range adj {
		adj[i] = map[int64]bool{}
	}
	for _, e := range g.Edges {
		if e.U != e.V {
			adj[e.U][e.V] = true
			adj[e.V][e.U] = true
		}
	}
	return adj
}

// mutation is a corruption of a correct result: apply changes the parents
// p and the levels l in place and returns the nedge to claim; want is the
// check (or words of the message) that must report it.
type mutation struct {
	name, want string
	apply      func(p []int64, l []int32) (claimed int64)
}

// mutationCase is the correct search of mutationGraph from its root, which
// the mutations corrupt.
type mutationCase struct {
	t      *testing.T
	g      csrtest.Graph
	root   int64
	parent []int64
	level  []int32
	nedge  int64
	adj    []map[int64]bool
}

func newMutationCase(t *testing.T) *mutationCase {
	g, root := mutationGraph()
	parent, level, nedge := serialBFS(g, root)
	return &mutationCase{t: t, g: g, root: root, parent: parent, level: level, nedge: nedge, adj: adjacency(g)}
}

// find returns the first vertex satisfying ok.
func (mc *mutationCase) find(ok func(v int64) bool) int64 {
	for v := int64(0); v < mc.g.N; v++ {
		if ok(v) {
			return v
		}
	}
	mc.t.Fatal("test graph has no vertex for this mutation")
	return -1
}

func (mc *mutationCase) reachedNonRoot(v int64) bool { return v != mc.root && mc.level[v] > 0 }

// isLeaf reports whether no vertex but v itself has v as its parent in p.
func (mc *mutationCase) isLeaf(p []int64, v int64) bool {
	for w := int64(0); w < mc.g.N; w++ {
		if p[w] == v && w != v {
			return false
		}
	}
	return true
}

// mutations is every corruption the validator must reject: those of
// ruleMutations, then those of certificateMutations.
func (mc *mutationCase) mutations() []mutation {
	return append(mc.ruleMutations(), mc.certificateMutations()...)
}

// ruleMutations break one rule of the Graph500 spec each (checks 1 to 5,
// the root, the ranges, nedge).
func (mc *mutationCase) ruleMutations() []mutation {
	g, root, level, nedge, adj := mc.g, mc.root, mc.level, mc.nedge, mc.adj
	return []mutation{
		{"parent is not a neighbour", "check 5", func(p []int64, l []int32) int64 {
			v := mc.find(func(v int64) bool { return level[v] >= 2 })
			w := mc.find(func(w int64) bool { return level[w] == level[v]-1 && !adj[v][w] })
			p[v] = w
			return nedge
		}},
		{"two vertices are each other's parent", "check 1", func(p []int64, l []int32) int64 {
			a := mc.find(func(v int64) bool { return level[v] >= 2 })
			b := mc.find(func(w int64) bool { return adj[a][w] && w != root && level[w] > 0 })
			p[a], p[b] = b, a
			return nedge
		}},
		{"level off by one", "check 2", func(p []int64, l []int32) int64 {
			v := mc.find(mc.reachedNonRoot)
			l[v]++
			return nedge
		}},
		{"leaf re-hung under a neighbour of its own level", "check 3", func(p []int64, l []int32) int64 {
			// v is a leaf with a neighbour u on its own level. Hanging v under
			// u with a matching level keeps checks 1, 2 and 5 happy, but the
			// edge to v's old parent now spans two levels.
			v := mc.find(func(v int64) bool {
				if !mc.reachedNonRoot(v) || !mc.isLeaf(p, v) {
					return false
				}
				for u := range adj[v] {
					if level[u] == level[v] {
						return true
					}
				}
				return false
			})
			for u := int64(0); u < g.N; u++ {
				if adj[v][u] && level[u] == level[v] {
					p[v] = u
					break
				}
			}
			l[v] = level[v] + 1
			return nedge
		}},
		{"reached vertex claimed unreached", "check 4", func(p []int64, l []int32) int64 {
			// A leaf, so that nothing else breaks first.
			v := mc.find(func(v int64) bool { return mc.reachedNonRoot(v) && mc.isLeaf(p, v) })
			p[v], l[v] = -1, -1
			return -1
		}},
		{"root's parent is another vertex", "root", func(p []int64, l []int32) int64 {
			for u := range adj[root] {
				p[root] = u
				break
			}
			return nedge
		}},
		{"parent out of range", "out of range", func(p []int64, l []int32) int64 {
			p[mc.find(mc.reachedNonRoot)] = g.N + 5
			return nedge
		}},
		{"negative parent other than -1", "out of range", func(p []int64, l []int32) int64 {
			p[mc.find(mc.reachedNonRoot)] = -7
			return nedge
		}},
		{"unreached vertex claims a level", "reached and unreached", func(p []int64, l []int32) int64 {
			l[mc.find(func(v int64) bool { return level[v] < 0 })] = 2
			return nedge
		}},
		{"vertex of another component hung on its neighbour", "check 1", func(p []int64, l []int32) int64 {
			p[410], l[410] = 409, 3
			return nedge
		}},
		{"vertex is its own parent", "check 1", func(p []int64, l []int32) int64 {
			v := mc.find(mc.reachedNonRoot)
			p[v] = v
			return nedge
		}},
		{"wrong nedge", "nedge", func(p []int64, l []int32) int64 { return nedge + 1 }},
	}
}

// certificateMutations are results consistent wherever a shortcut would
// look. The validator trusts no level: it checks that every parent is one
// level up and that only the root is at level 0, which together make the
// parents a tree whose depths are the levels.
func (mc *mutationCase) certificateMutations() []mutation {
	level, nedge, adj := mc.level, mc.nedge, mc.adj
	return []mutation{
		{"three-cycle whose levels fall along two of its edges", "check 1", func(p []int64, l []int32) int64 {
			a, b, c := findTriangle(mc.t, adj, mc.reachedNonRoot)
			p[a], p[b], p[c] = b, c, a
			l[c] = level[c]
			l[b], l[a] = l[c]+1, l[c]+2
			return nedge
		}},
		{"a second vertex at level 0, hung on the root", "check 1", func(p []int64, l []int32) int64 {
			v := mc.find(func(v int64) bool { return level[v] == 1 })
			l[v] = 0
			return nedge
		}},
		{"a second root: its own parent at level 0", "check 1", func(p []int64, l []int32) int64 {
			v := mc.find(func(v int64) bool { return level[v] == 1 })
			p[v], l[v] = v, 0
			return nedge
		}},
		{"every level below the root one deeper", "check 2", func(p []int64, l []int32) int64 {
			for v := range l {
				if l[v] > 0 {
					l[v]++
				}
			}
			return nedge
		}},
		{"a subtree one level deeper, its top hung one level too high", "check 2", func(p []int64, l []int32) int64 {
			// Below w every parent is still one level up; only w's own
			// tree edge spans two levels.
			w := mc.find(func(v int64) bool { return level[v] == 2 })
			deepen(p, l, w)
			return nedge
		}},
		{"a second tree in another component, its top at level 0", "check 1", func(p []int64, l []int32) int64 {
			// The path 400..419 is not reached. Claim 409 at level 0 under
			// its unreached neighbour 410 (so its parent is "one level up"
			// as an unreached vertex is), and 408 … 400 at levels 1 … 9
			// below it: every parent is one level up, but 409 is a second
			// vertex at level 0.
			p[409], l[409] = 410, 0
			for v := int64(408); v >= 400; v-- {
				p[v], l[v] = v+1, l[v+1]+1
			}
			return -1
		}},
	}
}

// requireRejected fails t unless err is a ValidationError that reports m's
// violation.
func requireRejected(t *testing.T, where string, err error, m mutation) {
	t.Helper()
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("%s, %s: got %v, want a ValidationError", where, m.name, err)
	}
	if verr.Counts[m.want] == 0 && !strings.Contains(err.Error(), m.want) {
		t.Errorf("%s, %s: no violation of %q:\n%v", where, m.name, m.want, err)
	}
}

// TestValidatorRejectsMutations: every class of corrupt result is rejected,
// with the check that catches it named, on 1, 3 and 4 ranks and on 2D
// grids, with every ghost layout.
func TestValidatorRejectsMutations(t *testing.T) {
	mc := newMutationCase(t)
	g, root, parent, level, nedge := mc.g, mc.root, mc.parent, mc.level, mc.nedge
	mutations := mc.mutations()
	variants := []struct {
		name string
		cfg  ValidatorConfig
	}{
		{"auto", ValidatorConfig{}},
		{"sparse", ValidatorConfig{layout: layoutSparse}},
		{"dense", ValidatorConfig{layout: layoutDense}},
		{"sparse, 3 values per round", ValidatorConfig{layout: layoutSparse, chunk: 3}},
		{"dense, 2 values per round", ValidatorConfig{layout: layoutDense, chunk: 2}},
	}
	variants2D := []struct {
		r, c int
		cfg  Validator2DConfig
	}{
		{1, 1, Validator2DConfig{}},
		{2, 2, Validator2DConfig{}},
		{3, 2, Validator2DConfig{chunk: 3, records: 64}},
		{1, 3, Validator2DConfig{}},
		{4, 1, Validator2DConfig{chunk: 1}},
	}
	for _, v2 := range variants2D {
		if err := validateGlobal2D(t, g, v2.r, v2.c, root, parent, level, nedge, v2.cfg); err != nil {
			t.Fatalf("%dx%d grid: the correct result is rejected: %v", v2.r, v2.c, err)
		}
		for _, m := range mutations {
			p, l := slices.Clone(parent), slices.Clone(level)
			claimed := m.apply(p, l)
			err := validateGlobal2D(t, g, v2.r, v2.c, root, p, l, claimed, v2.cfg)
			requireRejected(t, fmt.Sprintf("%dx%d grid", v2.r, v2.c), err, m)
		}
	}
	for _, ranks := range []int{1, 3, 4} {
		for _, vc := range variants {
			if ranks == 1 && vc.name != "auto" {
				continue // one rank has no ghosts
			}
			if err := validateGlobalWith(t, g, ranks, root, parent, level, nedge, vc.cfg); err != nil {
				t.Fatalf("%d ranks, %s: the correct result is rejected: %v", ranks, vc.name, err)
			}
			for _, m := range mutations {
				p, l := slices.Clone(parent), slices.Clone(level)
				claimed := m.apply(p, l)
				err := validateGlobalWith(t, g, ranks, root, p, l, claimed, vc.cfg)
				requireRejected(t, fmt.Sprintf("%d ranks, %s", ranks, vc.name), err, m)
			}
		}
	}
}

// TestValidatorRejectsDepthFirstTree: a spanning tree that is a tree and uses
// only input edges, but is not breadth-first, fails check 3.
func TestValidatorRejectsDepthFirstTree(t *testing.T) {
	g := csrtest.Graph{Name: "square", N: 4, Edges: []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 0}}}
	parent := []int64{0, 0, 1, 2}
	level := []int32{0, 1, 2, 3}
	for _, ranks := range []int{1, 2, 4} {
		err := validateGlobal(t, g, ranks, 0, parent, level, 4)
		if err == nil || !strings.Contains(err.Error(), "check 3") {
			t.Fatalf("%d ranks: depth-first tree: got %v, want a check 3 violation", ranks, err)
		}
	}
	for _, grid := range [][2]int{{1, 1}, {2, 1}, {1, 2}, {2, 2}} {
		err := validateGlobal2D(t, g, grid[0], grid[1], 0, parent, level, 4, Validator2DConfig{})
		if err == nil || !strings.Contains(err.Error(), "check 3") {
			t.Fatalf("%dx%d grid: depth-first tree: got %v, want a check 3 violation", grid[0], grid[1], err)
		}
	}
}

// TestValidatorWithoutLevels: a result with parents only is still validated.
func TestValidatorWithoutLevels(t *testing.T) {
	g, root := mutationGraph()
	parent, _, nedge := serialBFS(g, root)
	if err := validateGlobal(t, g, 3, root, parent, nil, nedge); err != nil {
		t.Fatal(err)
	}
	p := slices.Clone(parent)
	p[410] = 409
	if err := validateGlobal(t, g, 3, root, p, nil, -1); err == nil {
		t.Fatal("parents into another component accepted without levels")
	}
}

// findTriangle returns three pairwise adjacent vertices that all satisfy ok.
func findTriangle(t *testing.T, adj []map[int64]bool, ok func(v int64) bool) (a, b, c int64) {
	t.Helper()
	for a = range int64(len(adj)) {
		if !ok(a) {
			continue
		}
		for b = range adj[a] {
			if b <= a || !ok(b) {
				continue
			}
			for c = range adj[b] {
				if c > b && ok(c) && adj[a][c] {
					return a, b, c
				}
			}
		}
	}
	t.Fatal("test graph has no triangle")
	return
}

// deepen adds one to the level of w and of every vertex below it in the
// tree p.
func deepen(p []int64, l []int32, w int64) {
	below := []int64{w}
	for len(below) > 0 {
		v := below[len(below)-1]
		below = below[:len(below)-1]
		l[v]++
		for u := range p {
			if p[u] == v && int64(u) != v {
				below = append(below, int64(u))
			}
		}
	}
}

// TestValidatorDeepLevels: searches deeper than 254 and 65534 levels travel
// as 2- and 4-byte values, exactly, so a level off by 256 or 65536 — what a
// 1- or 2-byte encoding would wrap to the right value — is still caught.
func TestValidatorDeepLevels(t *testing.T) {
	for _, n := range []int64{700, 70000} {
		g := csrtest.Graph{Name: "path", N: n}
		for v := int64(1); v < n; v++ {
			g.Edges = append(g.Edges, graph.Edge{U: v - 1, V: v})
		}
		parent, level, nedge := serialBFS(g, 0)
		shift := int32(256)
		if n > 65536 {
			shift = 65536
		}
		for _, ranks := range []int{1, 3} {
			if err := validateGlobal(t, g, ranks, 0, parent, level, nedge); err != nil {
				t.Fatalf("path of %d on %d ranks: the correct result is rejected: %v", n, ranks, err)
			}
			l := slices.Clone(level)
			for v := n / 2; v < n; v++ {
				l[v] += shift // every parent below n/2 is still one level up
			}
			err := validateGlobal(t, g, ranks, 0, parent, l, nedge)
			var verr *ValidationError
			if !errors.As(err, &verr) || verr.Counts["check 2"] != 1 {
				t.Fatalf("path of %d on %d ranks, levels from %d on %d deeper: got %v, want one check 2 violation", n, ranks, n/2, shift, err)
			}
		}
	}
}

// TestValidatorParentsAnywhereInTheRow: a breadth-first tree whose parents
// are each vertex's smallest neighbour one level up (not the (select, max)
// choice of the engine) validates, and a parent that is not a neighbour is
// caught wherever it lies in the row: on a lower rank, among the own
// vertices below or above the vertex, on a higher rank.
func TestValidatorParentsAnywhereInTheRow(t *testing.T) {
	g, root := mutationGraph()
	_, level, nedge := serialBFS(g, root)
	adj := adjacency(g)
	parent := make([]int64, g.N)
	for v := range parent {
		parent[v] = -1
		if level[v] > 0 {
			for u := range adj[v] {
				if level[u] == level[v]-1 && (parent[v] < 0 || u < parent[v]) {
					parent[v] = u
				}
			}
		}
	}
	parent[root] = root
	const ranks = 4
	part, err := partition.NewBlock1D(g.N, ranks)
	if err != nil {
		t.Fatal(err)
	}
	for _, layout := range []ghostLayout{layoutSparse, layoutDense} {
		cfg := ValidatorConfig{layout: layout}
		if err := validateGlobalWith(t, g, ranks, root, parent, level, nedge, cfg); err != nil {
			t.Fatalf("layout %d: smallest-neighbour parents rejected: %v", layout, err)
		}
		v := int64(-1) // a vertex inside rank 1's range at level ≥ 2, so every region exists
		for x := part.First(1) + int64(part.Count(1))/2; x < part.First(2) && v < 0; x++ {
			if level[x] >= 2 {
				v = x
			}
		}
		first, last := part.First(part.Owner(v)), part.First(part.Owner(v)+1)
		regions := []struct {
			name string
			in   func(w int64) bool
		}{
			{"lower rank", func(w int64) bool { return w < first }},
			{"own, below", func(w int64) bool { return w >= first && w < v }},
			{"own, above", func(w int64) bool { return w > v && w < last }},
			{"higher rank", func(w int64) bool { return w >= last }},
		}
		for _, r := range regions {
			w := int64(-1)
			for x := range g.N {
				if r.in(x) && level[x] == level[v]-1 && !adj[v][x] {
					w = x
					break
				}
			}
			if w < 0 {
				t.Fatalf("no non-neighbour of %d one level up in region %s", v, r.name)
			}
			p := slices.Clone(parent)
			p[v] = w
			err := validateGlobalWith(t, g, ranks, root, p, level, nedge, cfg)
			var verr *ValidationError
			if !errors.As(err, &verr) || verr.Counts["check 5"] == 0 {
				t.Errorf("layout %d, parent of %d moved to non-neighbour %d (%s): got %v, want check 5", layout, v, w, r.name, err)
			}
		}
	}
}

// TestValidatorChecksEveryEdge: each undirected edge is checked at one of
// its ends only (by parity of the sum of its ends across ranks, or across
// the two blocks that store it in 2D), so a violation on any single edge
// must still be caught: every leaf that can be re-hung under a neighbour of
// its own level (which leaves the edge to its old parent spanning two
// levels) is, on 3 and 4 ranks and on 2x2, 3x2 and 1x3 grids.
func TestValidatorChecksEveryEdge(t *testing.T) {
	g, root := mutationGraph()
	parent, level, nedge := serialBFS(g, root)
	adj := adjacency(g)
	children := make([]int, g.N)
	for v, p := range parent {
		if p >= 0 && int64(v) != root {
			children[p]++
		}
	}
	tried := 0
	for v := range g.N {
		if v == root || level[v] <= 0 || children[v] > 0 {
			continue
		}
		u := int64(-1)
		for x := range adj[v] {
			if level[x] == level[v] && (u < 0 || x < u) {
				u = x
			}
		}
		if u < 0 {
			continue
		}
		p, l := slices.Clone(parent), slices.Clone(level)
		p[v], l[v] = u, level[v]+1
		for _, ranks := range []int{3, 4} {
			err := validateGlobal(t, g, ranks, root, p, l, nedge)
			var verr *ValidationError
			if !errors.As(err, &verr) || verr.Counts["check 3"] == 0 {
				t.Fatalf("%d ranks, leaf %d re-hung under %d: got %v, want check 3", ranks, v, u, err)
			}
		}
		for _, grid := range [][2]int{{2, 2}, {3, 2}, {1, 3}} {
			err := validateGlobal2D(t, g, grid[0], grid[1], root, p, l, nedge, Validator2DConfig{})
			var verr *ValidationError
			if !errors.As(err, &verr) || verr.Counts["check 3"] == 0 {
				t.Fatalf("%dx%d grid, leaf %d re-hung under %d: got %v, want check 3", grid[0], grid[1], v, u, err)
			}
		}
		if tried++; tried == 40 {
			break
		}
	}
	if tried < 10 {
		t.Fatalf("only %d leaves to re-hang", tried)
	}
}

// TestValidatorLayoutsAgree: on random graphs, every ghost layout and round
// size accepts the search's result and recounts the same nedge.
func TestValidatorLayoutsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for i := range 60 {
		g := csrtest.Random(rng, i)
		root := rng.Int64N(g.N)
		parent, level, nedge := serialBFS(g, root)
		ranks := 2 + i%4
		for _, cfg := range []ValidatorConfig{{layout: layoutSparse}, {layout: layoutDense}, {layout: layoutSparse, chunk: 1}, {layout: layoutDense, chunk: 5}} {
			if err := validateGlobalWith(t, g, ranks, root, parent, level, nedge, cfg); err != nil {
				t.Fatalf("graph %d (%s) on %d ranks, layout %d chunk %d: %v", i, g.Name, ranks, cfg.layout, cfg.chunk, err)
			}
		}
	}
}

// TestValidatorReuse: one validator per rank, sharing the search engine's
// cross directory (and, packed, its directory row), validates one search
// after another, rejects a corrupt one in between and accepts the next
// again; it sends exactly the boundary's levels, 1 byte per vertex of each
// directory vector.
func TestValidatorReuse(t *testing.T) {
	g, _ := mutationGraph()
	for _, ex := range []spmv.Exchange{spmv.ExchangeAllgather, spmv.ExchangeSieve, spmv.ExchangePacked} {
		for _, ranks := range []int{2, 5} {
			t.Run(fmt.Sprintf("%v/ranks=%d", ex, ranks), func(t *testing.T) {
				csrtest.OnRanks(t, g, ranks, 2, func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error {
					return validateSearches(ctx, c, csr, part, ex)
				})
			})
		}
	}
}

// validateSearches is one rank of TestValidatorReuse: four searches with
// one validator, the third corrupted, and the ghost bytes of each checked.
func validateSearches(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D, ex spmv.Exchange) error {
	r, ranks := c.Rank(), c.Size()
	bfs, err := New(c, csr, part, Config{Exchange: ex, Codec: "auto", Threads: 2})
	if err != nil {
		return err
	}
	v, err := NewValidator(ctx, c, csr, part, ValidatorConfig{Threads: 2, Share: bfs})
	if err != nil {
		return err
	}
	dir, err := sieve.Build(csr, part, r, 1)
	if err != nil {
		return err
	}
	var boundary int64
	for k := range ranks {
		if k != r {
			boundary += dir.Ones(k)
		}
	}
	for i, root := range []int64{3, 77, 410, 3} {
		bfs.Prepare()
		res, nedge, err := searchCounted(ctx, c, bfs, csr, root)
		if err != nil {
			return err
		}
		if i == 2 { // corrupt: a level of rank 0 off by one
			if r == 0 {
				res.Level[part.Local(3)] = 1
			}
			if _, err := v.Validate(ctx, root, res.Parent, res.Level, nedge); err == nil {
				return fmt.Errorf("search %d: a root at level 1 accepted", i)
			}
			continue
		}
		before := c.Stats().Phase(PhaseValidateGhosts)
		if _, err := v.Validate(ctx, root, res.Parent, res.Level, nedge); err != nil {
			return fmt.Errorf("search %d from %d: %w", i, root, err)
		}
		if sent := c.Stats().Phase(PhaseValidateGhosts).Sub(before).BytesSent; sent != boundary {
			return fmt.Errorf("search %d: rank %d sent %d bytes of ghost levels for a boundary of %d vertices", i, r, sent, boundary)
		}
	}
	return nil
}

// TestValidatorHoldsNothingPerSearch: after the first search a validator
// allocates a few small objects per search (goroutine closures, the
// collectives' bookkeeping), the same on a graph 16 times larger — nothing
// in proportion to the vertices or edges.
func TestValidatorHoldsNothingPerSearch(t *testing.T) {
	perSearch := func(scale int) uint64 {
		var bytes uint64
		g := csrtest.Graph{Name: "random", N: 1 << scale}
		rng := rand.New(rand.NewPCG(uint64(scale), 3))
		for range 8 << scale {
			g.Edges = append(g.Edges, graph.Edge{U: rng.Int64N(g.N), V: rng.Int64N(g.N)})
		}
		parent, level, nedge := serialBFS(g, g.Edges[0].U)
		csrtest.OnRanks(t, g, 2, 1, func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error {
			lo, hi := csr.FirstGlobal, csr.FirstGlobal+int64(csr.NumLocal)
			v, err := NewValidator(ctx, c, csr, part, ValidatorConfig{Threads: 2})
			if err != nil {
				return err
			}
			p, l := parent[lo:hi], level[lo:hi]
			if _, err := v.Validate(ctx, g.Edges[0].U, p, l, nedge); err != nil {
				return err
			}
			const rounds = 20
			var m0, m1 runtime.MemStats
			if err := c.Barrier(ctx, "test"); err != nil {
				return err
			}
			runtime.ReadMemStats(&m0)
			for range rounds {
				if _, err := v.Validate(ctx, g.Edges[0].U, p, l, nedge); err != nil {
					return err
				}
			}
			if err := c.Barrier(ctx, "test"); err != nil {
				return err
			}
			runtime.ReadMemStats(&m1)
			if c.Rank() == 0 {
				bytes = (m1.TotalAlloc - m0.TotalAlloc) / rounds
			}
			return nil
		})
		return bytes
	}
	small, large := perSearch(12), perSearch(16)
	if large > 32<<10 || large > small+8<<10 {
		t.Fatalf("a validation allocates %d bytes on 2^16 vertices, %d on 2^12", large, small)
	}
}
