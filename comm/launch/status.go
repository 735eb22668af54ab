package launch

// The exit status a job decides for one of its processes: a rank that
// Local started, which failed because of another rank, or the launcher of
// a Procs job (Local), whose status is that of the rank at fault.

import "errors"

// JobStatus is the exit status the job decides for a process that failed
// with err: ExitBlamed for a rank Local started whose job failed because
// of another rank (BlamedExit: Local then names that other one), and for
// Local's own failure (an *ExitError) the status of the rank that failed
// first. ok is false for any other error.
func JobStatus(err error, env Lookup) (status int, ok bool) {
	if BlamedExit(err, env) {
		return ExitBlamed, true
	}
	var xe *ExitError
	if errors.As(err, &xe) {
		return xe.ExitCode(), true
	}
	return 0, false
}
