package graph500

// The driver's 2D additions (paper 004 §VIII–IX: 2D partitioning as the
// step after compression and sieve): the process grid of a run, the engine
// that searches it, and the per-rank loads every run reports.

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv"
)

// checkGrid reports a grid that cannot hold ranks ranks.
func (cfg *Config) checkGrid(ranks int) error {
	switch {
	case !cfg.Partition2D && (cfg.GridRows != 0 || cfg.GridCols != 0):
		return fmt.Errorf("a %dx%d grid needs the 2D partition", cfg.GridRows, cfg.GridCols)
	case cfg.GridRows < 0 || cfg.GridCols < 0 || (cfg.GridRows == 0) != (cfg.GridCols == 0):
		return fmt.Errorf("grid %dx%d: give both sides, or neither for the automatic grid", cfg.GridRows, cfg.GridCols)
	case cfg.GridRows*cfg.GridCols != 0 && cfg.GridRows*cfg.GridCols != ranks:
		return fmt.Errorf("grid %dx%d has %d ranks, the job has %d", cfg.GridRows, cfg.GridCols, cfg.GridRows*cfg.GridCols, ranks)
	}
	return nil
}

// grid returns the run's 2D grid of n vertices over p ranks.
func (cfg *Config) grid(n int64, p int) (partition.Grid, error) {
	if err := cfg.checkGrid(p); err != nil {
		return partition.Grid{}, err
	}
	r, c := cfg.GridRows, cfg.GridCols
	if r == 0 {
		r, c, _ = partition.AutoGrid(p)
	}
	return partition.NewGrid(n, r, c)
}

// searcher is a BFS engine of either partition.
type searcher interface {
	Prepare()
	Run(ctx context.Context, root int64) (*spmv.Result, error)
	Config() spmv.BFSConfig
}

// newSearcher returns the 2D engine over blocks when they are given, else
// the 1D engine over g.
func newSearcher(ctx context.Context, c comm.Comm, g *graph.CSR, blocks *graph.Block2D, part partition.Block1D, cfg spmv.BFSConfig) (searcher, error) {
	if blocks != nil {
		return spmv.NewBFS2D(ctx, c, blocks, cfg)
	}
	return spmv.NewBFS(c, g, part, cfg)
}

// csrBytes is the memory of a 1D CSR: offsets, columns and tuple degrees.
func csrBytes(g *graph.CSR) int64 {
	return 8*int64(len(g.Offsets)+len(g.Cols64)) + 4*int64(len(g.Cols32)+len(g.TupleDegree))
}

// gatherLoads returns, on rank 0, every rank's load: the entries and bytes
// of the structure it searched and what it sent in the timed searches.
func gatherLoads(ctx context.Context, c comm.Comm, g *graph.CSR, blocks *graph.Block2D, sent comm.PhaseCounters) ([]results.RankLoad, error) {
	const fields = 5
	vals := make([]int64, fields*c.Size())
	mine := vals[fields*c.Rank():]
	if blocks != nil {
		mine[0], mine[1] = blocks.NumEdges(), blocks.Bytes()
	} else {
		mine[0], mine[1] = g.NumEdges(), csrBytes(g)
	}
	mine[2], mine[3] = sent.BytesSent, sent.Messages
	if peak, err := memstat.PeakRSS(); err == nil {
		mine[4] = peak // the process's peak so far: the searches and their validation included
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
		loads[r] = results.RankLoad{Edges: v[0], MemoryBytes: v[1], BytesSent: v[2], Messages: v[3], PeakMemoryBytes: v[4]}
	}
	return loads, nil
}
