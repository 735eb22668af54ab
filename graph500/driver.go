// Package graph500 is the Graph500 BFS benchmark driver: it runs, on every
// rank, generation of the Kronecker tuples, kernel 1 (the partitioned CSR),
// the sampling of the search keys, an untimed warm-up search, the timed
// searches with their validation, and gathers what results/ reports.
//
// It follows the Graph500 specification's procedure (also paper 004 §VII-A/B):
// 64 unique search keys of degree ≥ 1 not counting self-loops, each search
// timed from its start until the parents are in memory, TEPS = nedge/time with
// nedge the input tuples inside the searched component.
//
// The driver is SPMD code like every kernel: RunRank is what one rank runs;
// Run starts the ranks in-process. RunFileRank and RunFile (file.go) run
// the same procedure on the undirected view of a user's edge list, read
// and relabelled as graph.Input and graph.RelabelShare do, with the
// file's ids in the roots and the tree. It holds no algorithm of its own: the
// generator is gen/kronecker, kernel 1 graph.BuildUndirected, the search and
// the validator spmv.
//
// The sources cited here (paper 000 to paper 004 and the other keys) are
// listed in full in REFERENCES.md at the repository root.
package graph500

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv"
)

// DefaultRoots is the number of search keys of a Graph500 run.
const DefaultRoots = 64

// Config is one benchmark run.
type Config struct {
	Graph    kronecker.Params
	Ranks    int // in-process ranks for Run (RunRank takes the size from its Comm)
	Threads  int // goroutines per rank for generation, kernel 1 and traversal
	NumRoots int // searches to run (DefaultRoots); ignored when Root ≥ 0
	// Root, when ≥ 0, replaces the sampled keys by one search from this vertex
	// (any vertex, even an isolated one).
	Root      int64
	Validate  bool
	Exchange  spmv.Exchange
	Direction spmv.Direction
	Codec     string // frontier codec name (frontier.New); "" is raw
	// Partition2D runs the searches on the 2D grid partition (spmv.BFS2D)
	// instead of the 1D row blocks. GridRows×GridCols is the process grid;
	// 0×0 means partition.AutoGrid.
	Partition2D        bool
	GridRows, GridCols int
	// BlocksPerRank > 1 (2D only) cuts the matrix into BlocksPerRank blocks
	// per rank, GridRows×GridCols being then the block grid, and places
	// them on the ranks by Placement (see runBlocks).
	BlocksPerRank int
	Placement     Placement
	// Unfused runs LSHS's blocks one by one (comm/multiplex) even when its
	// layout could run fused, one block per rank of the renumbered graph
	// (fused.go), as it otherwise does.
	Unfused   bool
	blockBusy *blockBusy // set by runBlocks on its block-ranks' configs
	// sharedProcess is set by Run and RunFile when several in-process ranks
	// share this process: its CPU time is then no rank's own, and the
	// report leaves the ranks' cpu_seconds out.
	sharedProcess bool

	// Progress, if not nil, is called on rank 0 as the run advances: stage is
	// "generate", "construct", "search" or "validate"; done of total.
	Progress func(stage string, done, total int)
	// Warn, if not nil, receives warnings on rank 0.
	Warn func(msg string)
	// Tree, if not nil, receives on rank 0, after the first timed search, the
	// lines "vertex parent level" of every vertex, in vertex order, one
	// chunk per rank.
	Tree func(chunk []byte) error
}

func (cfg *Config) progress(c comm.Comm, stage string, done, total int) {
	if cfg.Progress != nil && c.Rank() == 0 {
		cfg.Progress(stage, done, total)
	}
}

func (cfg *Config) warn(c comm.Comm, format string, args ...any) {
	if cfg.Warn != nil && c.Rank() == 0 {
		cfg.Warn(fmt.Sprintf(format, args...))
	}
}

