package graph500

// Kernel 3 of a Graph500 run (Graph500 spec, "Kernel 3 – Single-Source
// Shortest Paths"): after the BFS searches, the same graph is given the
// generator's edge weights and searched from the same keys by Δ-stepping
// (package spmv/sssp), with one untimed warm-up, each search timed from
// its start until the distances and parents are in memory and validated,
// as the reference's bfs_sssp binary does. The searches' TEPS count the
// same input tuples of the component as the BFS's (ComponentEdges of the
// tree).

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv/bfs"
	"github.com/graphrun/graphrun/spmv/sssp"
)

// checkSSSP checks the kernel 3 fields of a run: Delta is a bucket width,
// and the searches run on the 1D partition or on one 2D block per rank.
func (cfg *Config) checkSSSP() error {
	switch {
	case !(cfg.Delta >= 0) || math.IsInf(cfg.Delta, 1):
		return fielderr.New("Delta", "%v is not a finite number ≥ 0", cfg.Delta)
	case cfg.Delta != 0 && !cfg.SSSP:
		return fielderr.New("Delta", "is the bucket width of the shortest path searches, which this run does not make")
	case cfg.SSSP && cfg.BlocksPerRank > 1:
		return fielderr.New("BlocksPerRank", "%d blocks per rank: the shortest path searches run one block per rank", cfg.BlocksPerRank)
	}
	return nil
}

// ssspEngine is kernel 3's engine on either partition.
type ssspEngine interface {
	Prepare()
	Run(ctx context.Context, root int64) (*sssp.Result, error)
	Delta() float64
}

// ssspValidator validates kernel 3's results on either partition.
type ssspValidator interface {
	Validate(ctx context.Context, root int64, dist []float32, parent []int64) error
}

// ssspRun is kernel 3 on the ranks: the engine, its validator and the
// report rank 0 fills.
type ssspRun struct {
	c     comm.Comm
	cfg   *Config
	b     *builtGraph
	owned ownedVertices
	eng   ssspEngine
	val   ssspValidator // nil without validation
	run   *results.SSSPRun
	keys  int // the number of searches
}

// newSSSP weighs the built graph's edges with src's weights and returns
// kernel 3's engine and, with validation, its validator: over the 2D block
// when the run has one, else over the 1D rows. Either engine orders the
// graph's adjacency by weight in place: from here on it serves kernel 3
// alone.
func newSSSP(ctx context.Context, c comm.Comm, cfg *Config, b *builtGraph, src graph.WeightSource) (ssspEngine, ssspValidator, error) {
	// Requests travel compact when the frontiers do (a codec other than
	// raw: where bytes cost, as BFS's compact top-down records).
	scfg := sssp.Config{Delta: cfg.Delta, Threads: cfg.Threads, Compact: cfg.Codec != "" && cfg.Codec != "raw"}
	if b.blocks != nil {
		w, err := graph.BuildWeights2D(ctx, c, b.blocks, src, cfg.Threads)
		if err != nil {
			return nil, nil, fmt.Errorf("kernel 3 weights: %w", err)
		}
		eng, err := sssp.New2D(ctx, c, b.blocks, w, scfg)
		if err != nil || !cfg.Validate {
			return eng, nil, err
		}
		val, err := sssp.NewValidator2D(c, b.blocks, w, cfg.Threads)
		return eng, val, err
	}
	w, err := graph.BuildWeights(ctx, c, b.part, b.g, src, cfg.Threads)
	if err != nil {
		return nil, nil, fmt.Errorf("kernel 3 weights: %w", err)
	}
	eng, err := sssp.New(ctx, c, b.g, w, b.part, scfg)
	if err != nil || !cfg.Validate {
		return eng, nil, err
	}
	val, err := sssp.NewValidator(ctx, c, b.g, w, b.part, cfg.Threads)
	return eng, val, err
}

