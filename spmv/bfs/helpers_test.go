package bfs

import (
	"context"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
)

// serialBFS is the obviously-correct reference: a queue-based BFS over
// adjacency sets, with each vertex's parent the largest neighbour one level up
// (the (select, max) rule), and nedge counted from the tuples.
func serialBFS(g csrtest.Graph, root int64) (parent []int64, level []int32, nedge int64) {
	adj := make([][]int64, g.N)
	for _, e := range g.Edges {
		if e.U != e.V {
			adj[e.U] = append(adj[e.U], e.V)
			adj[e.V] = append(adj[e.V], e.U)
		}
	}
	level = make([]int32, g.N)
	parent = make([]int64, g.N)
	for i := range level {
		level[i], parent[i] = -1, -1
	}
	level[root], parent[root] = 0, root
	queue := []int64{root}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, u := range adj[v] {
			if level[u] == -1 {
				level[u] = level[v] + 1
				queue = append(queue, u)
			}
		}
	}
	for v := int64(0); v < g.N; v++ {
		if v == root || level[v] < 0 {
			continue
		}
		for _, u := range adj[v] {
			if level[u] == level[v]-1 {
				parent[v] = max(parent[v], u)
			}
		}
	}
	for _, e := range g.Edges {
		if e.U != e.V && level[e.U] >= 0 {
			nedge++
		}
	}
	return parent, level, nedge
}

// searchCounted runs b's search from root and counts the edges of its
// component (ComponentEdges, Graph500's nedge): both collectives.
func searchCounted(ctx context.Context, c comm.Comm, b *BFS, csr *graph.CSR, root int64) (*Result, int64, error) {
	res, err := b.Run(ctx, root)
	if err != nil {
		return nil, 0, err
	}
	nedge, err := ComponentEdges(ctx, c, csr.TupleDegree, res.Parent)
	if err != nil {
		return nil, 0, err
	}
	return res, nedge, nil
}

// distributedBFS runs one search on p ranks and returns the gathered global
// parent and level arrays, the search's nedge and the validator's verdict.
func distributedBFS(t *testing.T, g csrtest.Graph, root int64, p, threads int, mode Config) (parent []int64, level []int32, nedge int64, verr error) {
	t.Helper()
	parent = make([]int64, g.N)
	level = make([]int32, g.N)
	verrs := make([]error, p)
	nedges := make([]int64, p)
	mode.Threads = threads
	csrtest.OnRanks(t, g, p, threads, func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error {
		b, err := New(c, csr, part, mode)
		if err != nil {
			return err
		}
		res, ne, err := searchCounted(ctx, c, b, csr, root)
		if err != nil {
			return err
		}
		copy(parent[csr.FirstGlobal:], res.Parent)
		copy(level[csr.FirstGlobal:], res.Level)
		nedges[c.Rank()] = ne
		_, verrs[c.Rank()] = Validate(ctx, c, csr, part, root, res.Parent, res.Level, ne, threads)
		return nil
	})
	for r := 1; r < p; r++ {
		if nedges[r] != nedges[0] {
			t.Fatalf("ranks disagree on nedge: %v", nedges)
		}
		if (verrs[r] == nil) != (verrs[0] == nil) {
			t.Fatalf("ranks disagree on validation: %v", verrs)
		}
	}
	return parent, level, nedges[0], verrs[0]
}

// validateGlobal distributes global parent/level arrays over p ranks and
// validates them; all ranks must agree.
func validateGlobal(t *testing.T, g csrtest.Graph, p int, root int64, parent []int64, level []int32, claimed int64) error {
	t.Helper()
	return validateGlobalWith(t, g, p, root, parent, level, claimed, ValidatorConfig{})
}

