package graph500

// The benchmark on one process's ranks of a job of any transport: the
// in-process ranks (Run, RunFile) or this process's rank of a job of
// processes, started by a Runner (comm/launch's Plan.RunRanks), whose
// size the configuration takes.

import (
	"context"
	"errors"
	"io/fs"
	"sync"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/results"
)

// Runner runs fn on this process's ranks of a job.
type Runner func(ctx context.Context, fn func(ctx context.Context, c comm.Comm) error) error

// RunJob runs the benchmark on a Kronecker graph: on cfg.Ranks in-process
// ranks (Run) when size is 0, else on this process's rank of a job of
// size processes, run by run. It returns the report, or nil on a rank
// other than 0.
func RunJob(ctx context.Context, cfg Config, size int, run Runner) (*results.Graph500Run, error) {
	if size == 0 {
		return Run(ctx, cfg)
	}
	cfg.Ranks = size
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	return runJob(ctx, run, func(ctx context.Context, c comm.Comm) (*results.Graph500Run, error) { return RunRank(ctx, c, cfg) })
}

// runJob runs rank on this process's ranks and returns rank 0's report,
// nil if rank 0 is not among them.
func runJob(ctx context.Context, run Runner, rank func(context.Context, comm.Comm) (*results.Graph500Run, error)) (*results.Graph500Run, error) {
	var mu sync.Mutex
	var rep *results.Graph500Run
	err := run(ctx, func(ctx context.Context, c comm.Comm) error {
		r, err := rank(ctx, c)
		if r != nil {
			mu.Lock()
			rep = r
			mu.Unlock()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// RunFileJob runs the benchmark on a file on this process's ranks: those
// run runs, which are cfg.Ranks when size is 0, else size processes in
// all. It returns the report, or nil on a rank other than 0.
func RunFileJob(ctx context.Context, cfg FileConfig, size int, run Runner) (*results.Graph500Run, error) {
	if size > 0 {
		cfg.Ranks = size
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	return runJob(ctx, run, func(ctx context.Context, c comm.Comm) (*results.Graph500Run, error) { return RunFileRank(ctx, c, cfg) })
}

// IsInputError reports whether err is the input's fault rather than the
// run's: a malformed edge list, a file that cannot be opened, or a run the
// input cannot make (InputError).
func IsInputError(err error) bool {
	var le *edgelist.EdgeListError
	var pe *fs.PathError
	var ie *InputError
	return errors.As(err, &le) || errors.As(err, &pe) || errors.As(err, &ie)
}
