package bench

// The two ways the dense allreduce benchmark calls an algorithm: every
// rank on its own vector (the collective of Zhang and Qiu §IV-E and Li et
// al. §2.2), or through a shared variable to which several tasks per rank
// commit (Li et al. §3: the rank reduces its tasks' vectors locally, then
// one allreduce runs across ranks).

import (
	"context"
	"sync"

	"github.com/graphrun/graphrun/allreduce/hypercube"
	"github.com/graphrun/graphrun/comm"
)

// denseCall is one algorithm's allreduce of one rank, as the benchmark
// times it. run is one collective call, after refill; result is the last
// call's sum.
type denseCall interface {
	warmups() int // untimed calls before the timed ones
	refill()
	run(ctx context.Context) error
	result() []float64
	close()
}

// newDenseCall prepares rank c.Rank()'s calls of alg on vectors of n
// elements: directly, or with cfg.Tasks tasks committing to a shared
// variable.
func newDenseCall(ctx context.Context, c comm.Comm, alg hypercube.Algorithm, n int, cfg DenseConfig) (denseCall, error) {
	if cfg.Tasks > 0 {
		return newSharedCall(ctx, c, alg, n, cfg)
	}
	d, err := hypercube.New[float64](ctx, c, alg, cfg.Options)
	if err != nil {
		return nil, err
	}
	call := &directCall{d: d, me: c.Rank(), vec: make([]float64, n)}
	call.refill()
	return call, nil
}

// directCall is every rank calling the allreduce on its vector, which the
// call replaces by the sum.
type directCall struct {
	d   *hypercube.Dense[float64]
	me  int
	vec []float64
}

func (c *directCall) warmups() int { return 1 }

func (c *directCall) refill() {
	for i := range c.vec {
		c.vec[i] = Value(c.me, i)
	}
}

func (c *directCall) run(ctx context.Context) error {
	return c.d.Allreduce(ctx, c.vec, hypercube.Sum[float64])
}

func (c *directCall) result() []float64 { return c.vec }
func (c *directCall) close()            {}

// sharedCall is a shared variable of a manager on the rank: each task
// commits its vector (task t of rank r holds Value(r·tasks+t, ·)) and
// waits for the global sum. A call is over when every task of the rank
// has its result, so the rank's Comm is free again between calls (for
// the benchmark's barriers and agreements on the times).
type sharedCall struct {
	m     *hypercube.Manager
	tasks [][]float64
	sum   []float64
	errs  []error
}

// sharedKey is the benchmark's shared variable: one at a time, reused.
const sharedKey = "bench.dense.vector"

func newSharedCall(ctx context.Context, c comm.Comm, alg hypercube.Algorithm, n int, cfg DenseConfig) (*sharedCall, error) {
	m, err := hypercube.NewManager(ctx, c, hypercube.ManagerOptions{Algorithm: alg, Topology: cfg.Options.Topology,
		Phase: cfg.Options.Phase, Workers: cfg.Options.Workers, Pieces: cfg.Options.Pieces})
	if err != nil {
		return nil, err
	}
	call := &sharedCall{m: m, tasks: make([][]float64, cfg.Tasks), errs: make([]error, cfg.Tasks)}
	for t := range call.tasks {
		call.tasks[t] = make([]float64, n)
		for i := range call.tasks[t] {
			call.tasks[t][i] = Value(c.Rank()*cfg.Tasks+t, i)
		}
	}
	return call, nil
}

// warmups is 2: the first variable also makes the manager's allreduce (a
// collective with an agreement check), which the volume of a call leaves
// out.
func (c *sharedCall) warmups() int { return 2 }

// refill does nothing: tasks commit their vectors read-only.
func (c *sharedCall) refill() {}

func (c *sharedCall) run(ctx context.Context) error {
	v, err := hypercube.Init(c.m, sharedKey, len(c.tasks), hypercube.Sum[float64])
	if err != nil {
		return err
	}
	sums := make([][]float64, len(c.tasks))
	var wg sync.WaitGroup
	for t := range c.tasks {
		wg.Go(func() {
			if c.errs[t] = v.Commit(c.tasks[t]); c.errs[t] == nil {
				sums[t], c.errs[t] = v.Get(ctx)
			}
		})
	}
	wg.Wait()
	for _, err := range c.errs {
		if err != nil {
			return err
		}
	}
	c.sum = sums[0]
	return nil
}

func (c *sharedCall) result() []float64 { return c.sum }

func (c *sharedCall) close() { c.m.Close() }
