package main

import (
	"io"

	"github.com/graphrun/graphrun/internal/progress"
)

// progressOut is where a run's progress goes: stderr, except off a
// terminal in a process that does not report the job (a TCP or MPI rank
// other than 0, a replica of rank 0), whose lines would repeat rank 0's.
func progressOut(stderr io.Writer, plan jobPlan) io.Writer {
	if plan.Reports() || progress.IsTerminal(stderr) {
		return stderr
	}
	return io.Discard
}
