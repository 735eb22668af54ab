package launch

// The run of a process that joins a running elastic TCP job (pagerank
// --join; Zhang and Qiu §V-C, a new task taken in): join
// through rank 0's lobby (Plan.Join), then run in step with the job.

import (
	"context"
	"errors"

	"github.com/graphrun/graphrun/comm"
)

// JoinAndRun runs a process that joins the running elastic job at the
// plan's coordinator (command's --join): it waits in rank 0's lobby until
// the job takes it in between two iterations (Join, presenting tag), then
// runs fn on its Comm in the grown job. It logs each step to logf, naming
// the input; a job that ends before it takes the process in is not an
// error.
func (p Plan) JoinAndRun(ctx context.Context, command, input, tag string, logf func(format string, args ...any), fn func(ctx context.Context, c comm.Elastic) error) error {
	coordinator := p.Job.Coordinator
	logf("%s --join: asking the job at %s to take this process in (%s)", command, coordinator, input)
	c, err := p.Join(ctx, tag, logf)
	if errors.Is(err, ErrJobEnded) {
		logf("%s --join: the job at %s ended before it took this process in: nothing to do", command, coordinator)
		return nil
	}
	if err != nil {
		return err
	}
	logf("%s --join: joined as rank %d of %d (epoch %d)", command, c.Rank(), c.Size(), c.Epoch())
	return fn(ctx, c)
}
