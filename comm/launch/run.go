package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/tcp"
)

// abortLinger is how long a failed rank keeps its connections open after
// sending its abort notices.
const abortLinger = time.Second

// RunTCP joins the TCP job as job.Rank, runs fn on the rank's Comm and
// leaves the job. If fn fails, the job is aborted first, so that every peer
// fails at once with an error naming this rank (or the rank this rank
// blames), and the connections stay open for a second so that the peers
// learn that reason before they see them close. The returned error starts
// with "rank R of P:" and, when the failure is blamed on another rank (it
// was lost, or it failed), names that rank. logf, if not nil, receives
// comm/tcp's log lines (refused connections, addresses, aborts).
func RunTCP(ctx context.Context, job Job, logf func(format string, args ...any), fn func(ctx context.Context, c comm.Comm) error) error {
	if err := job.checkLauncher(os.Getppid()); err != nil {
		return err
	}
	cfg, err := job.TCPConfig(logf)
	if err != nil {
		return err
	}
	rank, size := job.Rank, job.Size
	if job.Replicas > 1 {
		rank, size = job.LogicalRank(), job.LogicalSize()
	}
	c, err := tcp.Connect(ctx, cfg)
	if err != nil {
		err = fmt.Errorf("rank %d of %d: joining the job at %s: %w", job.Rank, job.Size, job.Coordinator, err)
		if job.JobIDFromToken && strings.Contains(err.Error(), "another job") {
			// comm/tcp saw another job id; with ids derived from the
			// token, that means another token.
			err = fmt.Errorf("%w: wrong token? The job id is derived from %s when %s is not set, "+
				"so this rank's token differs from the coordinator's", err, EnvToken, EnvJob)
		}
		return err
	}
	if err := fn(ctx, c); err != nil {
		c.Abort(err)
		// Keep the connections open a moment: a peer whose write to this
		// rank failed on a closed connection would blame this rank, before
		// reading the abort notice that names the rank at fault. Not when
		// this rank was interrupted (ctx done): it is to exit at once, and
		// the peers learn why from the notice or from their own interrupt.
		if ctx.Err() == nil {
			time.Sleep(min(abortLinger, job.PeerTimeout))
		}
		_ = c.Close()
		err = Blame(rank, size, err)
		if job.Replicas > 1 {
			err = fmt.Errorf("process %d (replica %d): %w", job.Rank, job.Rank/size, err)
		}
		return err
	}
	if err := c.Close(); err != nil && logf != nil {
		logf("rank %d of %d: leaving the job: %v", rank, size, err)
	}
	return nil
}

// Blame prefixes a rank's error with "rank R of P:" and, if the error
// blames another rank (a *comm.PeerError somewhere in its chain, from any
// transport), says which, as a *BlamedError: comm.Blame.
func Blame(rank, size int, err error) error { return comm.Blame(rank, size, err) }

// BlamedError is a rank's failure that another rank caused: comm's.
type BlamedError = comm.BlamedError

// EnvLocal is set to "1" by Local in the environment of the ranks it
// starts: a rank whose job failed because of another rank (a *BlamedError)
// then exits with ExitBlamed instead of 1, so that Local can tell the rank
// at fault from the ranks that failed because of it, whichever exits
// first.
const EnvLocal = "GRAPHRUN_LOCAL_RANK"

// ExitBlamed is the exit status of a rank started by Local whose job failed
// because of another rank. Local reports such a rank as failed with status
// 1 "because of another rank" and never ends with this status itself.
const ExitBlamed = 10

// BlamedExit reports whether err is a failure caused by another rank in a
// process that Local started: it should then exit with ExitBlamed.
func BlamedExit(err error, env Lookup) bool {
	var be *BlamedError
	if !errors.As(err, &be) {
		return false
	}
	v, ok := env(EnvLocal)
	return ok && v == "1"
}