// Check reports the first invalid field of cfg.
func (cfg *Config) Check() error {
	if err := cfg.Graph.Validate(); err != nil {
		return err
	}
	if cfg.Ranks < 1 {
		return fmt.Errorf("ranks %d < 1", cfg.Ranks)
	}
	if cfg.Threads < 1 {
		return fmt.Errorf("threads %d < 1", cfg.Threads)
	}
	if cfg.Root < 0 && cfg.NumRoots < 1 {
		return fmt.Errorf("roots %d < 1", cfg.NumRoots)
	}
	if cfg.Root >= cfg.Graph.NumVertices() {
		return fmt.Errorf("root %d out of range [0, %d)", cfg.Root, cfg.Graph.NumVertices())
	}
	return cfg.checkGrid(cfg.Ranks)
}

// Run runs the benchmark on cfg.Ranks in-process ranks and returns rank 0's
// report. A failed validation is not an error: the report says so.
func Run(ctx context.Context, cfg Config) (*results.Graph500Run, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cfg.sharedProcess = cfg.Ranks > 1
	return runInProcess(ctx, cfg.Ranks, func(ctx context.Context, c comm.Comm) (*results.Graph500Run, error) {
		return RunRank(ctx, c, cfg)
	})
}

// runInProcess runs rank on ranks in-process ranks and returns rank 0's
// report.
func runInProcess(ctx context.Context, ranks int, rank func(context.Context, comm.Comm) (*results.Graph500Run, error)) (*results.Graph500Run, error) {
	var run *results.Graph500Run
	err := inproc.Run(ctx, ranks, func(ctx context.Context, c comm.Comm) error {
		r, err := rank(ctx, c)
		if c.Rank() == 0 {
			run = r
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return run, nil
}

// maxOverRanks returns the largest of every rank's value of x.
func maxOverRanks(ctx context.Context, c comm.Comm, phase string, x float64) (float64, error) {
	v := []float64{x}
	err := c.AllreduceFloat64(ctx, phase, v, comm.Max)
	return v[0], err
}

// RunRank is one rank's share of the benchmark. Every rank of c must call it
// with the same cfg. It returns the report on rank 0 and nil elsewhere.
func RunRank(ctx context.Context, c comm.Comm, cfg Config) (*results.Graph500Run, error) {
	if err := cfg.Graph.Validate(); err != nil {
		return nil, err
	}
	if cfg.BlocksPerRank > 1 {
		return runBlocks(ctx, c, cfg)
	}
	rank, size := c.Rank(), c.Size()
	params := cfg.Graph
	part, err := partition.NewBlock1D(params.NumVertices(), size)
	if err != nil {
		return nil, err
	}
	var grid partition.Grid
	if cfg.Partition2D {
		if grid, err = cfg.grid(params.NumVertices(), size); err != nil {
			return nil, err
		}
		part = grid.Part // the same vertex ownership
	}

	// Kernels 0 and 1.
	g, blocks, times, err := buildGraph(ctx, c, cfg, part, grid, params.Share(rank, size, cfg.Threads))
	if err != nil {
		return nil, err
	}
	b := &builtGraph{g: g, blocks: blocks, part: part, grid: grid, times: times, tuples: params.NumEdges()}
	var head *results.Graph500Run
	if rank == 0 {
		head = &results.Graph500Run{Scale: params.Scale, EdgeFactor: params.EdgeFactor, Seed: params.Seed, Unpermuted: params.Unpermuted}
	}
	return searchGraph(ctx, c, cfg, b, head)
}

// builtGraph is what kernel 1 built, for the searches: the 1D CSR or the
// 2D blocks, their partition, the kernels' times and the number of input
// tuples. A graph read from a file also has the rank's share of the map
// from dense to the file's ids.
type builtGraph struct {
	g      *graph.CSR
	blocks *graph.Block2D
	part   partition.Block1D
	grid   partition.Grid
	times  buildTimes
	tuples int64
	// ids maps the vertices to the file's ids (nil for a generated graph,
	// whose ids are its own).
	ids *fileIDs
	// directed: g holds out-edges only (directed.go); its TupleDegree
	// counts out-tuples.
	directed bool
	// order renumbers the generator's vertices for a fused run (fused.go;
	// nil otherwise): the graph, the searches and the validation are in
	// its new ids; the keys, the reported roots and the tree in the
	// generator's.
	order *partition.SegmentOrder
}

// searchGraph runs the searches of a built graph: the key sampling (or
// cfg.Root, a vertex of the built graph), the untimed warm-up, the timed
// searches with their validation, and the gathering of the report, whose
// input fields rank 0 passes in head (nil elsewhere).
func searchGraph(ctx context.Context, c comm.Comm, cfg Config, b *builtGraph, head *results.Graph500Run) (*results.Graph500Run, error) {
	size := c.Size()
	g, blocks, part, grid := b.g, b.blocks, b.part, b.grid
	k1 := []int64{0, 0}
	for _, phase := range []string{graph.RoutePhaseCount, graph.RoutePhaseFill, graph.DegreePhase2D} {
		pc := c.Stats().Phase(phase)
		k1[0] += pc.BytesSent
		k1[1] += pc.Messages
	}
	if err := c.AllreduceInt64(ctx, "driver.gather", k1, comm.Sum); err != nil {
		return nil, err
	}
	genTime, constructTime := b.times.generation, b.times.construction
	// Kernel 1's round buffers are garbage now: return them to the
	// operating system before the searches allocate theirs (untimed), so
	// that the two phases' memory does not stack.
	memstat.Release()
	owned := ownedOf(g, blocks)
	if err := checkTupleCount(ctx, c, owned, b.tuples, b.directed); err != nil {
		return nil, err
	}
	cfg.progress(c, "construct", 1, 1)

	// Search keys.
	var roots []int64
	var err error
	if cfg.Root >= 0 {
		if cfg.Root >= part.N {
			return nil, fmt.Errorf("root %d out of range [0, %d)", cfg.Root, part.N)
		}
		if err := checkRootDegree(ctx, c, cfg, part, owned, b.newID(cfg.Root), b.ids.fileID(cfg.Root)); err != nil {
			return nil, err
		}
		roots = []int64{cfg.Root}
	} else {
		roots, err = SampleRoots(ctx, c, part, owned.degree, cfg.Graph.Seed, cfg.NumRoots, b.order)
		if err != nil {
			return nil, err
		}
		if len(roots) == 0 {
			return nil, errors.New("the graph has no vertex of degree ≥ 1 to search from")
		}
		if len(roots) < cfg.NumRoots {
			cfg.warn(c, "only %d vertices have degree ≥ 1 (not counting self-loops): running %d searches instead of %d",
				len(roots), len(roots), cfg.NumRoots)
		}
	}

	var bfs searcher
	if b.directed {
		bfs, err = spmv.NewDirectedBFS(c, g, part)
	} else {
		bfs, err = newSearcher(ctx, c, g, blocks, part, spmv.BFSConfig{Exchange: cfg.Exchange, Direction: cfg.Direction, Codec: cfg.Codec, Threads: cfg.Threads, Order: b.order})
	}
	if err != nil {
		return nil, err
	}
	// Untimed warm-up.
	if _, err := bfs.Run(ctx, b.newID(roots[0])); err != nil {
		return nil, err
	}
	var val validator
	var valSetup float64
	if cfg.Validate && b.directed {
		val = &directedValidator{c: c, g: g, part: part}
	} else if cfg.Validate {
		if val, valSetup, err = newValidator(ctx, c, g, blocks, part, bfs, cfg.Threads); err != nil {
			return nil, err
		}
		defer val.Release()
	}

	run := head
	if run != nil {
		run.NumRanks, run.Threads = size, cfg.Threads
		run.Exchange, run.Direction, run.Codec = cfg.Exchange.String(), bfs.Config().Direction.String(), bfs.Config().Codec
		run.GenerationTime, run.ConstructionTime = genTime, constructTime
		run.ValidationSkipped = !cfg.Validate
		run.Partition, run.ValidationSetupTime = "1d", valSetup
		run.ConstructionBytes, run.ConstructionMessages = k1[0], k1[1]
		if cfg.Partition2D {
			run.Partition, run.Grid = "2d", grid.String()
		}
	}
	var commBytes, commMessages int64
	var searchSent comm.PhaseCounters   // this rank's traffic in the timed searches
	var validateSent comm.PhaseCounters // and in their validation
	var work searchWork                 // and its traversal work in them
	for i, key := range roots {
		root := b.newID(key)
		cfg.progress(c, "search", i, len(roots))
		bfs.Prepare()
		if err := c.Barrier(ctx, "driver.sync"); err != nil {
			return nil, err
		}
		before, netBefore := c.Stats().Total(), networkTotal(c)
		cpu := cfg.startCPUClock()
		t0 := time.Now()
		res, err := bfs.Run(ctx, root)
		if err != nil {
			return nil, fmt.Errorf("search %d from %d: %w", i, key, err)
		}
		elapsed := time.Since(t0).Seconds()
		spent := c.Stats().Total().Sub(before)
		searchSent.Add(networkTotal(c).Sub(netBefore))
		used := cpu.since()
		work.add(res, used)
		if cfg.blockBusy != nil {
			cfg.blockBusy.record(i, res, used)
		}
		search, err := gatherSearch(ctx, c, owned.tupleDegree, b.directed, res, elapsed, spent)
		if err != nil {
			return nil, fmt.Errorf("search %d from %d: %w", i, key, err)
		}
		search.s.Root = key
		commBytes += search.bytes
		commMessages += search.messages
		if cfg.Tree != nil && i == 0 {
			if err := sendTree(ctx, c, part, res, b.ids, b.order, cfg.Tree); err != nil {
				return nil, err
			}
		}
		search.s.ValidateTime = -1
		if cfg.Validate {
			cfg.progress(c, "validate", i, len(roots))
			before, netBefore := c.Stats().Total(), networkTotal(c)
			t0 := time.Now()
			_, verr := val.Validate(ctx, root, res.Parent, res.Level, search.s.NEdge)
			var invalid *spmv.ValidationError
			if verr != nil && !errors.As(verr, &invalid) {
				return nil, fmt.Errorf("validating search %d from %d: %w", i, key, verr)
			}
			elapsed := time.Since(t0).Seconds()
			spent := c.Stats().Total().Sub(before)
			validateSent.Add(networkTotal(c).Sub(netBefore))
			vt, err := maxOverRanks(ctx, c, "driver.sync", elapsed)
			if err != nil {
				return nil, err
			}
			if search.s.ValidateBytes, search.s.ValidateMessages, err = sumOverRanks(ctx, c, spent); err != nil {
				return nil, err
			}
			search.s.ValidateTime = vt
			search.s.Validated = invalid == nil
			if invalid != nil {
				cfg.warn(c, "%v", invalid)
				if run != nil {
					run.Searches = append(run.Searches, search.s)
				}
				break // as the reference does: the run is invalid, skip the rest
			}
		}
		if run != nil {
			run.Searches = append(run.Searches, search.s)
		}
	}
	cfg.progress(c, "search", len(roots), len(roots))
	loads, err := gatherLoads(ctx, c, g, blocks, searchSent, validateSent, work)
	if err != nil {
		return nil, err
	}
	if run != nil {
		run.CommBytes, run.CommMessages = commBytes, commMessages
		run.RankLoads = loads
		for _, l := range loads {
			run.PeakMemoryBytes = max(run.PeakMemoryBytes, l.PeakMemoryBytes)
		}
		for _, s := range run.Searches {
			run.ValidateBytes += s.ValidateBytes
			run.ValidateMessages += s.ValidateMessages
		}
	}
	return run, nil
}

// buildTimes are the slowest rank's times of kernels 0 and 1.
type buildTimes struct {
	generation, construction float64
}

// buildGraph runs kernels 0 and 1: the 1D CSR, or for a 2D run the 2D
// blocks.
//
// The tuple list never exists: kernel 1 reads this rank's share (of the
// generator, or of a file's relabelled tuples) twice, once to count its rows and once to fill them
// (graph.BuildUndirectedFrom). Kernel 0 has no pass of its own, so its time is
// the generation within kernel 1's counting pass, and kernel 1's time is the
// rest — the second generation included.
func buildGraph(ctx context.Context, c comm.Comm, cfg Config, part partition.Block1D, grid partition.Grid, share graph.TupleSource) (*graph.CSR, *graph.Block2D, buildTimes, error) {
	var times buildTimes
	cfg.progress(c, "construct", 0, 1)
	if err := c.Barrier(ctx, "driver.sync"); err != nil {
		return nil, nil, times, err
	}
	t0 := time.Now()
	var g *graph.CSR
	var blocks *graph.Block2D
	var st graph.BuildStats
	var err error
	if cfg.Partition2D {
		// The searches, the key sampling and the validation all read the
		// blocks: the run holds no 1D copy of the graph.
		if blocks, st, err = graph.BuildUndirected2DFrom(ctx, c, grid, share, cfg.Threads); err != nil {
			return nil, nil, times, fmt.Errorf("kernel 1 (2D): %w", err)
		}
	} else if g, st, err = graph.BuildUndirectedFrom(ctx, c, part, share, cfg.Threads); err != nil {
		return nil, nil, times, fmt.Errorf("kernel 1: %w", err)
	}
	total := time.Since(t0).Seconds()
	gen := st.ReadTime[0].Seconds()
	t := []float64{gen, total - gen}
	if err := c.AllreduceFloat64(ctx, "driver.sync", t, comm.Max); err != nil {
		return nil, nil, times, err
	}
	times.generation, times.construction = t[0], t[1]
	return g, blocks, times, nil
}

// checkTupleCount is kernel 1's bookkeeping check: every input tuple must be
// accounted for, as adjacency (counted at both ends, or at the source only
// when directed) or as a self-loop.
func checkTupleCount(ctx context.Context, c comm.Comm, owned ownedVertices, want int64, directed bool) error {
	var ends int64
	for _, d := range owned.tupleDegree {
		ends += int64(d)
	}
	s := []int64{ends, owned.selfLoops}
	if err := c.AllreduceInt64(ctx, "driver.sync", s, comm.Sum); err != nil {
		return err
	}
	if directed {
		s[0] *= 2 // each out-tuple counted once, at its source
	}
	if s[0]%2 != 0 || s[0]/2+s[1] != want {
		return fmt.Errorf("kernel 1 lost tuples: %d edge ends and %d self-loops for %d tuples", s[0], s[1], want)
	}
	return nil
}

type gatheredSearch struct {
	s               results.Search
	bytes, messages int64
}

// gatherSearch turns one rank's view of a search into the run's: the time is
// the slowest rank's, bytes and messages are summed over ranks, per level too.
func gatherSearch(ctx context.Context, c comm.Comm, tupleDegree []uint32, directed bool, res *spmv.Result, elapsed float64, spent comm.PhaseCounters) (gatheredSearch, error) {
	var out gatheredSearch
	nedgeOf := spmv.ComponentEdges
	if directed {
		nedgeOf = spmv.DirectedEdges
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

// newID is the built graph's id of the generator's vertex v.
func (b *builtGraph) newID(v int64) int64 {
	if b.order == nil {
		return v
	}
	return b.order.New(v)
}
