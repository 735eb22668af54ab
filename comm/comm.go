// Package comm is graphrun's transport: the small set of collective operations
// that every kernel is written against, so that the same SPMD code runs on
// in-process ranks (comm/inproc), TCP processes or MPI.
//
// The operations are the ones the papers' algorithms need: Alltoallv and
// Allgatherv carry BFS frontiers and routed edges (Lv et al. §III-B, Alg. 1 and
// Alg. 3), small numeric allreduces decide termination (the "reducing" phase of
// Lv et al. Fig. 7), and Bcast/Barrier glue the driver together.
//
// Every call names a phase ("kernel1.route", "bfs.frontier", ...). Backends
// count, per phase, the bytes this rank sent to and received from other ranks
// and the number of point-to-point messages, so that kernels can report their
// communication volume exactly as the paper's breakdown does.
//
// Failure contract: once any rank fails (returns an error, panics, or its
// context is cancelled inside a call) every pending and every later call on
// every rank of the same job returns an error wrapping ErrAborted. A run never
// hangs on a dead peer.
//
// Beyond Comm, a backend may offer optional capabilities, which callers test
// for instead of naming a backend: Elastic (a job that shrinks over its
// survivors and grows by joining processes, Zhang and Qiu §V; comm/tcp), found
// with AsElastic also under Wrappers; GroupExchanger (an Alltoallv among a
// group of ranks only, which Sub uses; comm/tcp, comm/inproc). PeerError,
// Blame and JobError say which rank a failure is the fault of, the same way
// on every transport; package comm/wire holds what the multi-process
// backends share.
//
// References:
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun, "Compression
//     and Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems", arXiv preprint (Institute of Computing
//     Technology, CAS), 2012.
//   - Bingjing Zhang and Judy Qiu, "Efficient, Fault-tolerant and Elastic
//     Allreduce Framework for Iterative Algorithms", Indiana University
//     Bloomington, technical report (undated).
package comm

import (
	"context"
	"errors"

	"github.com/graphrun/graphrun/internal/enum"
)

// ErrAborted is wrapped by every error a Comm returns after the job has failed.
var ErrAborted = errors.New("comm: job aborted")

// Op is a reduction operator for Allreduce.
type Op uint8

// Reduction operators.
const (
	Sum Op = iota
	Max
	Min
)

// opNames are the Ops' names (enum.Name).
var opNames = [...]string{Sum: "sum", Max: "max", Min: "min"}

func (o Op) String() string { return enum.Name(opNames[:], "op", o) }

// Comm is one rank's handle on a job of Size() ranks. All collective calls must
// be made by every rank in the same order with the same phase name; a backend
// may report a mismatch as an error.
//
// Buffer ownership: send buffers are only read during the call and may be
// reused as soon as it returns. Received buffers belong to the caller. Calls
// that take a recv argument append into recv[i][:0] when it has capacity, so a
// caller can hand back the buffers of the previous call to avoid allocation.
type Comm interface {
	// Rank is this rank's id in [0, Size()).
	Rank() int
	// Size is the number of ranks in the job.
	Size() int

	// Alltoallv sends send[d] to rank d (len(send) must equal Size()) and returns
	// recv where recv[s] holds the bytes rank s sent to this rank.
	Alltoallv(ctx context.Context, phase string, send [][]byte, recv [][]byte) ([][]byte, error)

	// Allgatherv contributes mine and returns every rank's contribution, indexed
	// by rank (out[Rank()] is a copy of mine).
	Allgatherv(ctx context.Context, phase string, mine []byte, recv [][]byte) ([][]byte, error)

	// AllreduceInt64 reduces vals element-wise across ranks, in place. Every rank
	// must pass the same length.
	AllreduceInt64(ctx context.Context, phase string, vals []int64, op Op) error

	// AllreduceFloat64 reduces vals element-wise across ranks, in place. The
	// result is identical on every rank (ranks are combined in rank order).
	AllreduceFloat64(ctx context.Context, phase string, vals []float64, op Op) error

	// Bcast returns root's data on every rank (data is ignored on other ranks).
	Bcast(ctx context.Context, phase string, root int, data []byte) ([]byte, error)

	// Barrier returns once every rank has entered it.
	Barrier(ctx context.Context, phase string) error

	// Stats is this rank's communication counters. It is owned by the rank and
	// must not be shared across goroutines without synchronisation.
	Stats() *Stats
}
