//go:build !mpi

package launch

import (
	"context"
	"errors"
	"io"

	"github.com/graphrun/graphrun/comm"
)

// MPIBuilt says that this graphrun has no MPI backend (built without the
// tag mpi): Transport MPI is refused by NewPlan, with mpiBuildHint.
const MPIBuilt = false

// runMPI reports that this graphrun cannot run MPI ranks.
func runMPI(context.Context, Job, io.Writer, func(ctx context.Context, c comm.Comm) error) error {
	return errors.New("this graphrun was built without the MPI backend; " + mpiBuildHint)
}
