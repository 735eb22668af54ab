// This file is distributed PageRank over the sparse allreduce, as in Kylix
// §I-A and §VII-D (Zhao and Canny; see the package doc): the edges
// (non-zeros of the adjacency matrix) are spread over the ranks by the
// random edge partition of Kylix §II-B (or, for comparison, by the block
// of their source vertex); each iteration is a local sparse
// matrix-vector product followed by one sparse allreduce (allreduce.Sparse)
// whose home ranks compute the PageRank update in place.
//
// # Semantics
//
// They are NetworkX's pagerank (Page et al.'s PageRank with NetworkX's
// conventions): edges are directed, duplicate edges collapse, self-loops
// stay, the vertices are the ids that occur in an edge; with
// damping α, n vertices and out-degrees d(u),
//
//	r'_v = (1−α)/n + α·(Σ_{(u,v)} r_u/d(u) + D/n),   D = Σ_{d(u)=0} r_u,
//
// starting from r = 1/n, so the scores always sum to 1. The iteration stops
// when the L1 change Σ|r' − r| falls below n·Tol, NetworkX's test for its
// tol, or after MaxIter iterations (Converged is then false), or runs
// exactly Iterations iterations.
//
// # Distribution
//
// Every rank reads its share of the edges twice, never holding it
// (graph.EdgeShare): a first pass collects its distinct ids, which
// graph.RelabelShare numbers 0..n−1 in increasing original-id order over
// all ranks (the same for any rank count); a second pass relabels the edges
// chunk by chunk and routes each, packed as one 64-bit key u<<b | v (b bits
// per id, so n ≤ 2^32), to its partition owner, in rounds of one Alltoallv
// ("pagerank.route") with bounded buffers (pagerank_route.go). The owner
// builds its share of the matrix by two in-place radix sorts of its keys
// (pagerank_matrix.go): by (u, v), which drops duplicates (all copies of an
// edge meet there) and gives the in-set, the distinct sources (it needs
// their ranks); then by (v, slot of u), which gives the columns of a pull
// SpMV over local uint32 slots, written over the keys. The matrix depends
// only on the set of keys a rank owns, so neither the spread of the edges
// over the reading ranks nor the chunks change a bit of the result. The out-set is the distinct
// destinations (it contributes partial sums for them) plus every vertex of
// its partition.Block1D range, contributed with value 0: this way every
// vertex 0..n−1 is in some out-set and so has a home in the allreduce, even
// one that is no edge's destination (its rank is (1−α)/n + α·D/n), and each
// home can keep the current rank of all the vertices it homes.
//
// Out-degrees come from one sparse allreduce of kind direct (each rank
// contributes its local out-degree at each source; its in-set is its
// sources); its apply callback records at each home the out-degree of the
// vertices it homes. Homes depend only on the index (package allreduce), so
// the homes of the degree reduce and of the PageRank reduce agree; a vertex
// missing from the degree reduce's home list has out-degree 0, i.e. is
// dangling.
//
// One iteration: y_v = Σ_{(u,v) local} x_u over the out-set, where x_u =
// r_u/d(u), on Threads goroutines, each column summed by one goroutine in
// slot order; then one ReduceScalars of y: the apply at home computes r'_v
// from the sum, keeps it, and replaces it by r'_v/d(v) — the x the in-sets
// need next — and writes the partial L1 change, dangling mass of r' and
// Σ r'; the up pass delivers x for the in-set and sums those three scalars
// over the ranks on its way (no separate collective). The apply runs on
// Threads goroutines over fixed blocks of vertices, whose partial scalars
// are combined in block order (pagerank_update.go). On one rank there is
// nothing to reduce: the SpMV and the update are fused per block of columns
// and write the next x straight into the kernel's input (prLocal). Sums are
// deterministic for a given rank count, partition and network, and do not
// depend on Threads; different rank counts or networks add in different
// orders and agree up to rounding.

