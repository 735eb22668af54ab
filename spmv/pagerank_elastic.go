// This file is elastic PageRank (paper 002 §II, failure exposure, and §V,
// the topology rebuilt by a coordinator after a node is lost, keyed by the
// iteration the survivors reached): PageRank that goes on after losing a
// rank instead of failing the job.
//
// A failed collective returns an error; PageRankElastic then asks the
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
// tolerance (with --iterations, within how far that many iterations get).

package spmv

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
)

// Phase names of elastic recovery.
const (
	PhasePageRankElasticAgree  = "pagerank.elastic.agree"
	PhasePageRankElasticCarry  = "pagerank.elastic.carry"
	PhasePageRankElasticAsk    = "pagerank.elastic.ask"
	PhasePageRankElasticAnswer = "pagerank.elastic.answer"
	PhasePageRankElasticMass   = "pagerank.elastic.mass"
)

// Elastic says how PageRankElastic reloads its input and shrinks its job.
type Elastic struct {
	// Load returns rank's share of the input edges in a job of size ranks
	// (original ids, as PageRank takes them). Required.
	Load func(ctx context.Context, rank, size int) ([]graph.Edge, error)
	// Shrink returns a Comm over the survivors of c, which failed with
	// cause; epoch counts the recoveries from 1. It fails if the loss is
	// not recoverable. Required.
	Shrink func(ctx context.Context, c comm.Comm, cause error, epoch int) (comm.Comm, error)
	// MaxRecoveries bounds the recoveries of one run (default 1).
	MaxRecoveries int
	// Logf, if set, receives one line per recovery.
	Logf func(format string, args ...any)
}

// Recovery is one recovery of an elastic run, as this rank saw it.
type Recovery struct {
	Epoch     int           // 1 for the first recovery
	Iteration int           // the iteration the survivors had completed (their maximum)
	Ranks     int           // ranks after the recovery
	Cause     error         // the failure recovered from
	Took      time.Duration // from the failure to the restarted iteration (shrink, reload, rebuild, reseed)
}

// ElasticResult is PageRankElastic's outcome on one rank.
type ElasticResult struct {
	*PageRankResult
	// Comm is the communicator the result lives on (c, or the last shrunk
	// one); the caller runs TopK and the like on it, and closes it if it
	// is not c.
	Comm       comm.Comm
	Recoveries []Recovery
}

// elasticState is what a rank still holds of the rank vector: the dense
// ids of its home vertices and their current ranks, and the iterations
// it completed.
type elasticState struct {
	home []int64
	cur  []float64
	done int
}

