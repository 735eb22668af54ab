// Package csrtest builds test graphs as distributed CSRs on in-process ranks
// for the tests and benchmarks of the kernels that take a graph.CSR (sieve's
// directory, the BFS searches and validator; Lv et al. §III, kernel 1 of the
// Graph500 specification): the random shapes of internal/testgraph as
// edge lists, and the launchers that build a graph on p ranks, each rank
// given a different slice of the tuples (1D blocks: OnRanks, Build; a 2D
// grid: OnGrid) or generating its own Kronecker tuples (OnKronecker), and
// run a function on every rank.
//
// It is a package of its own, not part of internal/testgraph, because it
// imports graph, whose own tests use internal/testgraph.
package csrtest

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph"
	"github.com/graphrun/graphrun/partition"
)

// Graph is an undirected edge list over vertices [0, N).
type Graph struct {
	Name  string
	N     int64
	Edges []graph.Edge
}

// Random draws the graph of shape i (testgraph.Random).
func Random(rng *rand.Rand, i int) Graph {
	var g Graph
	g.Name, g.N = testgraph.Random(rng, i, func(u, v int64) { g.Edges = append(g.Edges, graph.Edge{U: u, V: v}) })
	return g
}

// RankFunc is what OnRanks runs on every rank, given its CSR of the graph.
type RankFunc func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error

// OnRanks builds g on p in-process ranks with kernel 1 (graph.BuildUndirected
// on threads threads), each rank given a different contiguous slice of the
// tuples, and calls fn on each; any error fails the test.
func OnRanks(tb testing.TB, g Graph, p, threads int, fn RankFunc) {
	tb.Helper()
	part, err := partition.NewBlock1D(g.N, p)
	if err != nil {
		tb.Fatal(err)
	}
	err = inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		lo, hi := len(g.Edges)*r/p, len(g.Edges)*(r+1)/p
		csr, err := graph.BuildUndirected(ctx, c, part, slices.Clone(g.Edges[lo:hi]), threads)
		if err != nil {
			return err
		}
		return fn(ctx, c, csr, part)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// Build builds g on p in-process ranks (as OnRanks) and returns the
// partition and every rank's CSR.
func Build(tb testing.TB, g Graph, p, threads int) (partition.Block1D, []*graph.CSR) {
	tb.Helper()
	csrs := make([]*graph.CSR, p)
	var part partition.Block1D
	OnRanks(tb, g, p, threads, func(_ context.Context, c comm.Comm, csr *graph.CSR, pt partition.Block1D) error {
		csrs[c.Rank()], part = csr, pt
		return nil
	})
	return part, csrs
}

// GridFunc is what OnGrid runs on every rank, given its block of the graph
// and mine, its slice of the tuples (which the block was built from).
type GridFunc func(ctx context.Context, c comm.Comm, blk *graph.Block2D, grid partition.Grid, mine []graph.Edge) error

// OnGrid builds g's 2D blocks on a rows×cols grid of in-process ranks
// (graph.BuildUndirected2D on threads threads), each rank given a different
// contiguous slice of the tuples, and calls fn on each; any error fails the
// test.
func OnGrid(tb testing.TB, g Graph, rows, cols, threads int, fn GridFunc) {
	tb.Helper()
	grid, err := partition.NewGrid(g.N, rows, cols)
	if err != nil {
		tb.Fatal(err)
	}
	p := grid.P()
	err = inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		lo, hi := len(g.Edges)*r/p, len(g.Edges)*(r+1)/p
		mine := slices.Clone(g.Edges[lo:hi])
		blk, err := graph.BuildUndirected2D(ctx, c, grid, mine, threads)
		if err != nil {
			return err
		}
		return fn(ctx, c, blk, grid, mine)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// OnKronecker builds the Graph500 graph of params on p in-process ranks, each
// generating its own range of the tuples (Params.RankRange) on threads
// threads, and calls fn on each; any error fails the test or benchmark.
func OnKronecker(tb testing.TB, params kronecker.Params, p, threads int, fn RankFunc) {
	tb.Helper()
	part, err := partition.NewBlock1D(params.NumVertices(), p)
	if err != nil {
		tb.Fatal(err)
	}
	err = inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		first, count := params.RankRange(c.Rank(), p)
		edges := make([]graph.Edge, count)
		params.GenerateParallel(first, edges, threads)
		csr, err := graph.BuildUndirected(ctx, c, part, edges, threads)
		if err != nil {
			return err
		}
		return fn(ctx, c, csr, part)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchScale is the Kronecker scale of a kernel's benchmarks:
// GRAPHRUN_BENCH_SCALE, or def when it is unset.
func BenchScale(b *testing.B, def int) int {
	s := os.Getenv("GRAPHRUN_BENCH_SCALE")
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > 30 {
		b.Fatalf("GRAPHRUN_BENCH_SCALE=%q: want a scale in 1..30", s)
	}
	return v
}