// validateGlobalWith is validateGlobal with a validator configured by cfg
// (its Threads is set per rank: 1 + rank mod 3).
func validateGlobalWith(t *testing.T, g csrtest.Graph, p int, root int64, parent []int64, level []int32, claimed int64, cfg ValidatorConfig) error {
	t.Helper()
	errs := make([]error, p)
	csrtest.OnRanks(t, g, p, 1, func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error {
		lo, hi := csr.FirstGlobal, csr.FirstGlobal+int64(csr.NumLocal)
		var lv []int32
		if level != nil {
			lv = slices.Clone(level[lo:hi])
		}
		cfg := cfg
		cfg.Threads = 1 + c.Rank()%3
		v, err := NewValidator(ctx, c, csr, part, cfg)
		if err != nil {
			return err
		}
		_, errs[c.Rank()] = v.Validate(ctx, root, slices.Clone(parent[lo:hi]), lv, claimed)
		return nil
	})
	for r := 1; r < p; r++ {
		if (errs[r] == nil) != (errs[0] == nil) {
			t.Fatalf("ranks disagree on validation: %v", errs)
		}
	}
	return errs[0]
}

// searchModes are the exchange and direction combinations every BFS test runs.
var searchModes = []Config{
	{Exchange: spmv.ExchangeAllgather, Direction: spmv.DirectionAuto},
	{Exchange: spmv.ExchangeAllgather, Direction: spmv.DirectionBottomUp},
	{Exchange: spmv.ExchangeAllgather, Direction: spmv.DirectionTopDown},
	{Exchange: spmv.ExchangePush},
	{Exchange: spmv.ExchangeSieve, Direction: spmv.DirectionBottomUp, Codec: "wah"},
	{Exchange: spmv.ExchangePacked, Direction: spmv.DirectionAuto, Codec: "auto"},
}

func (c Config) String() string {
	if c.Exchange == spmv.ExchangePush {
		return "push" // always top-down
	}
	codec := c.Codec
	if codec == "" {
		codec = "raw"
	}
	return c.Exchange.String() + "/" + codec + "/" + c.Direction.String()
}

// allModes is every exchange × codec × direction the engine offers, push
// once (it is top-down with no codec).
func allModes() []Config {
	modes := []Config{{Exchange: spmv.ExchangePush}}
	for _, ex := range []spmv.Exchange{spmv.ExchangeAllgather, spmv.ExchangeSieve, spmv.ExchangePacked} {
		for _, codec := range frontier.Names() {
			for _, dir := range []spmv.Direction{spmv.DirectionAuto, spmv.DirectionBottomUp, spmv.DirectionTopDown} {
				if dir == spmv.DirectionTopDown && codec != "raw" {
					continue // top-down levels publish no bitmap: the codec is never used
				}
				modes = append(modes, Config{Exchange: ex, Codec: codec, Direction: dir})
			}
		}
	}
	return modes
}

// validateGlobal2D distributes global parent/level arrays over an r×c grid
// and validates them with the 2D validator on the blocks (threads 1 + rank
// mod 3); all ranks must agree.
func validateGlobal2D(t *testing.T, g csrtest.Graph, r, c int, root int64, parent []int64, level []int32, claimed int64, cfg Validator2DConfig) error {
	t.Helper()
	p := r * c
	errs := make([]error, p)
	csrtest.OnGrid(t, g, r, c, 2, func(ctx context.Context, cm comm.Comm, blk *graph.Block2D, _ partition.Grid, _ []graph.Edge) error {
		rank := cm.Rank()
		first := blk.OwnedFirst
		var lv []int32
		if level != nil {
			lv = slices.Clone(level[first : first+int64(blk.NumOwned)])
		}
		cfg := cfg
		cfg.Threads = 1 + rank%3
		v, err := NewValidator2D(ctx, cm, blk, cfg)
		if err != nil {
			return err
		}
		_, errs[rank] = v.Validate(ctx, root, slices.Clone(parent[first:first+int64(blk.NumOwned)]), lv, claimed)
		return nil
	})
	for k := 1; k < p; k++ {
		if (errs[k] == nil) != (errs[0] == nil) {
			t.Fatalf("ranks disagree on validation: %v", errs)
		}
	}
	return errs[0]
}
