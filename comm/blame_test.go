package comm_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

// TestBlame: a failure that names another rank (a *PeerError anywhere in
// its chain, from any transport) becomes a *BlamedError naming it; one
// that names this rank or none is only prefixed.
func TestBlame(t *testing.T) {
	cause := &comm.PeerError{Rank: 3, Err: errors.New("connection lost")}
	err := comm.Blame(1, 4, fmt.Errorf("kernel 1: %w: %w", comm.ErrAborted, cause))
	var be *comm.BlamedError
	if !errors.As(err, &be) || be.Culprit != 3 || be.Rank != 1 || be.Size != 4 || !errors.Is(err, comm.ErrAborted) {
		t.Fatalf("Blame = %#v", err)
	}
	if got, want := err.Error(), "rank 1 of 4: the job failed because of rank 3: kernel 1: comm: job aborted: rank 3: connection lost"; got != want {
		t.Errorf("Blame = %q, want %q", got, want)
	}
	for _, e := range []error{errors.New("bad input"), &comm.PeerError{Rank: 1, Err: errors.New("own fault")}, &comm.PeerError{Rank: -1, Err: errors.New("nobody")}} {
		err := comm.Blame(1, 4, e)
		if errors.As(err, &be) || err.Error() != "rank 1 of 4: "+e.Error() {
			t.Errorf("Blame(%v) = %v, want only the prefix", e, err)
		}
	}
}

// TestJobError: the rank at fault leads, the ranks that failed on their own
// follow, and the ranks only aborted are listed in one line.
func TestJobError(t *testing.T) {
	aborted := fmt.Errorf("call: %w", comm.ErrAborted)
	errs := []error{aborted, errors.New("disk full"), nil, errors.New("bad input"), aborted}
	isAborted := func(r int) bool { return errors.Is(errs[r], comm.ErrAborted) }
	err := comm.JobError(errs, 3, isAborted)
	want := "rank 3: bad input\nrank 1: disk full\nranks 0, 4 aborted as a consequence"
	if err == nil || err.Error() != want {
		t.Errorf("JobError = %q, want %q", err, want)
	}
	if err := comm.JobError([]error{nil, errors.New("lost")}, 1, isAborted); err == nil || err.Error() != "rank 1: lost" {
		t.Errorf("JobError of one failure = %q", err)
	}
	errs = []error{errors.New("first"), aborted}
	if err := comm.JobError(errs, 0, isAborted); err == nil || err.Error() != "rank 0: first\nrank 1 aborted as a consequence" {
		t.Errorf("JobError = %q", err)
	}
}
