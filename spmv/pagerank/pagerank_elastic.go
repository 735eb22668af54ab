// This file is elastic PageRank (Zhang and Qiu §II, failure exposure, and §V,
// the topology rebuilt by a coordinator after a node is lost, keyed by the
// iteration the survivors reached): PageRank that goes on after losing a
// rank instead of failing the job.
//
// A failed collective returns an error; RunElastic then asks the
// transport (Elastic.Shrink) for a Comm over the survivors, agrees on the
// iteration reached (the maximum over the survivors, one allreduce), has
// every survivor re-read its share of the input for the new rank count
// (Elastic.Load), rebuilds the matrix and the allreduce, and restarts the
// iteration from what the survivors still hold: each survivor's home
// vertices keep their current ranks, the vertices whose home was the lost
// rank start from 1/n, and the whole vector is scaled to sum to 1. The old
// values reach the new homes through the block partition of the vertices
// (dense ids do not depend on the rank count, graph.Relabel): two
// Alltoallv's (values to the block owners; the new homes ask for theirs and
// get the answers in the order asked), then one sparse reduce without an
// update delivers r_u/d(u) to the new in-sets and the dangling mass.
//
// The result is not bit-identical to a fault-free run: the iteration
// restarts from a different vector (partly re-initialised, renormalised)
// and sums in another order on fewer ranks, so it reaches the same fixed
// point along another path; the final vectors agree within the convergence
// tolerance (with Iterations, within how far that many iterations get).
//
// Ramp-up (Zhang and Qiu §III and §V-C: processes join at a later iteration)
// uses the same machinery the other way round. Rank 0 reads how many
// processes wait to join (Elastic.Pending) before every iteration and adds
// the count to the scalars the iteration's reduction sums anyway (L1
// change, dangling mass, total rank), so every rank learns it with the
// iteration's result and no extra collective. After an iteration with a
// positive count (and not the last), every rank calls Elastic.Grow; the
// ranks of the grown Comm, joiners included, agree on the iteration and the
// epoch (one allreduce, which is how a joiner, RunElasticJoin, learns them),
// re-read their shares for the new size, rebuild, and reseed as above. No
// value is lost, so the vector moves to its new homes exactly (no vertex
// restarts from 1/n, nothing is rescaled); only the sums of the following
// iterations run in another order. A growth that fails (a joiner vanished)
// leaves the old Comm usable, and the run goes on with the ranks it had.

package pagerank

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
)

// Phase names of elastic recovery and ramp-up.
const (
	PhasePageRankElasticAgree  = "pagerank.elastic.agree"
	PhasePageRankElasticAdmit  = "pagerank.elastic.admit"
	PhasePageRankElasticCarry  = "pagerank.elastic.carry"
	PhasePageRankElasticAsk    = "pagerank.elastic.ask"
	PhasePageRankElasticAnswer = "pagerank.elastic.answer"
	PhasePageRankElasticMass   = "pagerank.elastic.mass"
)

// Elastic says how RunElastic reloads its input, shrinks its job and,
// optionally, grows it.
type Elastic struct {
	// Load returns rank's share of the input edges in a job of size ranks
	// (original ids, as PageRank takes them), which the set-up reads twice
	// (RunShare). Required.
	Load func(ctx context.Context, rank, size int) (graph.EdgeShare, error)
	// Shrink returns a Comm over the survivors of c, which failed with
	// cause; epoch numbers the job's topology changes from 1. It fails if
	// the loss is not recoverable. Required.
	Shrink func(ctx context.Context, c comm.Comm, cause error, epoch int) (comm.Comm, error)
	// Grow, if set, lets processes join between iterations (ramp-up): it
	// returns the Comm of c's ranks (keeping their numbers) and joiners
	// more processes (ranks c.Size() up), or an error that leaves c as
	// usable as it was. It must be set on every rank or on none: it adds
	// one scalar to every iteration's reduction.
	Grow func(ctx context.Context, c comm.Comm, joiners, epoch int) (comm.Comm, error)
	// Pending, on rank 0, is how many processes wait to join now. It is
	// read before every iteration and rides the iteration's own reduction
	// to the other ranks (no extra collective); a positive count makes
	// every rank Grow after that iteration, unless it was the last.
	Pending func(c comm.Comm) int
	// MaxRecoveries bounds the recoveries from losses of one run (default
	// 1). Growths are not bounded.
	MaxRecoveries int
	// Logf, if set, receives one line per recovery and per growth.
	Logf func(format string, args ...any)
}

