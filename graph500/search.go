package graph500

// Kernel 2 on a built graph: the search keys, the untimed warm-up, the
// timed searches with their validation, and the statistics rank 0
// reports, as the Graph500 spec's procedure has them.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv/bfs"
)

// searchGraph runs the searches of a built graph: the key sampling (or
// cfg.Root, a vertex of the built graph), the untimed warm-up, the timed
// searches with their validation, and the gathering of the report, whose
// input fields rank 0 passes in head (nil elsewhere).
func searchGraph(ctx context.Context, c comm.Comm, cfg Config, b *builtGraph, head *results.Graph500Run) (*results.Graph500Run, error) {
	k1, err := kernel1Traffic(ctx, c)
	if err != nil {
		return nil, err
	}
	// Kernel 1's round buffers are garbage now: return them to the
	// operating system before the searches allocate theirs (untimed), so
	// that the two phases' memory does not stack.
	memstat.Release()
	owned := ownedOf(b.g, b.blocks)
	if err := checkTupleCount(ctx, c, owned, b.tuples, b.directed); err != nil {
		return nil, err
	}
	if b.ids == nil {
		// A generated graph: kernel 0 ran within kernel 1, whose end
		// gives its time (a file's loading was reported as it ended).
		cfg.end(c, StageGenerate, b.times.generation)
	}
	cfg.end(c, StageConstruct, b.times.construction)
	roots, err := searchKeys(ctx, c, cfg, b, owned)
	if err != nil {
		return nil, err
	}
	var engine searcher
	if b.directed {
		engine, err = bfs.NewDirected(c, b.g, b.part)
	} else {
		engine, err = newSearcher(ctx, c, b.g, b.blocks, b.part, bfs.Config{Exchange: cfg.Exchange, Direction: cfg.Direction, Codec: cfg.Codec, Threads: cfg.Threads, Order: b.order})
	}
	if err != nil {
		return nil, err
	}
	// Untimed warm-up.
	if _, err := engine.Run(ctx, b.newID(roots[0])); err != nil {
		return nil, err
	}
	var val validator
	var valSetup float64
	if cfg.Validate && b.directed {
		val = &directedValidator{c: c, g: b.g, part: b.part}
	} else if cfg.Validate {
		if val, valSetup, err = newValidator(ctx, c, b.g, b.blocks, b.part, engine, cfg.Threads); err != nil {
			return nil, err
		}
		defer val.Release()
	}
	if head != nil {
		head.NumRanks, head.Threads = c.Size(), cfg.Threads
		head.Exchange, head.Direction, head.Codec = cfg.Exchange.String(), engine.Config().Direction.String(), engine.Config().Codec
		head.GenerationTime, head.ConstructionTime = b.times.generation, b.times.construction
		head.ValidationSkipped = !cfg.Validate
		head.Partition, head.ValidationSetupTime = "1d", valSetup
		head.ConstructionBytes, head.ConstructionMessages = k1[0], k1[1]
		if cfg.Partition2D {
			head.Partition, head.Grid = "2d", b.grid.String()
		}
	}
	if b.g != nil {
		if err := reportAdjacency(ctx, c, b.g, head); err != nil {
			return nil, err
		}
	}
	s := &timedSearches{c: c, cfg: &cfg, b: b, owned: owned, bfs: engine, val: val, run: head, keys: len(roots)}
	invalid := false
	for i, key := range roots {
		cfg.start(c, StageSearch, i, len(roots))
		if invalid, err = s.search(ctx, i, key); err != nil || invalid {
			if err != nil {
				return nil, err
			}
			break // as the reference does: the run is invalid, skip the rest
		}
	}
	if b.weights != nil && !invalid {
		// Kernel 3 holds the graph, its weights and its own state alone:
		// the BFS's engine and validator are garbage from here on.
		if val != nil {
			val.Release()
		}
		engine, val, s.bfs, s.val = nil, nil, nil, nil
		if err := runSSSP(ctx, c, &cfg, b, owned, b.weights, roots, head); err != nil {
			return nil, err
		}
	}
	return s.finish(ctx)
}

// reportAdjacency sets, on rank 0 (head not nil), the layout of the 1D
// rows and their bytes per stored entry over all ranks.
func reportAdjacency(ctx context.Context, c comm.Comm, g *graph.CSR, head *results.Graph500Run) error {
	v := []int64{int64(len(g.Packed)) + 4*int64(len(g.Cols32)) + 8*int64(len(g.Cols64)), g.NumEdges()}
	if err := c.AllreduceInt64(ctx, "driver.gather", v, comm.Sum); err != nil {
		return err
	}
	if head != nil {
		head.Adjacency = "plain"
		if g.Packed != nil {
			head.Adjacency = "compressed"
		}
		if v[1] > 0 {
			head.AdjacencyBytesPerArc = float64(v[0]) / float64(v[1])
		}
	}
	return nil
}

