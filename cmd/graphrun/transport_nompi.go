//go:build !mpi

package main

import (
	"context"
	"errors"
	"io"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/launch"
)

// mpiBuilt says that this graphrun has no MPI backend (built without the
// tag mpi): --transport mpi is refused by plan, with mpiBuildHint.
const mpiBuilt = false

// runMPI reports that this graphrun cannot run MPI ranks.
func runMPI(context.Context, launch.Job, io.Writer, func(ctx context.Context, c comm.Comm) error) error {
	return errors.New("this graphrun was built without the MPI backend; " + mpiBuildHint)
}
