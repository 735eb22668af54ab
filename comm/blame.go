package comm

// Blame: which rank a failure is the fault of, for every multi-process
// backend (comm/tcp, comm/mpi) and the launchers (comm/launch), so that a
// job's error names the rank at fault whichever transport carried it.

import (
	"errors"
	"fmt"
)

// PeerError blames a failure on a rank: one that failed, was lost, broke
// the protocol or stopped answering.
type PeerError struct {
	Rank int
	Err  error
}

func (e *PeerError) Error() string { return fmt.Sprintf("rank %d: %v", e.Rank, e.Err) }

// Unwrap returns the underlying error.
func (e *PeerError) Unwrap() error { return e.Err }

// BlamedError is a rank's failure that another rank caused: it failed, was
// lost or stopped answering.
type BlamedError struct {
	Rank, Size int // the rank that reports the failure, of the job's size
	Culprit    int // the rank it blames
	Err        error
}

func (e *BlamedError) Error() string {
	return fmt.Sprintf("rank %d of %d: the job failed because of rank %d: %v", e.Rank, e.Size, e.Culprit, e.Err)
}

// Unwrap returns Err.
func (e *BlamedError) Unwrap() error { return e.Err }

// Blame prefixes a rank's error with "rank R of P:" and, if the error
// blames another rank (a *PeerError somewhere in its chain), says which,
// as a *BlamedError.
func Blame(rank, size int, err error) error {
	var pe *PeerError
	if errors.As(err, &pe) && pe.Rank >= 0 && pe.Rank != rank {
		return &BlamedError{Rank: rank, Size: size, Culprit: pe.Rank, Err: err}
	}
	return fmt.Errorf("rank %d of %d: %w", rank, size, err)
}
