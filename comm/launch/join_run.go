package launch

// The run of a process that joins a running elastic TCP job (Zhang and
// Qiu §V-C, a new task taken in): join through rank 0's lobby (Plan.Join),
// then run in step with the job.

import (
	"context"
	"errors"
	"fmt"

	"github.com/graphrun/graphrun/comm"
)

// JoinAndRun runs a process that joins the running elastic job at the
// plan's coordinator: it waits in rank 0's lobby until the job takes it in
// between two iterations (Join, presenting tag), then runs fn on its Comm
// in the grown job. It logs each step to logf behind who (what joins, as
// the caller names it), naming the input; the error of a join that failed
// says who too. A job that ends before it takes the process in, or that
// no longer listens at the coordinator (ErrNoJob), is not an error.
func (p Plan) JoinAndRun(ctx context.Context, who, input, tag string, logf func(format string, args ...any), fn func(ctx context.Context, c comm.Elastic) error) error {
	coordinator := p.Job.Coordinator
	logf("%s: asking the job at %s to take this process in (%s)", who, coordinator, input)
	c, err := p.Join(ctx, tag, logf)
	if errors.Is(err, ErrJobEnded) {
		logf("%s: the job at %s ended before it took this process in: nothing to do", who, coordinator)
		return nil
	}
	if errors.Is(err, ErrNoJob) {
		// Rank 0 listens there for as long as its job runs: the job
		// ended, or the address is not a job's (which a refused
		// connection cannot tell apart; the line says so).
		logf("%s: no job listens at %s (it ended, or never ran there: check the address): nothing to do", who, coordinator)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", who, err)
	}
	logf("%s: joined as rank %d of %d (epoch %d)", who, c.Rank(), c.Size(), c.Epoch())
	return fn(ctx, c)
}