package pagerank

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// Run runs PageRank on the directed edges given by every rank (this
// rank's share, original ids as read). It is a collective: every rank calls
// it with the same configuration. With no edge at all the result has no
// vertices and no iterations.
func Run(ctx context.Context, c comm.Comm, edges []graph.Edge, cfg Config) (*Result, error) {
	return RunShare(ctx, c, graph.EdgeChunks{edges}, cfg)
}

// RunShare is PageRank on this rank's share of the input, which it
// reads twice (for the distinct ids, then to route the edges) and never
// holds whole: the set-up's memory is the rank's keys, about 8 bytes per
// routed edge, plus O(vertices). The result is PageRank's on the same
// edges, bit for bit.
func RunShare(ctx context.Context, c comm.Comm, share graph.EdgeShare, cfg Config) (*Result, error) {
	if cfg.GaussSeidel && c.Size() != 1 {
		return nil, configError("GaussSeidel", "sweeps one rank's vertices in place: needs one rank, not %d", c.Size())
	}
	if cfg.Allreduce == AllreduceDense {
		return pageRankDense(ctx, c, share, cfg)
	}
	run, res, err := preparePageRank(ctx, c, share, cfg)
	if err != nil || run == nil {
		return res, err
	}
	if err := run.fuse(c, res.NumVertices, cfg.Threads, cfg.GaussSeidel); err != nil {
		return nil, err
	}
	defer run.close()
	if cfg.GaussSeidel && run.local == nil {
		return nil, fmt.Errorf("%w: GaussSeidel: the run did not fuse (%d of %d vertices homed)", ErrConfig, len(run.net.Home()), res.NumVertices)
	}
	layersBefore := allreduce.LayerStats(c.Stats(), run.net.Layers())
	_, _, err = iterateCounted(ctx, c, cfg, res, func(ctx context.Context) (time.Duration, error) {
		compute, err := run.step(ctx)
		res.Residual, res.Total, res.GatheredColumns = run.residual, run.total, run.gathered()
		return compute, err
	})
	if err != nil {
		return nil, err
	}
	res.LayerVolume = allreduce.LayerStats(c.Stats(), run.net.Layers())
	for i := range res.LayerVolume {
		res.LayerVolume[i] = res.LayerVolume[i].Sub(layersBefore[i])
	}
	if run.local != nil {
		run.local.scores(run.up.cur)
	}
	res.Scores, err = homeToBlock(ctx, c, res.Part, run.net.Home(), run.up.cur)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// iterateCounted is iterate that adds the iterations' traffic, all
// phases, to res.Traffic; it returns c's counters before and after them.
func iterateCounted(ctx context.Context, c comm.Comm, cfg Config, res *Result,
	step func(context.Context) (time.Duration, error)) (before, after map[string]comm.PhaseCounters, err error) {
	before = c.Stats().Snapshot()
	if err := iterate(ctx, cfg, 0, res, step); err != nil {
		return nil, nil, err
	}
	after = c.Stats().Snapshot()
	for phase, pc := range after {
		res.Traffic.Add(pc.Sub(before[phase]))
	}
	return before, after, nil
}

// errStopAfterIteration, wrapped in the error of a step that completed its
// iteration, makes iterate record that iteration and return the error.
var errStopAfterIteration = errors.New("stop after this iteration")

// iterate runs PageRank's iterations: step runs one and sets res.Residual
// and res.Total; iterate stops after cfg.Iterations, on convergence, or
// after cfg.MaxIter, and records the times. A step error that wraps
// errStopAfterIteration stops it after recording that iteration. The
// progress numbers the iterations after the done ones of a resumed run.
func iterate(ctx context.Context, cfg Config, done int, res *Result, step func(context.Context) (compute time.Duration, err error)) error {
	for it := 1; ; it++ {
		if cfg.Iterations > 0 && it > cfg.Iterations || cfg.Iterations == 0 && it > cfg.MaxIter {
			res.Converged = cfg.Iterations > 0
			break
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("pagerank: %w", err)
		}
		t0 := time.Now()
		compute, err := step(ctx)
		stop := errors.Is(err, errStopAfterIteration)
		if err != nil && !stop {
			return fmt.Errorf("pagerank: iteration %d: %w", it, err)
		}
		took := time.Since(t0)
		res.Compute += compute
		res.Communication += took - compute
		res.IterationTimes = append(res.IterationTimes, took)
		res.L1Changes = append(res.L1Changes, res.Residual)
		res.Iterations = it
		if cfg.Progress != nil {
			cfg.Progress(Iteration{Number: done + it, L1: res.Residual, Seconds: took.Seconds(), Threshold: cfg.progressThreshold(res.NumVertices)})
		}
		if stop {
			return fmt.Errorf("pagerank: after iteration %d: %w", it, err)
		}
		if cfg.Iterations == 0 && res.Residual < cfg.threshold(res.NumVertices) {
			break
		}
	}
	return nil
}

// prRun is one rank's PageRank between iterations.
type prRun struct {
	a   *prMatrix
	net allreduce.Sparse
	// x is r_u/d(u) over the in-set, as the allreduce delivers it: by
	// in-set index until arrangeNet, then by slot, where pull reads it.
	x  []float64
	y  []float64 // the local sums over the out-set, by column position once arranged
	up prUpdate
	// local, on one rank, fuses the SpMV and the update (pagerank_update.go)
	// and replaces x, y and the allreduce; nil otherwise.
	local *prLocal
	// arranged says arrangeNet has run: the allreduce reads y and writes x
	// in the kernel's orders.
	arranged bool

	alpha, nf       float64
	danglingMass    float64 // D of the last iteration, summed over the ranks
	residual, total float64 // L1 change and Σ r of the last iteration
	scalars         []float64
	apply           func(home []int64, sums []float64)
}

// gathered reports whether the run's long columns are summed with gathers.
func (r *prRun) gathered() bool {
	if r.local != nil {
		return r.local.runs.gather
	}
	return r.a.gathered()
}

// prepareMatrix relabels the vertices, routes the edges to their partition
// owners and builds this rank's matrix (every mode of PageRank starts so),
// reading share twice: once for its distinct ids (graph.RelabelShare),
// once to route its edges in rounds (routeShare). It returns a nil matrix
// (and the result) when there is no vertex.
func prepareMatrix(ctx context.Context, c comm.Comm, share graph.EdgeShare, cfg Config) (*prMatrix, *Result, error) {
	if err := cfg.Check(); err != nil {
		return nil, nil, err
	}
	if _, ok := share.(WeightedShare); cfg.Weighted && !ok {
		return nil, nil, configError("Weighted", "the input has no edge weights")
	}
	p, rank := c.Size(), c.Rank()
	labels, err := graph.RelabelShare(ctx, c, share)
	if err != nil {
		return nil, nil, fmt.Errorf("pagerank: %w", err)
	}
	res := &Result{NumVertices: labels.N, Original: labels.Original, Converged: true}
	counts := make([]int64, p) // every rank's edges
	counts[rank] = labels.Edges
	if err := c.AllreduceInt64(ctx, PhaseCount, counts, comm.Sum); err != nil {
		return nil, nil, fmt.Errorf("pagerank: counting edges: %w", err)
	}
	for _, m := range counts {
		res.InputEdges += m
	}
	if res.NumVertices == 0 {
		return nil, res, nil
	}
	n := res.NumVertices
	part, err := partition.NewBlock1D(n, p)
	if err != nil {
		return nil, nil, fmt.Errorf("pagerank: %w", err)
	}
	res.Part = part
	sh, err := idBits(n)
	if err != nil {
		return nil, nil, err
	}
	first, cnt := part.First(rank), int64(part.Count(rank))
	vecs, err := resolveVectors(ctx, c, cfg, first, labels.Original)
	if err != nil {
		return nil, nil, err
	}
	keys, ws, err := routeShare(ctx, c, share, labels, counts, part, cfg, sh)
	if err != nil {
		return nil, nil, err
	}
	var a *prMatrix
	if cfg.Weighted {
		a = buildPRMatrixWeighted(keys, ws, sh, first, cnt, cfg.Threads)
	} else {
		a = buildPRMatrix(keys, sh, first, cnt, cfg.Threads)
	}
	a.vecs = vecs
	local := int64(len(a.src) + a.zeroEdges)
	count := []int64{local}
	if err := c.AllreduceInt64(ctx, PhaseCount, count, comm.Sum); err != nil {
		return nil, nil, fmt.Errorf("pagerank: counting edges: %w", err)
	}
	res.NumEdges, res.LocalEdges = count[0], local
	return a, res, nil
}

// preparePageRank does everything before the first iteration: relabel,
// route the edges to their partition owners, build the local matrix,
// compute the out-degrees and configure the allreduce. It returns a nil
// run (and the result) when there is no vertex.
func preparePageRank(ctx context.Context, c comm.Comm, share graph.EdgeShare, cfg Config) (*prRun, *Result, error) {
	started := time.Now()
	a, res, err := prepareMatrix(ctx, c, share, cfg)
	if err != nil || a == nil {
		if res != nil {
			res.Setup = time.Since(started)
		}
		return nil, res, err
	}
	n := res.NumVertices

	// Out-degrees: at home (for dangling vertices and to divide by) and for
	// the in-set (for the first iteration).
	degNet, err := allreduce.New(ctx, c, allreduce.KindDirect, nil, n, a.in, a.in)
	if err != nil {
		return nil, nil, fmt.Errorf("pagerank: out-degrees: %w", err)
	}
	outDeg := make([]float64, len(a.in))
	var degHome []int64
	var degSums []float64
	err = degNet.Reduce(ctx, a.localDeg, outDeg, func(home []int64, sums []float64) {
		degHome, degSums = slices.Clone(home), slices.Clone(sums)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("pagerank: out-degrees: %w", err)
	}
	a.localDeg, degNet = nil, nil // not needed by the iterations

	configStarted := time.Now()
	net, err := allreduce.New(ctx, c, cfg.Allreduce.sparseKind(), cfg.Degrees, n, a.in, a.out)
	if err != nil {
		return nil, nil, fmt.Errorf("pagerank: %w", err)
	}
	res.Configuration = time.Since(configStarted)
	res.Network, res.Layers = net.Name(), net.Layers()
	home := net.Home()
	homeDeg := make([]float64, len(home)) // out-degree of the home vertices, 0 if dangling
	for i, j := 0, 0; i < len(home); i++ {
		for j < len(degHome) && degHome[j] < home[i] {
			j++
		}
		if j < len(degHome) && degHome[j] == home[i] {
			homeDeg[i] = degSums[j]
		}
	}

	nf := float64(n)
	cur := make([]float64, len(home)) // the current rank of the home vertices
	a.vecs.start.at(home, cur, n)
	x := make([]float64, len(a.in))
	a.vecs.start.at(a.in, x, n)
	for i := range x {
		x[i] /= outDeg[i]
	}
	var d0 float64
	for i, d := range homeDeg {
		if d == 0 {
			d0 += cur[i]
		}
	}
	scalars := []float64{d0}
	if err := c.AllreduceFloat64(ctx, PhaseScalars, scalars, comm.Sum); err != nil {
		return nil, nil, fmt.Errorf("pagerank: dangling mass: %w", err)
	}
	res.Total = 1
	run := &prRun{
		a: a, net: net, x: x, y: make([]float64, len(a.out)),
		up:    prUpdate{alpha: cfg.Alpha, cur: cur, deg: homeDeg, threads: cfg.Threads},
		alpha: cfg.Alpha, nf: nf, danglingMass: scalars[0], total: 1,
		scalars: make([]float64, numPRScalars),
	}
	run.apply = run.up.apply
	run.up.pers, run.up.dang = a.vecs.teleport(home, n)
	a.vecs = prVectors{}
	res.Setup = time.Since(started)
	if err := setupDone(ctx, c, cfg); err != nil {
		return nil, nil, err
	}
	return run, res, nil
}

// setupDone calls cfg.SetupDone, if set, once the set-up is timed, and
// waits for every rank to be done with it, so that no rank's first
// iteration waits for another's hook.
func setupDone(ctx context.Context, c comm.Comm, cfg Config) error {
	if cfg.SetupDone == nil {
		return nil
	}
	cfg.SetupDone()
	if err := c.AllreduceInt64(ctx, PhaseSetup, []int64{0}, comm.Max); err != nil {
		return fmt.Errorf("pagerank: after the set-up: %w", err)
	}
	return nil
}

// fuse switches a one-rank run to the fused iteration (prLocal), from the
// current in-set values, sweeping in place with gaussSeidel; a run on more
// ranks arranges its matrix and allreduce for pull (arrangeNet) in the
// set-up, not in the first iteration.
func (s *prRun) fuse(c comm.Comm, n int64, threads int, gaussSeidel bool) error {
	if c.Size() == 1 && int64(len(s.a.out)) == n && int64(len(s.net.Home())) == n {
		s.y = nil // the fused run keeps its own
		s.local = newPRLocal(s.a, &s.up, s.x, threads, gaussSeidel)
		s.x, s.a, s.up.deg = nil, nil, nil // the fused run reads none of them
		s.up.pers, s.up.dang = nil, nil
		return nil
	}
	return s.arrangeNet()
}

// arrangeNet arranges the matrix's columns for pull and tells the
// allreduce the kernel's orders (allreduce.Sparse.Arrange): it reads the
// sums by column position and delivers x by slot, so an iteration copies
// neither through the sets' order. x, by in-set index until now, moves to
// its slots once.
func (s *prRun) arrangeNet() error {
	if s.arranged {
		return nil
	}
	if err := s.net.Arrange(s.a.positions(), s.a.slots()); err != nil {
		return fmt.Errorf("pagerank: %w", err)
	}
	xs := make([]float64, len(s.x))
	s.a.gather(s.x, xs)
	s.x, s.arranged = xs, true
	return nil
}

// close releases what a fused run keeps between iterations (its threads).
func (s *prRun) close() {
	if s.local != nil {
		s.local.close()
	}
}

// step runs one iteration: the local SpMV, then one sparse allreduce whose
// homes apply the update and whose up pass delivers r'_u/d(u) for the
// in-set and sums the L1 change, dangling mass and total rank over the
// ranks. It returns the time of the local work (SpMV and update).
func (s *prRun) step(ctx context.Context) (time.Duration, error) {
	t0 := time.Now()
	s.up.base = (1-s.alpha)/s.nf + s.alpha*s.danglingMass/s.nf
	s.up.c1, s.up.c2 = 1-s.alpha, s.alpha*s.danglingMass
	if s.local != nil {
		s.local.c1, s.local.c2 = s.up.c1, s.up.c2
		s.local.step(s.up.base, s.up.alpha, s.scalars)
		s.residual, s.danglingMass, s.total = s.scalars[prL1], s.scalars[prDangling], s.scalars[prTotal]
		return time.Since(t0), nil
	}
	if err := s.arrangeNet(); err != nil { // an elastic run arranges here, after its seeding reduce
		return 0, err
	}
	s.a.pull(s.x, s.y)
	computed := time.Since(t0)
	s.up.scalars, s.up.took, s.up.mismatch = s.scalars, 0, false
	if err := s.net.ReduceScalars(ctx, s.y, s.x, s.scalars, s.apply); err != nil {
		return 0, err
	}
	if s.up.mismatch {
		return 0, errors.New("the allreduce changed its home list")
	}
	s.residual, s.danglingMass, s.total = s.scalars[prL1], s.scalars[prDangling], s.scalars[prTotal]
	return computed + s.up.took, nil
}