// Recovery is one recovery of an elastic run, as this rank saw it.
type Recovery struct {
	Epoch     int           // the topology change's number (1 for the job's first)
	Iteration int           // the iteration the survivors had completed (their maximum)
	Ranks     int           // ranks after the recovery
	Cause     error         // the failure recovered from
	Took      time.Duration // from the failure to the restarted iteration (shrink, reload, rebuild, reseed)
}

// Join is one growth of an elastic run (processes joining between
// iterations), as this rank saw it.
type Join struct {
	Epoch     int           // the topology change's number
	Iteration int           // iterations completed when the processes joined
	Joiners   int           // processes that joined (or were to join)
	Ranks     int           // ranks after the growth (before it, if it failed)
	Took      time.Duration // from the iteration's end to the restarted iteration (grow, reload, rebuild, reseed); on a joiner, from RunElasticJoin's start
	// Err is why the growth failed; the run then went on with the ranks
	// it had. nil if the processes joined.
	Err error
}

// ElasticResult is RunElastic's outcome on one rank.
type ElasticResult struct {
	*Result
	// Comm is the communicator the result lives on (c, or the last shrunk
	// or grown one); the caller runs TopK and the like on it, and closes
	// it if it is not c.
	Comm       comm.Comm
	Recoveries []Recovery
	Joins      []Join
}

// elasticState is what a rank still holds of the rank vector: the dense
// ids of its home vertices and their current ranks, and the iterations
// it completed. A process that joined holds no vertices.
type elasticState struct {
	home []int64
	cur  []float64
	done int
}

// errJoinersWait ends the iterations of an attempt when processes wait to
// join.
var errJoinersWait = fmt.Errorf("processes wait to join: %w", errStopAfterIteration)

// maxJoiners bounds the joiners of one growth (a sanity check of the
// scalar that carries their count).
const maxJoiners = 1 << 16

// RunElastic is PageRank that survives the loss of ranks other than
// rank 0 (up to el.MaxRecoveries) and, with el.Grow, takes in processes
// that join between iterations: see the file comment. Every rank calls it
// with the same configuration; the sparse allreduces are supported (not
// AllreduceDense), and after every topology change kylix degrees are
// designed anew for the new rank count.
func RunElastic(ctx context.Context, c comm.Comm, cfg Config, el Elastic) (*ElasticResult, error) {
	if err := checkElastic(cfg, el); err != nil {
		return nil, err
	}
	r := &elasticRun{cfg: cfg, el: el, c: c, out: &ElasticResult{Comm: c}}
	return r.run(ctx, c, nil)
}

// RunElasticJoin is the side of a process that joined a running elastic
// PageRank: c is the grown Comm (from the transport's join), cfg and el
// are the job's. It learns the iteration reached and the topology's epoch
// from the job's ranks (one allreduce they make after their Grow), receives
// its share of the rank vector and goes on in step with them; its result
// is like theirs, with its own arrival as the first of Joins.
func RunElasticJoin(ctx context.Context, c comm.Comm, cfg Config, el Elastic) (*ElasticResult, error) {
	if err := checkElastic(cfg, el); err != nil {
		return nil, err
	}
	if el.Grow == nil {
		return nil, fmt.Errorf("%w: joining an elastic PageRank needs Grow (the job's ranks grow through it)", ErrConfig)
	}
	start := time.Now()
	agree := []int64{0, 0, 0}
	if err := c.AllreduceInt64(ctx, PhasePageRankElasticAdmit, agree, comm.Max); err != nil {
		return nil, fmt.Errorf("pagerank: elastic: rank %d of %d: learning the job's iteration: %w", c.Rank(), c.Size(), err)
	}
	cfg.Degrees = nil // designed for the new rank count
	r := &elasticRun{cfg: cfg, el: el, c: c, out: &ElasticResult{Comm: c}, epochs: int(agree[1])}
	r.out.Joins = []Join{{Epoch: int(agree[1]), Iteration: int(agree[0]), Joiners: int(agree[2]), Ranks: c.Size()}}
	r.pend(start, func(d time.Duration) { r.out.Joins[0].Took = d })
	r.logf("pagerank: elastic: rank %d of %d: joined the job after its iteration %d (epoch %d)", c.Rank(), c.Size(), agree[0], agree[1])
	return r.run(ctx, c, &elasticState{done: int(agree[0])})
}

