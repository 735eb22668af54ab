package launch

// The job as the per-rank drivers take it (graph500.RunJob,
// pagerank.RunJob): a function that runs a rank's work on this process's
// ranks, and the size they are told.

import (
	"context"
	"io"

	"github.com/graphrun/graphrun/comm"
)

// Runner runs fn on this process's ranks (RunRanks), the TCP transport's
// log lines going to stderr.
func (p Plan) Runner(stderr io.Writer) func(ctx context.Context, fn func(context.Context, comm.Comm) error) error {
	return func(ctx context.Context, fn func(context.Context, comm.Comm) error) error {
		return p.RunRanks(ctx, stderr, fn)
	}
}

// JobSize is the size a per-rank driver is told: the logical ranks of a
// TCP or MPI job (its processes over the replicas, which is what a rank's
// Comm has), 0 for in-process ranks (whose count the driver's
// configuration holds).
func (p Plan) JobSize() int {
	if p.MultiProcess() {
		return p.Job.LogicalSize()
	}
	return 0
}