// kernel1Traffic is kernel 1's bytes and messages, summed over the ranks.
func kernel1Traffic(ctx context.Context, c comm.Comm) ([]int64, error) {
	k1 := []int64{0, 0}
	for _, phase := range []string{graph.RoutePhaseCount, graph.RoutePhaseFill, graph.DegreePhase2D} {
		pc := c.Stats().Phase(phase)
		k1[0] += pc.BytesSent
		k1[1] += pc.Messages
	}
	if err := c.AllreduceInt64(ctx, "driver.gather", k1, comm.Sum); err != nil {
		return nil, err
	}
	return k1, nil
}

// searchKeys returns the run's search keys, in the generator's (or the
// file's dense) ids: cfg.Root alone, or the keys sampled as the Graph500
// spec samples them, with a warning when fewer vertices than cfg.NumRoots
// can be keys.
func searchKeys(ctx context.Context, c comm.Comm, cfg Config, b *builtGraph, owned ownedVertices) ([]int64, error) {
	if cfg.Root >= 0 {
		if cfg.Root >= b.part.N {
			return nil, fmt.Errorf("root %d out of range [0, %d)", cfg.Root, b.part.N)
		}
		if err := checkRootDegree(ctx, c, cfg, b.part, owned, b.newID(cfg.Root), b.ids.fileID(cfg.Root)); err != nil {
			return nil, err
		}
		return []int64{cfg.Root}, nil
	}
	roots, err := SampleRoots(ctx, c, b.part, owned.degree, cfg.Graph.Seed, cfg.NumRoots, b.order)
	if err != nil {
		return nil, err
	}
	if len(roots) == 0 {
		// The input's fault (only self-loops, say): a usage error.
		return nil, &InputError{Err: errors.New("the graph has no vertex of degree ≥ 1 to search from")}
	}
	if len(roots) < cfg.NumRoots {
		cfg.warn(c, "only %d vertices have degree ≥ 1 (not counting self-loops): running %d searches instead of %d",
			len(roots), len(roots), cfg.NumRoots)
	}
	return roots, nil
}

// timedSearches are the timed searches of a run and what they add up to:
// the report (on rank 0; nil elsewhere) and this rank's traffic and work.
type timedSearches struct {
	c     comm.Comm
	cfg   *Config
	b     *builtGraph
	owned ownedVertices
	bfs   searcher
	val   validator // nil without validation
	run   *results.Graph500Run
	keys  int // the number of searches

	commBytes, commMessages int64
	searchSent              comm.PhaseCounters // this rank's traffic in the timed searches
	validateSent            comm.PhaseCounters // and in their validation
	work                    searchWork         // and its traversal work in them
}

// search runs, times and validates search i from key, and adds it to the
// report. It reports whether the search was invalid, which ends the run.
func (s *timedSearches) search(ctx context.Context, i int, key int64) (invalid bool, err error) {
	c, cfg, b := s.c, s.cfg, s.b
	root := b.newID(key)
	s.bfs.Prepare()
	if err := c.Barrier(ctx, "driver.sync"); err != nil {
		return false, err
	}
	before, netBefore := c.Stats().Total(), networkTotal(c)
	cpu := cfg.startCPUClock()
	t0 := time.Now()
	res, err := s.bfs.Run(ctx, root)
	if err != nil {
		return false, fmt.Errorf("search %d from %d: %w", i, key, err)
	}
	elapsed := time.Since(t0).Seconds()
	spent := c.Stats().Total().Sub(before)
	s.searchSent.Add(networkTotal(c).Sub(netBefore))
	used := cpu.since()
	s.work.add(res, used)
	if cfg.blockBusy != nil {
		cfg.blockBusy.record(i, res, used)
	}
	search, err := gatherSearch(ctx, c, s.owned.tupleDegree, b.directed, res, elapsed, spent)
	if err != nil {
		return false, fmt.Errorf("search %d from %d: %w", i, key, err)
	}
	search.s.Root = key
	s.commBytes += search.bytes
	s.commMessages += search.messages
	if cfg.Tree != nil && i == 0 && !cfg.SSSP {
		if err := sendTree(ctx, c, b.part, res, b.ids, b.order, cfg.Tree); err != nil {
			return false, err
		}
	}
	search.s.ValidateTime = -1
	if cfg.Validate {
		if invalid, err = s.validate(ctx, i, key, res, &search.s); err != nil {
			return false, err
		}
	}
	if s.run != nil {
		s.run.Searches = append(s.run.Searches, search.s)
	}
	done := search.s
	cfg.report(c, Event{Stage: StageSearch, Step: i, Steps: s.keys, End: true, Seconds: done.Time, Search: &done})
	return invalid, nil
}

