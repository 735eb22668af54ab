package graph500

// Over-decomposition of the 2D run (NumS §4–5): k blocks per
// rank, placed either cyclically (§4's layout, the baseline) or by LSHS
// (§5 Algorithm 1, partition.PlaceLSHS), whose load simulation is fed the
// blocks' edge counts, measured in one pass over the generator's tuples
// before kernel 1. Each block is run by the unchanged 2D driver over a
// rank of a multiplexed job (comm/multiplex), so trees, levels and validation are
// those of a k·p-rank 2D run, which equal the 1D engine's — unless LSHS's
// layout lets every rank run its blocks fused, as one block of a
// renumbered graph (fused.go), which runBlocks tries first.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/multiplex"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/enum"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv/bfs"
)

// Placement chooses where the blocks of an over-decomposed 2D run live.
type Placement int

// Placements.
const (
	PlaceLSHS       Placement = iota // NumS §5's load-simulated greedy (LSHS)
	PlaceRoundRobin                  // block k (row-major) on rank k mod p
)

var placementNames = [...]string{PlaceLSHS: "lshs", PlaceRoundRobin: "round-robin"}

func (p Placement) String() string { return enum.Name(placementNames[:], "placement", p) }

// ParsePlacement returns the Placement named s (its String).
func ParsePlacement(s string) (Placement, error) {
	return enum.Parse[Placement](placementNames[:], "placement", "lshs or round-robin", s)
}

// runBlocks is RunRank with cfg.BlocksPerRank blocks per rank: it places the
// blocks, runs every block this rank hosts as a block-rank of the 2D driver,
// and returns, on rank 0, the run with the loads summed per rank.
func runBlocks(ctx context.Context, c comm.Comm, cfg Config) (*results.Graph500Run, error) {
	if err := cfg.Graph.Validate(); err != nil {
		return nil, err
	}
	grid, err := cfg.grid(cfg.Graph.NumVertices(), c.Size())
	if err != nil {
		return nil, err
	}
	if f, err := fuseBlocks(ctx, c, cfg, grid); err != nil {
		return nil, err
	} else if f != nil {
		return runFused(ctx, c, cfg, grid, f)
	}
	owner, err := placeBlocks(ctx, c, cfg, grid)
	if err != nil {
		return nil, err
	}
	return runPlaced(ctx, c, cfg, grid, owner, func(ctx context.Context, _ int, bc comm.Comm, bcfg Config) (*results.Graph500Run, error) {
		return RunRank(ctx, bc, bcfg)
	})
}

// blockRun runs one block-rank: bc is its Comm among all the blocks, bcfg
// the run's configuration for one block per rank, k the block's index
// among the blocks this process hosts.
type blockRun func(ctx context.Context, k int, bc comm.Comm, bcfg Config) (*results.Graph500Run, error)