func checkElastic(cfg Config, el Elastic) error {
	if err := cfg.Check(); err != nil {
		return err
	}
	if cfg.Allreduce == AllreduceDense {
		return fmt.Errorf("%w: elastic PageRank runs on the sparse allreduces, not %s", ErrConfig, AllreduceDense)
	}
	if cfg.GaussSeidel {
		return fmt.Errorf("%w: elastic PageRank runs on several ranks; GaussSeidel sweeps one", ErrConfig)
	}
	if el.Load == nil || el.Shrink == nil {
		return fmt.Errorf("%w: elastic PageRank needs Load and Shrink", ErrConfig)
	}
	return nil
}

// elasticRun is one rank's elastic PageRank across topology changes.
type elasticRun struct {
	cfg    Config
	el     Elastic
	c      comm.Comm // the current Comm
	out    *ElasticResult
	epochs int // the last epoch used: topology changes tried so far

	// The topology change in progress, until the iterations restart:
	// when it began and where its duration goes.
	since time.Time
	took  func(time.Duration)
}

func (r *elasticRun) logf(format string, args ...any) {
	if r.el.Logf != nil {
		r.el.Logf(format, args...)
	}
}

// pend marks a topology change that began at since; record receives its
// duration when the iterations restart.
func (r *elasticRun) pend(since time.Time, record func(time.Duration)) {
	r.since, r.took = since, record
}

// restarted records the duration of the pending topology change.
func (r *elasticRun) restarted() {
	if r.took != nil {
		r.took(time.Since(r.since))
		r.took = nil
	}
}