// validate validates search i from key, whose result is res, and records
// the validation's time, traffic and verdict in search. It reports whether
// the search was invalid (warned about, not an error).
func (s *timedSearches) validate(ctx context.Context, i int, key int64, res *bfs.Result, search *results.Search) (bool, error) {
	c, cfg := s.c, s.cfg
	cfg.start(c, StageValidate, i, s.keys)
	before, netBefore := c.Stats().Total(), networkTotal(c)
	t0 := time.Now()
	_, verr := s.val.Validate(ctx, s.b.newID(key), res.Parent, res.Level, search.NEdge)
	var invalid *bfs.ValidationError
	if verr != nil && !errors.As(verr, &invalid) {
		return false, fmt.Errorf("validating search %d from %d: %w", i, key, verr)
	}
	elapsed := time.Since(t0).Seconds()
	spent := c.Stats().Total().Sub(before)
	s.validateSent.Add(networkTotal(c).Sub(netBefore))
	vt, err := maxOverRanks(ctx, c, "driver.sync", elapsed)
	if err != nil {
		return false, err
	}
	if search.ValidateBytes, search.ValidateMessages, err = sumOverRanks(ctx, c, spent); err != nil {
		return false, err
	}
	search.ValidateTime = vt
	search.Validated = invalid == nil
	if invalid != nil {
		cfg.warn(c, "%v", invalid)
	}
	return invalid != nil, nil
}

// finish gathers every rank's load and, on rank 0, completes the report
// with the searches' totals.
func (s *timedSearches) finish(ctx context.Context) (*results.Graph500Run, error) {
	loads, err := gatherLoads(ctx, s.c, s.b.g, s.b.blocks, s.searchSent, s.validateSent, s.work)
	if err != nil {
		return nil, err
	}
	run := s.run
	if run != nil {
		run.CommBytes, run.CommMessages = s.commBytes, s.commMessages
		run.RankLoads = loads
		peaks, keys := make([]int64, len(loads)), make([]int64, len(loads))
		for i, l := range loads {
			run.PeakMemoryBytes = max(run.PeakMemoryBytes, l.PeakMemoryBytes)
			peaks[i], keys[i] = l.PeakMemoryBytes, l.ProcessKey
		}
		run.JobPeakMemoryBytes, run.Processes = memstat.JobPeak(peaks, keys)
		for _, s := range run.Searches {
			run.ValidateBytes += s.ValidateBytes
			run.ValidateMessages += s.ValidateMessages
		}
	}
	return run, nil
}

type gatheredSearch struct {
	s               results.Search
	bytes, messages int64
}

// gatherSearch turns one rank's view of a search into the run's: the time is
// the slowest rank's, bytes and messages are summed over ranks, per level too.
func gatherSearch(ctx context.Context, c comm.Comm, tupleDegree []uint32, directed bool, res *bfs.Result, elapsed float64, spent comm.PhaseCounters) (gatheredSearch, error) {
	var out gatheredSearch
	nedgeOf := bfs.ComponentEdges
	if directed {
		nedgeOf = bfs.DirectedEdges
	}
	nedge, err := nedgeOf(ctx, c, tupleDegree, res.Parent)
	if err != nil {
		return out, err
	}
	steps := res.Steps
	// One allreduce for every level's byte counts plus the totals, one for
	// the times (the slowest rank's, per breakdown component).
	const perLevelInts, perLevelFloats = 4, 5
	ints := make([]int64, 0, perLevelInts*len(steps)+2)
	floats := make([]float64, 0, perLevelFloats*len(steps)+1)
	for _, s := range steps {
		ints = append(ints, s.BytesSent, s.Messages, s.RawBytes, s.EncodedBytes)
		floats = append(floats, (s.Traverse + s.Reduce + s.Communicate + s.Compress).Seconds(),
			s.Traverse.Seconds(), s.Reduce.Seconds(), s.Communicate.Seconds(), s.Compress.Seconds())
	}
	ints = append(ints, spent.BytesSent, spent.Messages)
	floats = append(floats, elapsed)
	if err := c.AllreduceInt64(ctx, "driver.gather", ints, comm.Sum); err != nil {
		return out, err
	}
	if err := c.AllreduceFloat64(ctx, "driver.gather", floats, comm.Max); err != nil {
		return out, err
	}
	out.s = results.Search{Root: res.Root, Time: floats[len(floats)-1], NEdge: nedge}
	for i, s := range steps {
		li, lf := ints[perLevelInts*i:], floats[perLevelFloats*i:]
		lv := results.Level{Level: s.Level, Frontier: s.Frontier, Codec: s.Codec,
			Bytes: li[0], Messages: li[1], RawBytes: li[2], EncodedBytes: li[3],
			Time: lf[0], Traverse: lf[1], Reduce: lf[2], Communicate: lf[3], Compress: lf[4]}
		if i > 0 {
			lv.Direction = s.Direction.String()
		}
		out.s.Levels = append(out.s.Levels, lv)
	}
	out.bytes, out.messages = ints[len(ints)-2], ints[len(ints)-1]
	out.s.Time = max(out.s.Time, 1e-9) // the clock's resolution: never divide by zero
	return out, nil
}
