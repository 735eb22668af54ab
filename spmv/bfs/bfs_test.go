package bfs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/testgraph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
)

// TestBFSMatchesSerialReference: ≥ 200 random graphs of every nasty shape, on
// 1..8 ranks, both exchanges: levels, parents and nedge equal the serial
// reference, and every result validates.
func TestBFSMatchesSerialReference(t *testing.T) {
	checkRandomSearches(t, 1, 240, 40, func(i int) int { return i }, func(i int, g csrtest.Graph, root int64, threads int, mode Config) (string, searchResult) {
		p := 1 + i%8
		parent, level, nedge, verr := distributedBFS(t, g, root, p, threads, mode)
		return fmt.Sprintf("%d ranks", p), searchResult{parent, level, nedge, verr}
	})
}

// searchResult is a distributed search's gathered global result and its
// validator's verdict.
type searchResult struct {
	parent []int64
	level  []int32
	nedge  int64
	verr   error
}

// checkRandomSearches is the property test of the 1D and 2D engines:
// graphs random graphs of every nasty shape (short under -short) drawn
// from seed, each searched from a random root by search (graph i's layout,
// a random thread count 1..3) in every mode of searchModes and
// allModes()[extraMode(i)], must give the serial reference's levels,
// parents and nedge, and validate.
func checkRandomSearches(t *testing.T, seed uint64, graphs, short int, extraMode func(i int) int, search func(i int, g csrtest.Graph, root int64, threads int, mode Config) (where string, got searchResult)) {
	t.Helper()
	if testing.Short() {
		graphs = short
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	everyMode := allModes()
	for i := range graphs {
		g := csrtest.Random(rng, i)
		root := rng.Int64N(g.N)
		wantParent, wantLevel, wantNEdge := serialBFS(g, root)
		threads := 1 + rng.IntN(3)
		modes := append(slices.Clone(searchModes), everyMode[extraMode(i)%len(everyMode)])
		for _, mode := range modes {
			where, got := search(i, g, root, threads, mode)
			if !slices.Equal(got.level, wantLevel) {
				t.Fatalf("graph %d (%s, n=%d, root %d) on %s, %v: levels\n got %v\nwant %v", i, g.Name, g.N, root, where, mode, got.level, wantLevel)
			}
			if !slices.Equal(got.parent, wantParent) {
				t.Fatalf("graph %d (%s, n=%d, root %d) on %s, %v: parents\n got %v\nwant %v", i, g.Name, g.N, root, where, mode, got.parent, wantParent)
			}
			if got.nedge != wantNEdge {
				t.Fatalf("graph %d (%s) on %s, %v: nedge %d, want %d", i, g.Name, where, mode, got.nedge, wantNEdge)
			}
			if got.verr != nil {
				t.Fatalf("graph %d (%s) on %s, %v: valid result rejected: %v", i, g.Name, where, mode, got.verr)
			}
		}
	}
}

// TestBFSRankAndThreadInvariance: the same graph searched on every rank count
// and thread count gives bit-identical results.
func TestBFSRankAndThreadInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	g := csrtest.Graph{Name: "random", N: 3000}
	for e := 0; e < 20000; e++ {
		// skewed endpoints so that some rows are long
		u := rng.Int64N(1 + rng.Int64N(g.N))
		g.Edges = append(g.Edges, graphEdge(u, rng.Int64N(g.N)))
	}
	root := g.Edges[0].U
	wantParent, wantLevel, _, err := distributedBFS(t, g, root, 1, 1, searchModes[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{1, 2, 3, 4, 7} {
		for _, threads := range []int{1, 2, 4} {
			for _, ex := range searchModes {
				parent, level, _, err := distributedBFS(t, g, root, p, threads, ex)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(parent, wantParent) || !slices.Equal(level, wantLevel) {
					t.Fatalf("ranks %d threads %d %v: result differs from 1 rank", p, threads, ex)
				}
			}
		}
	}
}

// TestBFSConfigErrorsNameTheField: a bad configuration is refused with a
// fielderr.Error naming the Config field at fault.
func TestBFSConfigErrorsNameTheField(t *testing.T) {
	g := csrtest.Graph{Name: "pair", N: 2, Edges: []graph.Edge{{U: 0, V: 1}}}
	bad := map[string]Config{
		"Threads":   {Threads: 0},
		"Exchange":  {Threads: 1, Exchange: spmv.ExchangePacked + 1},
		"Direction": {Threads: 1, Direction: spmv.DirectionBottomUp + 1},
		"Codec":     {Threads: 1, Codec: "nonsense"},
		"Order":     {Threads: 1, Order: &partition.SegmentOrder{}},
	}
	for field, cfg := range bad {
		csrtest.OnRanks(t, g, 2, 1, func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error {
			if _, err := New(c, csr, part, cfg); fielderr.Field(err) != field {
				return fmt.Errorf("%+v: %v, want an error of %s", cfg, err, field)
			}
			return nil
		})
	}
}

func TestBFSRejectsBadRoot(t *testing.T) {
	g := csrtest.Graph{Name: "pair", N: 2, Edges: []graph.Edge{{U: 0, V: 1}}}
	for _, root := range []int64{-1, 2, 1 << 40} {
		csrtest.OnRanks(t, g, 2, 1, func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error {
			b, err := New(c, csr, part, Config{Threads: 1})
			if err != nil {
				return err
			}
			if _, err := b.Run(ctx, root); err == nil {
				return fmt.Errorf("root %d accepted", root)
			}
			return nil
		})
	}
}

func graphEdge(u, v int64) graph.Edge { return graph.Edge{U: u, V: v} }

// TestEveryModeCodecAndDirection: every exchange × codec × direction gives
// the same parents and levels as the serial reference, and validates, on a
// Kronecker graph and a path, for 1..16 ranks.
func TestEveryModeCodecAndDirection(t *testing.T) {
	params := kronecker.DefaultParams(9)
	kron := csrtest.Graph{Name: "kronecker", N: params.NumVertices(), Edges: make([]graph.Edge, params.NumEdges())}
	params.Generate(0, kron.Edges)
	rng := rand.New(rand.NewPCG(5, 6))
	path := csrtest.Random(rng, testgraph.ShapePath)
	ranks := []int{1, 2, 3, 5, 8, 16}
	if testing.Short() {
		ranks = []int{1, 3, 16}
	}
	for _, g := range []csrtest.Graph{kron, path} {
		root := g.Edges[0].U
		wantParent, wantLevel, wantNEdge := serialBFS(g, root)
		for _, p := range ranks {
			for _, mode := range allModes() {
				parent, level, nedge, verr := distributedBFS(t, g, root, p, 2, mode)
				if verr != nil || nedge != wantNEdge || !slices.Equal(level, wantLevel) || !slices.Equal(parent, wantParent) {
					t.Fatalf("%s on %d ranks, %v: nedge %d (want %d), levels equal %v, parents equal %v, validation %v",
						g.Name, p, mode, nedge, wantNEdge, slices.Equal(level, wantLevel), slices.Equal(parent, wantParent), verr)
				}
			}
		}
	}
}
