package graph500

// Fused execution of LSHS's placement (NumS §5's load-simulated
// placement, run aggregated per process: over-decomposition whose blocks
// move together; the 2D engine runs them). When the block
// grid refines the most square process grid, LSHS may choose among the
// layouts partition.PlaceLSHSFusable allows: block rows in contiguous
// groups, block columns grouped freely. A process's blocks are then one
// block of the process grid over the graph renumbered by
// partition.SegmentOrder (the vertex pieces of the block grid moved whole,
// each column's vertices kept in order), and the run searches that graph
// with one block per process: one engine, one set of bitmaps and one
// message per peer and exchange per process, where the blocks run one by
// one (comm/multiplex) pay an engine, a hub round and the bitmaps per
// block and level. The searches keep the parent largest in the original
// numbering (bfs.Config.Order), so trees, keys and roots are those of
// every other layout; the tree is written in the generator's ids.

import (
	"context"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
)

// fusable returns the process grid of a run whose blocks can be fused
// (LSHS placement, not Unfused, and partition.FusableGrid), and whether
// there is one.
func fusable(cfg Config, blocks partition.Grid, p int) (partition.Grid, bool) {
	if cfg.Placement != PlaceLSHS || cfg.Unfused {
		return partition.Grid{}, false
	}
	return partition.FusableGrid(blocks, p)
}

// fuseBlocks returns the fused layout of a run on c over the block grid
// blocks, or nil when its blocks cannot be fused: LSHS over the blocks'
// entries and the pilot's work, as placeBlocks measures them, restricted to
// the fusable layouts.
func fuseBlocks(ctx context.Context, c comm.Comm, cfg Config, blocks partition.Grid) (*partition.FusedLayout, error) {
	procs, ok := fusable(cfg, blocks, c.Size())
	if !ok {
		return nil, nil
	}
	counts, err := blockEdges(ctx, c, cfg.Graph.Share(c.Rank(), c.Size(), cfg.Threads), blocks)
	if err != nil {
		return nil, err
	}
	work, err := pilotWork(ctx, c, cfg, blocks)
	if err != nil {
		return nil, err
	}
	pb, err := partition.GridBlocksProblem(c.Size(), blocks, counts, work)
	if err != nil {
		return nil, err
	}
	_, col, err := partition.PlaceLSHSFusable(pb, procs.R, procs.C)
	if err != nil {
		return nil, err
	}
	return partition.NewFusedLayout(procs, blocks, col)
}

// runFused is RunRank for a fused layout: kernel 1 builds the renumbered
// graph's block of this process on f.Grid, and the searches run on it with
// one block per process. On rank 0 the report names the block grid, the
// blocks per rank, the placement and the groups.
func runFused(ctx context.Context, c comm.Comm, cfg Config, blocks partition.Grid, f *partition.FusedLayout) (*results.Graph500Run, error) {
	params := cfg.Graph
	fcfg := cfg
	fcfg.BlocksPerRank, fcfg.GridRows, fcfg.GridCols = 1, f.Grid.R, f.Grid.C
	share := renumberedShare{params.Share(c.Rank(), c.Size(), cfg.Threads), f.Order}
	g, blk, times, err := buildGraph(ctx, c, fcfg, f.Grid.Part, f.Grid, share)
	if err != nil {
		return nil, err
	}
	b := &builtGraph{g: g, blocks: blk, part: f.Grid.Part, grid: f.Grid, times: times, tuples: params.NumEdges(), order: f.Order}
	var head *results.Graph500Run
	if c.Rank() == 0 {
		head = &results.Graph500Run{Scale: params.Scale, EdgeFactor: params.EdgeFactor, Seed: params.Seed, Unpermuted: params.Unpermuted}
	}
	run, err := searchGraph(ctx, c, fcfg, b, head)
	if err != nil || run == nil {
		return run, err
	}
	run.Grid, run.BlocksPerRank, run.Placement, run.Fused = blocks.String(), cfg.BlocksPerRank, cfg.Placement.String(), f.String()
	for r := range run.RankLoads {
		run.RankLoads[r].Blocks = cfg.BlocksPerRank
	}
	return run, nil
}

// renumberedShare is a tuple source read through a renumbering of its
// vertices.
type renumberedShare struct {
	graph.TupleSource
	order *partition.SegmentOrder
}

// Read reads the tuples and renumbers their ends.
func (s renumberedShare) Read(ctx context.Context, first int64, out []graph.Edge) error {
	if err := s.TupleSource.Read(ctx, first, out); err != nil {
		return err
	}
	for k := range out {
		out[k].U, out[k].V = s.order.New(out[k].U), s.order.New(out[k].V)
	}
	return nil
}
