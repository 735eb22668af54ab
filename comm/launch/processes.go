package launch

// A job whose ranks are processes, as the process that plans it sees it:
// whether they are, how many of them share this machine, and the Procs
// launch of this very executable as the job's rank processes.

import (
	"context"
	"fmt"
	"io"
	"os"
)

// OfProcesses reports whether the job's ranks are processes: a Procs
// launch, or one rank of a TCP or MPI job, not in-process ranks.
func (p Plan) OfProcesses() bool { return p.Procs > 0 || p.MultiProcess() }

// LocalProcesses is the number of the job's processes on this machine,
// each with a runtime of its own: LocalRanks in a job of processes, 0 for
// in-process ranks.
func (p Plan) LocalProcesses() int {
	if !p.OfProcesses() {
		return 0
	}
	return p.LocalRanks()
}

// LaunchSelf runs this executable as the job's Procs rank processes, each
// with the arguments args gives it (Local.Args), in this process's
// environment, and waits for them (LaunchLocal).
func (p Plan) LaunchSelf(ctx context.Context, args func(rank, size int) []string, stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding graphrun's executable: %w", err)
	}
	return p.LaunchLocal(ctx, exe, args, os.Environ(), stdout, stderr)
}