// PageRankElastic is PageRank that survives the loss of ranks other than
// rank 0 (up to el.MaxRecoveries): see the file comment. Every rank calls
// it with the same configuration; the sparse allreduces are supported
// (not AllreduceDense), and after a recovery kylix degrees are designed
// anew for the new rank count.
func PageRankElastic(ctx context.Context, c comm.Comm, cfg PageRankConfig, el Elastic) (*ElasticResult, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.Allreduce == AllreduceDense {
		return nil, fmt.Errorf("%w: elastic PageRank runs on the sparse allreduces, not %s", ErrPageRankConfig, AllreduceDense)
	}
	if el.Load == nil || el.Shrink == nil {
		return nil, fmt.Errorf("%w: elastic PageRank needs Load and Shrink", ErrPageRankConfig)
	}
	maxRec := el.MaxRecoveries
	if maxRec <= 0 {
		maxRec = 1
	}
	out := &ElasticResult{Comm: c}
	var st *elasticState
	var failedAt time.Time
	for {
		res, next, err := elasticAttempt(ctx, c, cfg, el, st, func() {
			if n := len(out.Recoveries); n > 0 && out.Recoveries[n-1].Took == 0 {
				out.Recoveries[n-1].Took = time.Since(failedAt)
			}
		})
		if next != nil {
			st = next
		}
		if err == nil {
			out.PageRankResult, out.Comm = res, c
			return out, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		epoch := len(out.Recoveries) + 1
		if epoch > maxRec {
			return nil, fmt.Errorf("pagerank: elastic: no recovery left after %d: %w", maxRec, err)
		}
		if st == nil {
			return nil, fmt.Errorf("pagerank: elastic: rank %d of %d: the job failed before the iterations began, nothing to recover: %w", c.Rank(), c.Size(), err)
		}
		failedAt = time.Now()
		nc, serr := el.Shrink(ctx, c, err, epoch)
		if serr != nil {
			return nil, fmt.Errorf("pagerank: elastic: rank %d of %d: recovery %d failed: %w (after: %w)", c.Rank(), c.Size(), epoch, serr, err)
		}
		c = nc
		out.Comm = c
		out.Recoveries = append(out.Recoveries, Recovery{Epoch: epoch, Ranks: c.Size(), Cause: err})
		// The survivors agree on the iteration reached: the topology is
		// keyed by it.
		it := []int64{int64(st.done)}
		if err := c.AllreduceInt64(ctx, PhasePageRankElasticAgree, it, comm.Max); err != nil {
			return nil, fmt.Errorf("pagerank: elastic: agreeing on the iteration after recovery %d: %w", epoch, err)
		}
		st.done = int(it[0])
		out.Recoveries[epoch-1].Iteration = st.done
		cfg.Degrees = nil // designed anew for the new rank count
		if el.Logf != nil {
			el.Logf("pagerank: elastic: rank %d of %d: continuing on %d ranks from iteration %d (epoch %d) after: %v",
				c.Rank(), c.Size(), c.Size(), st.done, epoch, err)
		}
	}
}

// elasticAttempt loads and prepares PageRank on c, seeds it from st (when
// not nil), calls started and iterates to the end. It returns the state
// the rank holds when it fails (nil if the iterations did not start).
func elasticAttempt(ctx context.Context, c comm.Comm, cfg PageRankConfig, el Elastic, st *elasticState, started func()) (*PageRankResult, *elasticState, error) {
	edges, err := el.Load(ctx, c.Rank(), c.Size())
	if err != nil {
		return nil, nil, fmt.Errorf("pagerank: elastic: rank %d of %d: loading the input: %w", c.Rank(), c.Size(), err)
	}
	run, res, err := preparePageRank(ctx, c, edges, cfg)
	if err != nil || run == nil {
		return res, nil, err
	}
	done := 0
	if st != nil {
		if err := seedElastic(ctx, c, run, res, st); err != nil {
			return nil, nil, err
		}
		done = st.done
	}
	now := &elasticState{home: run.net.Home(), cur: run.up.cur, done: done}
	started()
	before := c.Stats().Snapshot()
	left := cfg
	if cfg.Iterations > 0 {
		left.Iterations = cfg.Iterations - done
	} else {
		left.MaxIter = cfg.MaxIter - done
	}
	if left.Iterations > 0 || cfg.Iterations == 0 && left.MaxIter > 0 {
		err = iterate(ctx, left, res, func(ctx context.Context) (time.Duration, error) {
			compute, err := run.step(ctx)
			res.Residual, res.Total = run.residual, run.total
			if err == nil {
				now.done++
			}
			return compute, err
		})
		if err != nil {
			return nil, now, err
		}
	}
	res.Iterations = now.done
	after := c.Stats().Snapshot()
	for phase, pc := range after {
		res.Traffic.Add(pc.Sub(before[phase]))
	}
	res.Scores, err = homeToBlock(ctx, c, res.Part, run.net.Home(), run.up.cur)
	if err != nil {
		return nil, now, err
	}
	return res, now, nil
}

// seedElastic replaces the uniform start of run by the ranks st holds
// (every survivor's), 1/n for the vertices nobody holds, scaled to sum to
// 1, and delivers r_u/d(u) to the in-sets and the dangling mass.
func seedElastic(ctx context.Context, c comm.Comm, run *prRun, res *PageRankResult, st *elasticState) error {
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
	for s, m := range recv {
		if len(m)%16 != 0 {
			return wrap("held values", fmt.Errorf("%d bytes from rank %d", len(m), s))
		}
		for i := 0; i < len(m); i += 16 {
			v := int64(binary.LittleEndian.Uint64(m[i:]))
			if v < first || v >= first+int64(cnt) {
				return wrap("held values", fmt.Errorf("vertex %d from rank %d is not in this rank's block", v, s))
			}
			block[v-first] = math.Float64frombits(binary.LittleEndian.Uint64(m[i+8:]))
		}
	}
	uniform := 1 / float64(n)
	mass := []float64{0}
	for l, x := range block {
		if math.IsNaN(x) {
			block[l] = uniform
		}
		mass[0] += block[l]
	}
	if err := c.AllreduceFloat64(ctx, PhasePageRankElasticMass, mass, comm.Sum); err != nil {
		return wrap("total mass", err)
	}
	if !(mass[0] > 0) {
		return wrap("total mass", fmt.Errorf("%v is not positive", mass[0]))
	}
	for l := range block {
		block[l] /= mass[0]
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
	for s, m := range questions {
		if len(m)%8 != 0 {
			return wrap("asking for values", fmt.Errorf("%d bytes from rank %d", len(m), s))
		}
		for i := 0; i < len(m); i += 8 {
			v := int64(binary.LittleEndian.Uint64(m[i:]))
			if v < first || v >= first+int64(cnt) {
				return wrap("asking for values", fmt.Errorf("vertex %d from rank %d is not in this rank's block", v, s))
			}
			answers[s] = binary.LittleEndian.AppendUint64(answers[s], math.Float64bits(block[v-first]))
		}
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