// run iterates to the end from st (nil: from the start), recovering from
// losses and growing when processes wait to join. orig is the Comm the
// caller owns; a later one is aborted and closed here if the run fails.
func (r *elasticRun) run(ctx context.Context, orig comm.Comm, st *elasticState) (res *ElasticResult, err error) {
	defer func() {
		if err != nil && r.c != orig {
			// Nobody else holds the newest Comm: tell its peers, let go.
			if a, ok := r.c.(interface{ Abort(error) }); ok {
				a.Abort(err)
			}
			if cl, ok := r.c.(io.Closer); ok {
				_ = cl.Close()
			}
		}
	}()
	maxRec := r.el.MaxRecoveries
	if maxRec <= 0 {
		maxRec = 1
	}
	for {
		res, next, grown, err := r.attempt(ctx, st)
		if next != nil {
			st = next
		}
		if grown != nil {
			if err := r.grown(ctx, grown, st); err != nil {
				return nil, err
			}
			continue
		}
		if err == nil {
			r.out.Result, r.out.Comm = res, r.c
			return r.out, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		c := r.c
		if len(r.out.Recoveries) >= maxRec {
			return nil, fmt.Errorf("pagerank: elastic: no recovery left after %d: %w", maxRec, err)
		}
		if st == nil {
			return nil, fmt.Errorf("pagerank: elastic: rank %d of %d: the job failed before the iterations began, nothing to recover: %w", c.Rank(), c.Size(), err)
		}
		failedAt := time.Now()
		r.epochs++
		epoch := r.epochs
		nc, serr := r.el.Shrink(ctx, c, err, epoch)
		if serr != nil {
			return nil, fmt.Errorf("pagerank: elastic: rank %d of %d: recovery %d failed: %w (after: %w)", c.Rank(), c.Size(), len(r.out.Recoveries)+1, serr, err)
		}
		r.c, r.out.Comm = nc, nc
		c = nc
		r.out.Recoveries = append(r.out.Recoveries, Recovery{Epoch: epoch, Ranks: c.Size(), Cause: err})
		i := len(r.out.Recoveries) - 1
		r.pend(failedAt, func(d time.Duration) { r.out.Recoveries[i].Took = d })
		// The survivors agree on the iteration reached: the topology is
		// keyed by it.
		it := []int64{int64(st.done)}
		if err := c.AllreduceInt64(ctx, PhasePageRankElasticAgree, it, comm.Max); err != nil {
			return nil, fmt.Errorf("pagerank: elastic: agreeing on the iteration after recovery %d: %w", i+1, err)
		}
		st.done = int(it[0])
		r.out.Recoveries[i].Iteration = st.done
		r.cfg.Degrees = nil // designed anew for the new rank count
		r.logf("pagerank: elastic: rank %d of %d: continuing on %d ranks from iteration %d (epoch %d) after: %v",
			c.Rank(), c.Size(), c.Size(), st.done, epoch, err)
	}
}

// grown switches the run to the grown Comm nc and has every rank, the
// joiners included, agree on the iteration, the epoch and the number of
// joiners (the joiners contribute zeros and learn them).
func (r *elasticRun) grown(ctx context.Context, nc comm.Comm, st *elasticState) error {
	j := &r.out.Joins[len(r.out.Joins)-1]
	r.c, r.out.Comm = nc, nc
	j.Ranks = nc.Size()
	agree := []int64{int64(st.done), int64(j.Epoch), int64(j.Joiners)}
	if err := nc.AllreduceInt64(ctx, PhasePageRankElasticAdmit, agree, comm.Max); err != nil {
		return fmt.Errorf("pagerank: elastic: rank %d of %d: agreeing on the iteration after growth %d: %w", nc.Rank(), nc.Size(), j.Epoch, err)
	}
	if int(agree[0]) != st.done || int(agree[1]) != j.Epoch {
		return fmt.Errorf("pagerank: elastic: rank %d of %d: the ranks disagree on the growth: iteration %d and epoch %d here, at most %d and %d elsewhere",
			nc.Rank(), nc.Size(), st.done, j.Epoch, agree[0], agree[1])
	}
	r.cfg.Degrees = nil
	r.logf("pagerank: elastic: rank %d of %d: %d process(es) joined after iteration %d; going on with %d ranks (epoch %d)",
		nc.Rank(), nc.Size(), j.Joiners, st.done, nc.Size(), j.Epoch)
	return nil
}

// grow tries to take in k processes after iteration done. It returns the
// grown Comm, or nil if the growth failed and the run goes on with the
// ranks it has (the failure is recorded and logged), or an error if the
// run must stop (ctx is done).
func (r *elasticRun) grow(ctx context.Context, k, done int) (comm.Comm, error) {
	start := time.Now()
	r.epochs++
	epoch := r.epochs
	nc, err := r.el.Grow(ctx, r.c, k, epoch)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("pagerank: elastic: rank %d of %d: growing by %d: %w", r.c.Rank(), r.c.Size(), k, err)
		}
		r.out.Joins = append(r.out.Joins, Join{Epoch: epoch, Iteration: done, Joiners: k, Ranks: r.c.Size(), Took: time.Since(start), Err: err})
		r.logf("pagerank: elastic: rank %d of %d: %d process(es) could not join after iteration %d (epoch %d); going on with %d ranks: %v",
			r.c.Rank(), r.c.Size(), k, done, epoch, r.c.Size(), err)
		return nil, nil
	}
	r.out.Joins = append(r.out.Joins, Join{Epoch: epoch, Iteration: done, Joiners: k})
	i := len(r.out.Joins) - 1
	r.pend(start, func(d time.Duration) { r.out.Joins[i].Took = d })
	return nc, nil
}