// runPlaced runs the blocks of grid that owner places on this rank, each
// as a block-rank (run), and returns, on rank 0, block 0's run with the
// loads summed per rank and the ranks' busy times.
func runPlaced(ctx context.Context, c comm.Comm, cfg Config, grid partition.Grid, owner []int, run blockRun) (*results.Graph500Run, error) {
	runs, busy, err := runHosted(ctx, c, cfg, grid, owner, run)
	if err != nil {
		return nil, err
	}
	p := c.Size()
	rankBusy := make([]int64, 2*p) // busy time, then CPU time, per rank
	rankBusy[c.Rank()], rankBusy[p+c.Rank()] = busy.total()
	if err := c.AllreduceInt64(ctx, "driver.gather", rankBusy, comm.Sum); err != nil {
		return nil, fmt.Errorf("gathering the ranks' busy time: %w", err)
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	head := runs[0] // block 0 is on rank 0 (partition.PlaceGridBlocks sees to it)
	head.NumRanks, head.Threads, head.BlocksPerRank, head.Placement = c.Size(), cfg.Threads, cfg.BlocksPerRank, cfg.Placement.String()
	head.RankLoads = loadsPerRank(head.RankLoads, owner, c.Size())
	for r := range head.RankLoads {
		head.RankLoads[r].BusySeconds = time.Duration(rankBusy[r]).Seconds()
		head.RankLoads[r].CPUSeconds = time.Duration(rankBusy[p+r]).Seconds()
	}
	return head, nil
}

// runHosted runs the blocks of grid that owner places on this rank, each
// as a block-rank (run) with cfg for one block per rank, and returns their
// runs (block 0's first on rank 0; its loads are per block) and the
// process's busy time.
func runHosted(ctx context.Context, c comm.Comm, cfg Config, grid partition.Grid, owner []int, run blockRun) ([]*results.Graph500Run, *blockBusy, error) {
	q := grid.P()
	hub, err := multiplex.New(c, owner)
	if err != nil {
		return nil, nil, err
	}
	// The rank's threads are shared among its blocks, which run at once.
	bcfg := cfg
	bcfg.BlocksPerRank = 1
	bcfg.Ranks = q
	bcfg.Threads = max(1, cfg.Threads/cfg.BlocksPerRank)
	if bcfg.GridRows == 0 {
		bcfg.GridRows, bcfg.GridCols = grid.R, grid.C
	}
	busy := &blockBusy{}
	bcfg.blockBusy = busy
	runs := make([]*results.Graph500Run, len(hub.Local()))
	err = hub.Run(func(k int, bc *multiplex.Comm) error {
		var err error
		runs[k], err = run(ctx, k, bc, bcfg)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return runs, busy, nil
}

// blockBusy is one process's busy time over the timed searches of its
// blocks. The blocks of a process run at once and meet at every collective
// of a level, so in a level the process is busy while its slowest block is:
// per search and level, the largest of its blocks' traversal, sieve and
// coding time (spmv.LevelStats Traverse + Compress), summed. The sum over
// the blocks would count the same wall time once per block running, since
// a block's timer also runs while its siblings hold the CPU. Likewise the
// process's CPU time in search i is the largest a local block measured
// over its search (they start together at a barrier; the last to finish
// saw the whole search).
type blockBusy struct {
	mu     sync.Mutex
	levels [][]time.Duration // [search][level]: the slowest local block's time
	cpu    []time.Duration   // [search]: the largest CPU time a block measured
}

// record adds one block's search number i, which measured the process's
// CPU time cpu (cpuClock).
func (b *blockBusy) record(i int, res *bfs.Result, cpu time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.levels) <= i {
		b.levels = append(b.levels, nil)
		b.cpu = append(b.cpu, 0)
	}
	b.cpu[i] = max(b.cpu[i], cpu)
	lv := b.levels[i]
	for len(lv) < len(res.Steps) {
		lv = append(lv, 0)
	}
	for l, s := range res.Steps {
		lv[l] = max(lv[l], s.Traverse+s.Compress)
	}
	b.levels[i] = lv
}

// total is the process's busy time (the slowest block's per level,
// summed) and CPU time (per search, summed).
func (b *blockBusy) total() (busy, cpu int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, lv := range b.levels {
		for _, d := range lv {
			busy += int64(d)
		}
		cpu += int64(b.cpu[i])
	}
	return busy, cpu
}

// loadsPerRank sums the block-ranks' loads per rank. The peak memory is the
// process's, so it is the maximum, not the sum; the busy time summed here
// is replaced by runPlaced with blockBusy's, which also gives the CPU time.
func loadsPerRank(blocks []results.RankLoad, owner []int, p int) []results.RankLoad {
	loads := make([]results.RankLoad, p)
	for v, l := range blocks {
		r := &loads[owner[v]]
		r.Edges += l.Edges
		r.MemoryBytes += l.MemoryBytes
		r.BytesSent += l.BytesSent
		r.Messages += l.Messages
		r.ValidateBytes += l.ValidateBytes
		r.ValidateMessages += l.ValidateMessages
		r.PeakMemoryBytes = max(r.PeakMemoryBytes, l.PeakMemoryBytes)
		r.ProcessKey = l.ProcessKey
		r.Blocks += l.Blocks
		r.EdgesScanned += l.EdgesScanned
		r.BusySeconds += l.BusySeconds
	}
	return loads
}

// placeBlocks returns the rank of every block of grid (row-major, = its
// rank in the multiplexed job), placed by partition.PlaceGridBlocks:
// round-robin, or LSHS over the blocks' edge counts, which one pass over
// this rank's share of the tuples counts and an allreduce sums, and their
// work, measured by a pilot run (pilotWork). Every rank computes the same
// placement, with block 0 (whose rank reports the run) on rank 0.
func placeBlocks(ctx context.Context, c comm.Comm, cfg Config, grid partition.Grid) ([]int, error) {
	counts, err := blockEdges(ctx, c, cfg.Graph.Share(c.Rank(), c.Size(), cfg.Threads), grid)
	if err != nil {
		return nil, err
	}
	var work []int64
	if cfg.Placement == PlaceLSHS {
		if work, err = pilotWork(ctx, c, cfg, grid); err != nil {
			return nil, err
		}
	}
	return partition.PlaceGridBlocks(c.Size(), cfg.Placement == PlaceLSHS, grid, counts, work)
}

// Pilot runs: the work of each block is measured on the same Kronecker
// graph at pilotScale (its recursive structure makes the blocks of a
// smaller instance cost alike in proportion: at scale 18 on an 8x8 block
// grid, a scale-15 pilot's per-block entries read predict the full run's
// within 1.4×, where entries held miss by 16×), searched from
// pilotRoots keys.
const (
	pilotShrink   = 3  // the pilot is 2^3 times smaller than the graph...
	pilotMaxScale = 16 // ...and at most this scale
	pilotRoots    = 8
)

// blockWordCost is what one 64-bit word of a block's row and column
// bitmaps costs per level, in adjacency entries read: every level a block
// clears, scans, sieves, packs and codes its rows' and columns' bitmaps and
// meets its row and column peers in the exchanges, whatever its entries.
// Calibrated on the emulated cluster (2026-11-24): at scale 18 on an 8x8 block grid (512 + 512 words), a
// rank's busy time fits 0.11 s per million entries read plus 0.024 s per
// block over 16 searches of 6.4 levels, i.e. 2.1 entries per word per level.
const blockWordCost = 2

// pilotScale is the scale of the pilot graph for a graph of the given
// scale on q blocks: pilotShrink smaller, at most pilotMaxScale, but large
// enough that every block owns a whole piece of 64 vertices (as Block1D
// rounds), so that the pilot's blocks are the graph's in miniature; never
// larger than the graph.
func pilotScale(scale, q int) int {
	need := bits.Len64(uint64(64*q - 1)) // 2^need ≥ 64·q
	return min(scale, max(min(scale-pilotShrink, pilotMaxScale), need))
}

// pilotWork measures every block's work: rank 0 runs the 2D driver on the
// pilot graph with one in-process rank per block of grid (the same block
// grid, the same exchange and direction, no validation) and sends every
// block-rank's edges scanned to all ranks, scaled by the ratio of the
// graph's tuples to the pilot's, plus the block's fixed cost: the pilot's
// levels times blockWordCost per word of the graph's block row and column
// bitmaps.
func pilotWork(ctx context.Context, c comm.Comm, cfg Config, grid partition.Grid) ([]int64, error) {
	q := grid.P()
	var msg []byte
	if c.Rank() == 0 {
		pc := Config{Graph: cfg.Graph, Ranks: q, Threads: 1, NumRoots: pilotRoots, Root: -1,
			Exchange: cfg.Exchange, Direction: cfg.Direction, Codec: cfg.Codec,
			Partition2D: true, GridRows: grid.R, GridCols: grid.C}
		pc.Graph.Scale = pilotScale(cfg.Graph.Scale, q)
		run, err := Run(ctx, pc)
		if err != nil {
			return nil, fmt.Errorf("the placement's pilot run (scale %d): %w", pc.Graph.Scale, err)
		}
		shift := uint(cfg.Graph.Scale - pc.Graph.Scale)
		fixed := blockFixedWork(run, grid)
		for _, l := range run.RankLoads {
			msg = binary.LittleEndian.AppendUint64(msg, uint64(l.EdgesScanned<<shift+fixed))
		}
	}
	return shareWork(ctx, c, q, msg)
}

// shareWork sends rank 0's measured work of q blocks (msg, a little-endian
// uint64 per block) to every rank.
func shareWork(ctx context.Context, c comm.Comm, q int, msg []byte) ([]int64, error) {
	msg, err := c.Bcast(ctx, "driver.place", 0, msg)
	if err != nil {
		return nil, fmt.Errorf("sending the placement's pilot work: %w", err)
	}
	if len(msg) != 8*q {
		return nil, fmt.Errorf("pilot work of %d bytes for %d blocks", len(msg), q)
	}
	work := make([]int64, q)
	for k := range work {
		work[k] = int64(binary.LittleEndian.Uint64(msg[8*k:]))
	}
	return work, nil
}

// blockFixedWork is a block's fixed cost over the searches of run, in
// entries read: per level, blockWordCost per word of grid's block row and
// column bitmaps (the same for every block of the grid).
func blockFixedWork(run *results.Graph500Run, grid partition.Grid) int64 {
	var levels int64
	for _, s := range run.Searches {
		levels += int64(max(0, len(s.Levels)-1)) // level 0 is the root's, no exchange
	}
	words := (grid.RowSpan()+63)/64 + (grid.ColSpan()+63)/64
	return blockWordCost * levels * int64(words)
}

// blockEdgeChunk is the number of tuples blockEdges generates at a time.
const blockEdgeChunk = 1 << 16

// blockEdges counts, over all ranks, the adjacency entries of every block
// of grid in the ranks' shares of the tuples: each tuple {u, v} with u ≠ v
// is entry (u, v) of block (RowOf(u), ColOf(v)) and entry (v, u) of block
// (RowOf(v), ColOf(u)). Duplicate tuples count each time (kernel 1 keeps
// one): a load estimate. It is a collective.
func blockEdges(ctx context.Context, c comm.Comm, share graph.TupleSource, grid partition.Grid) ([]int64, error) {
	counts := make([]int64, grid.P())
	buf := make([]graph.Edge, min(blockEdgeChunk, share.Len()))
	for first := int64(0); first < share.Len(); first += int64(len(buf)) {
		chunk := buf[:min(int64(len(buf)), share.Len()-first)]
		if err := share.Read(ctx, first, chunk); err != nil {
			return nil, fmt.Errorf("counting the blocks' edges: %w", err)
		}
		for _, e := range chunk {
			if e.U == e.V {
				continue
			}
			counts[grid.RowOf(e.U)*grid.C+grid.ColOf(e.V)]++
			counts[grid.RowOf(e.V)*grid.C+grid.ColOf(e.U)]++
		}
	}
	if err := c.AllreduceInt64(ctx, "driver.place", counts, comm.Sum); err != nil {
		return nil, fmt.Errorf("counting the blocks' edges: %w", err)
	}
	return counts, nil
}