// runSSSP weighs the built graph's edges with src's weights, runs the
// shortest path searches from keys and, on rank 0, adds them to head.
func runSSSP(ctx context.Context, c comm.Comm, cfg *Config, b *builtGraph, owned ownedVertices, src graph.WeightSource, keys []int64, head *results.Graph500Run) error {
	if err := c.Barrier(ctx, "driver.sync"); err != nil {
		return err
	}
	t0 := time.Now()
	eng, val, err := newSSSP(ctx, c, cfg, b, src)
	if err != nil {
		return err
	}
	// The weights' round buffers are garbage: return them before the
	// searches (untimed).
	memstat.Release()
	wt, err := maxOverRanks(ctx, c, "driver.sync", time.Since(t0).Seconds())
	if err != nil {
		return err
	}
	s := &ssspRun{c: c, cfg: cfg, b: b, owned: owned, eng: eng, val: val, run: &results.SSSPRun{Delta: eng.Delta(), WeightTime: wt}, keys: len(keys)}
	// Untimed warm-up.
	if _, err := eng.Run(ctx, keys[0]); err != nil {
		return err
	}
	for i, key := range keys {
		cfg.start(c, StageSSSP, i, len(keys))
		if stop, err := s.search(ctx, i, key); err != nil || stop {
			if err != nil {
				return err
			}
			break // as the reference does: the run is invalid, skip the rest
		}
	}
	if head != nil {
		head.SSSP = s.run
	}
	return nil
}

// search runs, times and validates search i from key. It reports whether
// the search was invalid, which ends the run.
func (s *ssspRun) search(ctx context.Context, i int, key int64) (invalid bool, err error) {
	c := s.c
	s.eng.Prepare()
	if err := c.Barrier(ctx, "driver.sync"); err != nil {
		return false, err
	}
	before := c.Stats().Total()
	t0 := time.Now()
	res, err := s.eng.Run(ctx, key)
	if err != nil {
		return false, fmt.Errorf("sssp %d from %d: %w", i, key, err)
	}
	elapsed := time.Since(t0).Seconds()
	spent := c.Stats().Total().Sub(before)
	t, err := maxOverRanks(ctx, c, "driver.gather", elapsed)
	if err != nil {
		return false, err
	}
	sums := []int64{spent.BytesSent, spent.Messages, res.Stats.Requests}
	if err := c.AllreduceInt64(ctx, "driver.gather", sums, comm.Sum); err != nil {
		return false, err
	}
	nedge, err := bfs.ComponentEdges(ctx, c, s.owned.tupleDegree, res.Parent)
	if err != nil {
		return false, err
	}
	x := results.SSSPSearch{
		Search:  results.Search{Root: key, Time: max(t, 1e-9), NEdge: nedge, ValidateTime: -1},
		Buckets: res.Stats.Buckets, Phases: res.Stats.Phases, Requests: sums[2],
	}
	s.run.CommBytes += sums[0]
	s.run.CommMessages += sums[1]
	if s.cfg.Tree != nil && i == 0 {
		if err := sendSSSPTree(ctx, c, res, s.b.ids, s.cfg.Tree); err != nil {
			return false, err
		}
	}
	if s.val != nil {
		if invalid, err = s.validate(ctx, i, key, res, &x.Search); err != nil {
			return false, err
		}
	}
	s.run.Searches = append(s.run.Searches, x)
	done := x.Search
	s.cfg.report(c, Event{Stage: StageSSSP, Step: i, Steps: s.keys, End: true, Seconds: done.Time, Search: &done})
	return invalid, nil
}

// validate validates search i and records its time, traffic and verdict.
func (s *ssspRun) validate(ctx context.Context, i int, key int64, res *sssp.Result, x *results.Search) (bool, error) {
	c := s.c
	before := c.Stats().Total()
	t0 := time.Now()
	verr := s.val.Validate(ctx, key, res.Dist, res.Parent)
	if verr != nil && !sssp.IsInvalid(verr) {
		return false, fmt.Errorf("validating sssp %d from %d: %w", i, key, verr)
	}
	vt, err := maxOverRanks(ctx, c, "driver.sync", time.Since(t0).Seconds())
	if err != nil {
		return false, err
	}
	if x.ValidateBytes, x.ValidateMessages, err = sumOverRanks(ctx, c, c.Stats().Total().Sub(before)); err != nil {
		return false, err
	}
	x.ValidateTime, x.Validated = vt, verr == nil
	if verr != nil {
		s.cfg.warn(c, "%v", verr)
	}
	return verr != nil, nil
}