// attempt loads and prepares PageRank on r.c, seeds it from st (when not
// nil), and iterates to the end or to a growth. It returns the state the
// rank holds when it stops (nil if the iterations did not start), and the
// grown Comm if processes joined.
func (r *elasticRun) attempt(ctx context.Context, st *elasticState) (*Result, *elasticState, comm.Comm, error) {
	c, cfg, el := r.c, r.cfg, r.el
	share, err := el.Load(ctx, c.Rank(), c.Size())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("pagerank: elastic: rank %d of %d: loading the input: %w", c.Rank(), c.Size(), err)
	}
	run, res, err := preparePageRank(ctx, c, share, cfg)
	if err != nil || run == nil {
		return res, nil, nil, err
	}
	growing := el.Grow != nil
	if growing {
		run.scalars = append(run.scalars, 0) // prJoiners: rank 0's count of waiting processes
	}
	done := 0
	if st != nil {
		if err := seedElastic(ctx, c, run, res, st); err != nil {
			return nil, nil, nil, err
		}
		done = st.done
	}
	now := &elasticState{home: run.net.Home(), cur: run.up.cur, done: done}
	r.restarted()
	before := c.Stats().Snapshot()
	last := func() bool {
		if cfg.Iterations > 0 {
			return now.done >= cfg.Iterations
		}
		return now.done >= cfg.MaxIter || run.residual < cfg.threshold(res.NumVertices)
	}
	joiners := 0
	step := func(ctx context.Context) (time.Duration, error) {
		if growing {
			run.scalars[prJoiners] = 0
			if c.Rank() == 0 && el.Pending != nil {
				run.scalars[prJoiners] = float64(min(max(el.Pending(c), 0), maxJoiners))
			}
		}
		compute, err := run.step(ctx)
		res.Residual, res.Total, res.GatheredColumns = run.residual, run.total, run.gathered()
		if err != nil {
			return compute, err
		}
		now.done++
		if !growing || last() {
			return compute, nil
		}
		k := run.scalars[prJoiners]
		if !(k >= 0 && k <= maxJoiners) || k != math.Trunc(k) {
			return compute, fmt.Errorf("pagerank: elastic: %v processes wait to join, says rank 0", k)
		}
		if joiners = int(k); joiners == 0 {
			return compute, nil
		}
		return compute, errJoinersWait
	}
	for {
		left := cfg
		if cfg.Iterations > 0 {
			left.Iterations = cfg.Iterations - now.done
		} else {
			left.MaxIter = cfg.MaxIter - now.done
		}
		if !(left.Iterations > 0 || cfg.Iterations == 0 && left.MaxIter > 0) {
			break
		}
		err = iterate(ctx, left, now.done, res, step)
		if !errors.Is(err, errJoinersWait) {
			if err != nil {
				return nil, now, nil, err
			}
			break
		}
		nc, err := r.grow(ctx, joiners, now.done)
		if err != nil {
			return nil, now, nil, err
		}
		if nc != nil {
			return nil, now, nc, nil
		}
		// The growth failed: go on with the ranks there are.
	}
	res.Iterations = now.done
	after := c.Stats().Snapshot()
	for phase, pc := range after {
		res.Traffic.Add(pc.Sub(before[phase]))
	}
	res.Scores, err = homeToBlock(ctx, c, res.Part, run.net.Home(), run.up.cur)
	if err != nil {
		return nil, now, nil, err
	}
	return res, now, nil, nil
}

// prJoiners is the position of the count of waiting processes among an
// elastic iteration's scalars (after PageRank's own).
const prJoiners = numPRScalars

