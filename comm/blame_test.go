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
