package comm

// Blame: which rank a failure is the fault of, for every multi-process
// backend (comm/tcp, comm/mpi) and the launchers (comm/launch), so that a
// job's error names the rank at fault whichever transport carried it.

import (
	"errors"
	"fmt"
	"strings"
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

// JobError is a launcher's error for a job whose ranks ended with errs (nil:
// the rank's function returned nil), led by rank primary's, whose failure
// caused the others' (errs[primary] must not be nil): "rank P: <error>",
// then the errors of the other ranks that failed on their own, then, in one
// line, the ranks that were only aborted as a consequence (aborted(r)).
func JobError(errs []error, primary int, aborted func(r int) bool) error {
	parts := []error{fmt.Errorf("rank %d: %w", primary, errs[primary])}
	var abortedRanks []string
	for r, err := range errs {
		switch {
		case r == primary || err == nil:
		case aborted(r):
			abortedRanks = append(abortedRanks, fmt.Sprint(r))
		default:
			parts = append(parts, fmt.Errorf("rank %d: %w", r, err))
		}
	}
	if len(abortedRanks) > 0 {
		noun := "rank"
		if len(abortedRanks) > 1 {
			noun = "ranks"
		}
		parts = append(parts, fmt.Errorf("%s %s aborted as a consequence", noun, strings.Join(abortedRanks, ", ")))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return errors.Join(parts...)
}