// seedElastic replaces the uniform start of run by the ranks st holds
// (every survivor's), 1/n for the vertices nobody holds, scaled to sum to
// 1 if there are such vertices, and delivers r_u/d(u) to the in-sets and
// the dangling mass.
func seedElastic(ctx context.Context, c comm.Comm, run *prRun, res *Result, st *elasticState) error {
	wrap := func(what string, err error) error {
		return fmt.Errorf("pagerank: elastic: rank %d of %d: reseeding the ranks: %s: %w", c.Rank(), c.Size(), what, err)
	}
	p, rank, part := c.Size(), c.Rank(), res.Part
	n := res.NumVertices
	// Held values to the block owners.
	send := make([][]byte, p)
	for i, v := range st.home {
		if v < 0 || v >= n {
			return wrap("held values", fmt.Errorf("vertex %d outside [0, %d)", v, n))
		}
		d := part.Owner(v)
		send[d] = binary.LittleEndian.AppendUint64(send[d], uint64(v))
		send[d] = binary.LittleEndian.AppendUint64(send[d], math.Float64bits(st.cur[i]))
	}
	recv, err := c.Alltoallv(ctx, PhasePageRankElasticCarry, send, nil)
	if err != nil {
		return wrap("sending held values", err)
	}
	first, cnt := part.First(rank), part.Count(rank)
	block := make([]float64, cnt)
	for l := range block {
		block[l] = math.NaN() // nobody holds it (yet)
	}
	if err := eachBlockRecord(recv, 16, first, cnt, func(_ int, l int64, rec []byte) {
		block[l] = math.Float64frombits(binary.LittleEndian.Uint64(rec[8:]))
	}); err != nil {
		return wrap("held values", err)
	}
	uniform := 1 / float64(n)
	mass := []float64{0, 0} // Σ r, and how many vertices nobody held
	for l, x := range block {
		if math.IsNaN(x) {
			block[l] = uniform
			mass[1]++
		}
		mass[0] += block[l]
	}
	if err := c.AllreduceFloat64(ctx, PhasePageRankElasticMass, mass, comm.Sum); err != nil {
		return wrap("total mass", err)
	}
	if !(mass[0] > 0) {
		return wrap("total mass", fmt.Errorf("%v is not positive", mass[0]))
	}
	if mass[1] > 0 {
		// Values were lost: the restart vector is renormalised. After a
		// growth every value was held and moves to its new home exactly.
		for l := range block {
			block[l] /= mass[0]
		}
	}
	// The new homes ask the block owners for their values.
	home := run.net.Home()
	asked := make([][]int, p) // home indices, in the order asked of each owner
	ask := make([][]byte, p)
	for i, v := range home {
		d := part.Owner(v)
		asked[d] = append(asked[d], i)
		ask[d] = binary.LittleEndian.AppendUint64(ask[d], uint64(v))
	}
	questions, err := c.Alltoallv(ctx, PhasePageRankElasticAsk, ask, nil)
	if err != nil {
		return wrap("asking for values", err)
	}
	answers := make([][]byte, p)
	if err := eachBlockRecord(questions, 8, first, cnt, func(s int, l int64, _ []byte) {
		answers[s] = binary.LittleEndian.AppendUint64(answers[s], math.Float64bits(block[l]))
	}); err != nil {
		return wrap("asking for values", err)
	}
	got, err := c.Alltoallv(ctx, PhasePageRankElasticAnswer, answers, nil)
	if err != nil {
		return wrap("answering", err)
	}
	cur := run.up.cur
	for d, m := range got {
		if len(m) != 8*len(asked[d]) {
			return wrap("answers", fmt.Errorf("%d bytes from rank %d for %d vertices", len(m), d, len(asked[d])))
		}
		for k, i := range asked[d] {
			cur[i] = math.Float64frombits(binary.LittleEndian.Uint64(m[8*k:]))
		}
	}
	// One reduce without an update: the homes hand out r/d to the in-sets
	// and sum the dangling mass and the total.
	seed := &prSeed{cur: cur, deg: run.up.deg, scalars: run.scalars}
	clear(run.y)
	if err := run.net.ReduceScalars(ctx, run.y, run.x, run.scalars, seed.apply); err != nil {
		return wrap("handing out the ranks", err)
	}
	if seed.mismatch {
		return wrap("handing out the ranks", errors.New("the allreduce changed its home list"))
	}
	run.danglingMass, run.total = run.scalars[prDangling], run.scalars[prTotal]
	return nil
}

// prSeed is the apply of the reseeding reduce: r/d for every home vertex
// (0 if dangling), with the dangling mass and the total as scalars.
type prSeed struct {
	cur, deg, scalars []float64
	mismatch          bool
}

func (s *prSeed) apply(_ []int64, sums []float64) {
	if len(sums) != len(s.cur) {
		s.mismatch = true
		return
	}
	var dangling, total float64
	for i, v := range s.cur {
		total += v
		if d := s.deg[i]; d != 0 {
			sums[i] = v / d
		} else {
			dangling += v
			sums[i] = 0
		}
	}
	s.scalars[prL1], s.scalars[prDangling], s.scalars[prTotal] = 0, dangling, total
}

// eachBlockRecord calls f(s, l, rec) for every record rec of size bytes in
// the messages recv[s], each record starting with a vertex id whose index
// in this rank's block [first, first+cnt) is l. It fails on a message that
// is not whole records, or a vertex outside the block.
func eachBlockRecord(recv [][]byte, size int, first int64, cnt int, f func(s int, l int64, rec []byte)) error {
	for s, m := range recv {
		if len(m)%size != 0 {
			return fmt.Errorf("%d bytes from rank %d", len(m), s)
		}
		for i := 0; i < len(m); i += size {
			v := int64(binary.LittleEndian.Uint64(m[i:]))
			if v < first || v >= first+int64(cnt) {
				return fmt.Errorf("vertex %d from rank %d is not in this rank's block", v, s)
			}
			f(s, v-first, m[i:i+size])
		}
	}
	return nil
}
