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
	"strconv"
	"strings"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
)

// fusedLayout is a fusable LSHS layout run fused: the process grid
// over the renumbered graph, the renumbering, and per process column the
// block columns it holds.
type fusedLayout struct {
	grid    partition.Grid
	order   *partition.SegmentOrder
	columns [][]int
}

// String names the block columns of every process column, as
// "0+7 4+6 2+3 1+5" (process row i holds the i-th contiguous group of
// block rows).
func (f *fusedLayout) String() string {
	var sb strings.Builder
	for g, cols := range f.columns {
		if g > 0 {
			sb.WriteByte(' ')
		}
		for k, s := range cols {
			if k > 0 {
				sb.WriteByte('+')
			}
			sb.WriteString(strconv.Itoa(s))
		}
	}
	return sb.String()
}

// fusable returns the process grid of a run whose blocks can be fused
// (LSHS placement, not Unfused, the most square process grid refined by
// the block grid, and every block row and vertex piece of both grids an
// equal range of the vertices), and whether there is one.
func fusable(cfg Config, blocks partition.Grid, p int) (partition.Grid, bool) {
	pr, pc, _ := partition.AutoGrid(p)
	if cfg.Placement != PlaceLSHS || cfg.Unfused || blocks.R%pr != 0 || blocks.C%pc != 0 {
		return partition.Grid{}, false
	}
	procs, err := partition.NewGrid(blocks.Part.N, pr, pc)
	n := blocks.Part.N
	if err != nil || blocks.Part.Block*int64(blocks.P()) != n || procs.Part.Block*int64(p) != n {
		return partition.Grid{}, false
	}
	return procs, true
}

// fuseBlocks returns the fused layout of a run on c over the block grid
// blocks, or nil when its blocks cannot be fused: LSHS over the blocks'
// entries and the pilot's work, as placeBlocks measures them, restricted to
// the fusable layouts.
func fuseBlocks(ctx context.Context, c comm.Comm, cfg Config, blocks partition.Grid) (*fusedLayout, error) {
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
	return newFusedLayout(procs, blocks, col)
}

// newFusedLayout returns the fused layout of the block grid blocks on the
// process grid procs that puts block column c on process column col[c]:
// vertex piece (a, c) of the block grid, block row a and block column c,
// goes to piece (a·pr/br, col[c]) of the process grid, and the pieces that
// share one keep their order.
func newFusedLayout(procs, blocks partition.Grid, col []int) (*fusedLayout, error) {
	pieces := make([][]int, procs.P())
	columns := make([][]int, procs.C)
	for k := range blocks.P() {
		a, c := k/blocks.C, k%blocks.C
		t := procs.Rank(a/(blocks.R/procs.R), col[c])
		pieces[t] = append(pieces[t], k)
	}
	for c, g := range col {
		columns[g] = append(columns[g], c)
	}
	order, err := partition.NewSegmentOrder(blocks.Part.N, pieces)
	if err != nil {
		return nil, err
	}
	return &fusedLayout{grid: procs, order: order, columns: columns}, nil
}

// runFused is RunRank for a fused layout: kernel 1 builds the renumbered
// graph's block of this process on f.grid, and the searches run on it with
// one block per process. On rank 0 the report names the block grid, the
// blocks per rank, the placement and the groups.
func runFused(ctx context.Context, c comm.Comm, cfg Config, blocks partition.Grid, f *fusedLayout) (*results.Graph500Run, error) {
	params := cfg.Graph
	fcfg := cfg
	fcfg.BlocksPerRank, fcfg.GridRows, fcfg.GridCols = 1, f.grid.R, f.grid.C
	share := renumberedShare{params.Share(c.Rank(), c.Size(), cfg.Threads), f.order}
	g, blk, times, err := buildGraph(ctx, c, fcfg, f.grid.Part, f.grid, share)
	if err != nil {
		return nil, err
	}
	b := &builtGraph{g: g, blocks: blk, part: f.grid.Part, grid: f.grid, times: times, tuples: params.NumEdges(), order: f.order}
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
