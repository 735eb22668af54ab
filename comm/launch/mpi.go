//go:build mpi

package launch

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/mpi"
	"github.com/graphrun/graphrun/internal/interrupt"
)

// MPIBuilt says that this graphrun has the MPI backend (build tag mpi).
const MPIBuilt = true

// runMPI runs fn as this process's rank of the MPI job: it starts MPI,
// checks that MPI agrees with the launcher's variables NewPlan read, runs
// the rank (comm/mpi.Run) and finalises MPI, waiting at most the peer
// timeout for the other processes. A failed rank aborts the job first, so
// every other rank fails at once, naming it.
func runMPI(ctx context.Context, job Job, stderr io.Writer, fn func(ctx context.Context, c comm.Comm) error) error {
	w, err := mpi.Init()
	if err != nil {
		return fmt.Errorf("rank %d of %d: %w", job.Rank, job.Size, err)
	}
	if w.Rank != job.Rank || w.Size != job.Size {
		err = fmt.Errorf("rank %d of %d: MPI says this process is rank %d of %d, but the %s launcher's variables say rank %d of %d",
			w.Rank, w.Size, w.Rank, w.Size, job.Source, job.Rank, job.Size)
	} else {
		err = mpi.Run(ctx, mpi.Config{PeerTimeout: job.PeerTimeout}, fn)
	}
	var blamed *comm.BlamedError
	if ctx.Err() != nil && errors.As(err, &blamed) {
		// mpirun stops every rank once one dies, so a survivor is
		// interrupted too; with no graphrun launcher to report the job,
		// it says which rank failed before "graphrun: interrupted".
		interrupt.Explain(ctx, "graphrun: "+err.Error())
	}
	if ferr := mpi.Finalize(job.PeerTimeout); ferr != nil {
		if err == nil {
			return fmt.Errorf("rank %d of %d: %w", w.Rank, w.Size, ferr)
		}
		fmt.Fprintf(stderr, "graphrun: rank %d of %d: %v\n", w.Rank, w.Size, ferr)
	}
	return err
}
