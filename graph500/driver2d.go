package graph500

// The driver's 2D additions (2D partitioning, which Lv et al. §VIII–IX
// name as the step after compression and sieve): the process grid of a run, the engine
// that searches it, and the per-rank loads every run reports.

import (
	"context"
	"fmt"
	"github.com/graphrun/graphrun/internal/cpustat"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv/bfs"
)

// grid returns the run's 2D grid of n vertices over p ranks: the process
// grid, or with BlocksPerRank > 1 the block grid of p·BlocksPerRank blocks.
func (cfg *Config) grid(n int64, p int) (partition.Grid, error) {
	if err := cfg.checkGrid(p); err != nil {
		return partition.Grid{}, err
	}
	r, c := cfg.GridRows, cfg.GridCols
	if r == 0 {
		r, c, _ = partition.AutoGrid(p * max(1, cfg.BlocksPerRank))
	}
	return partition.NewGrid(n, r, c)
}

// searcher is a BFS engine of either partition.
type searcher interface {
	Prepare()
	Run(ctx context.Context, root int64) (*bfs.Result, error)
	Config() bfs.Config
}

// newSearcher returns the 2D engine over blocks when they are given, else
// the 1D engine over g.
func newSearcher(ctx context.Context, c comm.Comm, g *graph.CSR, blocks *graph.Block2D, part partition.Block1D, cfg bfs.Config) (searcher, error) {
	if blocks != nil {
		return bfs.New2D(ctx, c, blocks, cfg)
	}
	return bfs.New(c, g, part, cfg)
}

// ownedVertices is what the driver reads of the rank's own vertices, from
// the 1D CSR or the 2D block (both own the same vertices): their degrees
// for key sampling, their tuple counts for nedge and kernel 1's check.
type ownedVertices struct {
	degree      func(l uint32) int64
	tupleDegree []uint32
	selfLoops   int64
}

// ownedOf returns the owned vertices of blocks when it is not nil, else of g.
func ownedOf(g *graph.CSR, blocks *graph.Block2D) ownedVertices {
	if blocks != nil {
		return ownedVertices{
			degree:      func(l uint32) int64 { return int64(blocks.Degree[l]) },
			tupleDegree: blocks.TupleDegree, selfLoops: blocks.SelfLoops,
		}
	}
	return ownedVertices{degree: g.Degree, tupleDegree: g.TupleDegree, selfLoops: g.SelfLoops}
}

// validator checks the searches' results: bfs.Validator over the 1D rows,
// or bfs.Validator2D over the 2D blocks.
type validator interface {
	Validate(ctx context.Context, root int64, parent []int64, level []int32, claimedNEdge int64) (int64, error)
	Release()
}

// newValidator prepares the run's validator over the blocks when they are
// given, else over g, sharing the engine's directories (and 2D groups) when
// it has them, and returns it with its set-up time (the slowest rank's).
func newValidator(ctx context.Context, c comm.Comm, g *graph.CSR, blocks *graph.Block2D, part partition.Block1D, engine searcher, threads int) (validator, float64, error) {
	if err := c.Barrier(ctx, "driver.sync"); err != nil {
		return nil, 0, err
	}
	t0 := time.Now()
	var v validator
	var err error
	if blocks != nil {
		vcfg := bfs.Validator2DConfig{Threads: threads}
		vcfg.Share, _ = engine.(*bfs.BFS2D)
		v, err = bfs.NewValidator2D(ctx, c, blocks, vcfg)
	} else {
		vcfg := bfs.ValidatorConfig{Threads: threads}
		vcfg.Share, _ = engine.(*bfs.BFS)
		v, err = bfs.NewValidator(ctx, c, g, part, vcfg)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("preparing the validator: %w", err)
	}
	setup, err := maxOverRanks(ctx, c, "driver.sync", time.Since(t0).Seconds())
	if err != nil {
		return nil, 0, err
	}
	return v, setup, nil
}

