package comm

// Elasticity as an optional capability of a transport (Zhang and Qiu §II
// failure exposure, §V elastic topology update, §III ramp-up mode): a Comm
// whose job can go on over its survivors after losing ranks, or take in
// processes that ask to join between two collectives. comm/tcp implements
// it; comm/inproc and comm/mpi do not (MPI's process set is fixed). Kernels
// (pagerank.RunElastic) and the command line test for it with AsElastic
// instead of naming a backend.

import (
	"context"
	"errors"
	"fmt"
)

// ErrNotElastic is wrapped by the errors of Elastic.Shrink when the failure
// cannot be recovered from by shrinking the job: the coordinator (rank 0)
// was lost, the failure blames no other rank, or the job is replicated
// (its replicas cover losses).
var ErrNotElastic = errors.New("comm: the failure cannot be recovered from by shrinking the job")

// Elastic is a Comm whose job can change size. Every method but Abort and
// Close is collective over the ranks that take part, as documented on each.
type Elastic interface {
	Comm

	// Epoch is the number of the job's last topology change (0: none yet;
	// each Shrink or Grow sets its own epoch argument).
	Epoch() int

	// Shrink returns a Comm over the survivors of this one, which failed
	// with cause (a failed call's error naming the lost rank). Every
	// survivor calls it with the same epoch, one more than the job's last
	// topology change. On success this Comm is closed; on failure it is
	// left as it is (the caller closes it). The survivors keep their order.
	// Errors wrap ErrNotElastic when shrinking cannot help.
	Shrink(ctx context.Context, cause error, epoch int) (Elastic, error)

	// Grow returns a Comm over this one's ranks and joiners processes that
	// wait to join (see AcceptJoins). Every rank calls it with the same
	// joiners (rank 0's PendingJoins, shared) and epoch. The ranks keep
	// their numbers; the joiners get ranks Size() up. On success this Comm
	// is closed; on failure it is left as it was, still usable.
	Grow(ctx context.Context, joiners, epoch int) (Elastic, error)

	// AcceptJoins lets processes that present tag (what the job computes)
	// ask to join, on rank 0; it is an error elsewhere. The lobby passes on
	// to the Comms Shrink and Grow return.
	AcceptJoins(tag string) error

	// PendingJoins is the number of processes waiting to join (0 on ranks
	// other than 0, and before AcceptJoins).
	PendingJoins() int

	// Abort fails the job on every rank, blaming this one, with err as the
	// reason. It does not close the Comm.
	Abort(err error)

	// Close leaves the job and releases the Comm's resources.
	Close() error
}

// Wrapper is a Comm that forwards to another over the same ranks (a
// network model, a call counter): Unwrap returns the Comm underneath.
// Sub is not one: its group is not its parent's job.
type Wrapper interface {
	Unwrap() Comm
}

// AsElastic returns c as an Elastic, or the Elastic underneath the
// Wrappers c is made of, and false when there is none (an in-process or an
// MPI job, a Sub). A Comm returned by a wrapped Elastic's Shrink or Grow is
// the bare transport's, without the wrappers.
func AsElastic(c Comm) (Elastic, bool) {
	for c != nil {
		if e, ok := c.(Elastic); ok {
			return e, true
		}
		w, ok := c.(Wrapper)
		if !ok {
			break
		}
		c = w.Unwrap()
	}
	return nil, false
}

// Shrink is Elastic.Shrink on c or the Elastic underneath its wrappers
// (AsElastic), in the form of pagerank.Elastic's hook; on a Comm that is not
// elastic it fails with an error wrapping ErrNotElastic and cause.
func Shrink(ctx context.Context, c Comm, cause error, epoch int) (Comm, error) {
	e, ok := AsElastic(c)
	if !ok {
		return nil, fmt.Errorf("%w: %T is not elastic: %w", ErrNotElastic, c, cause)
	}
	return e.Shrink(ctx, cause, epoch)
}

// Grow is Elastic.Grow on c or the Elastic underneath its wrappers, in the
// form of pagerank.Elastic's hook; it fails on a Comm that is not elastic.
func Grow(ctx context.Context, c Comm, joiners, epoch int) (Comm, error) {
	e, ok := AsElastic(c)
	if !ok {
		return nil, fmt.Errorf("comm: %T is not elastic: it cannot grow", c)
	}
	return e.Grow(ctx, joiners, epoch)
}

// PendingJoins is Elastic.PendingJoins on c or the Elastic underneath its
// wrappers, and 0 on a Comm that is not elastic.
func PendingJoins(c Comm) int {
	if e, ok := AsElastic(c); ok {
		return e.PendingJoins()
	}
	return 0
}