// sumOverRanks returns the bytes and messages all ranks sent in spent.
func sumOverRanks(ctx context.Context, c comm.Comm, spent comm.PhaseCounters) (bytes, messages int64, err error) {
	v := []int64{spent.BytesSent, spent.Messages}
	if err := c.AllreduceInt64(ctx, "driver.gather", v, comm.Sum); err != nil {
		return 0, 0, err
	}
	return v[0], v[1], nil
}

// networkCounter is a Comm that also counts, apart, the traffic that
// crossed the network: the block-ranks of an over-decomposed run, whose
// peers may be on the same process.
type networkCounter interface{ NetworkStats() *comm.Stats }

// networkTotal is c's network traffic so far: what a rank's load reports.
func networkTotal(c comm.Comm) comm.PhaseCounters {
	if n, ok := c.(networkCounter); ok {
		return n.NetworkStats().Total()
	}
	return c.Stats().Total()
}

// searchWork is a rank's traversal work over the timed searches
// (bfs.Result.Work).
type searchWork struct {
	busy    time.Duration
	scanned int64
	cpu     time.Duration // the process's CPU time in the searches (cpuClock)
}

func (w *searchWork) add(res *bfs.Result, cpu time.Duration) {
	b, s := res.Work()
	w.busy += b
	w.scanned += s
	w.cpu += cpu
}

// cpuClock measures the process's CPU time over one search, from when it
// is started (Config.startCPUClock) to since; it measures nothing (since is 0)
// when the in-process ranks share the process or the system does not say.
type cpuClock struct {
	start time.Duration
	ok    bool
}

func (cfg *Config) startCPUClock() cpuClock {
	if cfg.sharedProcess {
		return cpuClock{}
	}
	t, err := cpustat.Process()
	return cpuClock{start: t, ok: err == nil}
}

func (c cpuClock) since() time.Duration {
	if !c.ok {
		return 0
	}
	t, err := cpustat.Process()
	if err != nil {
		return 0
	}
	return t - c.start
}

// gatherLoads returns, on rank 0, every rank's load: the entries and bytes
// of the structure it searched, what it sent over the network in the timed
// searches and validating them (networkTotal), the peak memory of its process, and its busy
// time, edges scanned and CPU time in the searches.
func gatherLoads(ctx context.Context, c comm.Comm, g *graph.CSR, blocks *graph.Block2D, sent, validated comm.PhaseCounters, work searchWork) ([]results.RankLoad, error) {
	const fields = 12
	vals := make([]int64, fields*c.Size())
	mine := vals[fields*c.Rank():]
	if blocks != nil {
		mine[0], mine[1] = blocks.NumEdges(), blocks.Bytes()
	} else {
		mine[0], mine[1] = g.NumEdges(), g.Bytes()
	}
	mine[2], mine[3] = sent.BytesSent, sent.Messages
	mine[4], mine[5] = validated.BytesSent, validated.Messages
	if peak, err := memstat.PeakRSS(); err == nil {
		mine[6] = peak // the process's peak so far: the searches and their validation included
	}
	mine[11] = memstat.ProcessKey()
	mine[7], mine[8], mine[10] = int64(work.busy), work.scanned, int64(work.cpu)
	if blocks != nil {
		mine[9] = 1
	}
	if err := c.AllreduceInt64(ctx, "driver.gather", vals, comm.Sum); err != nil {
		return nil, fmt.Errorf("gathering the rank loads: %w", err)
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	loads := make([]results.RankLoad, c.Size())
	for r := range loads {
		v := vals[fields*r:]
		loads[r] = results.RankLoad{Edges: v[0], MemoryBytes: v[1], BytesSent: v[2], Messages: v[3],
			ValidateBytes: v[4], ValidateMessages: v[5], PeakMemoryBytes: v[6],
			BusySeconds: time.Duration(v[7]).Seconds(), EdgesScanned: v[8], Blocks: int(v[9]),
			CPUSeconds: time.Duration(v[10]).Seconds(), ProcessKey: v[11]}
	}
	return loads, nil
}
