// Package wire is what the multi-process transports (comm/tcp, comm/mpi)
// share above their bytes on the wire: a collective call's identity (the
// collective, the FNV-1a hash of its phase name, its argument) that every
// rank's messages carry and compare, the payload sizes a call allows, and
// the collectives themselves, written once over one exchange primitive
// that each backend provides. The direct all-to-all collectives
// (every rank sends every other its piece; allreduces combine every
// contribution in rank order, so float sums are bit-identical to
// comm/inproc's) follow the papers' use of the transport: the frontier
// exchanges of Lv et al. §III-B (Alg. 1, Alg. 3) and the termination
// allreduces of its Fig. 7.
//
// The frames themselves stay each backend's own: comm/tcp's framed stream
// (frame.go there) and comm/mpi's 48-byte header before each payload.
//
// References:
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun, "Compression
//     and Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems", arXiv preprint (Institute of Computing
//     Technology, CAS), 2012.
package wire

import (
	"fmt"

	"github.com/graphrun/graphrun/comm"
)

// Call identifies a collective call; every rank's must agree on Kind, Hash
// and Arg. Seq is the call's number on this rank, set by a backend that
// numbers calls on the Call itself (comm/mpi).
type Call struct {
	Kind  comm.Collective
	Phase string
	Hash  uint64 // FNV-1a of Phase
	Arg   uint64 // Allreduce: len<<8 | op; Bcast: root
	Seq   uint64
}

// NewCall is the call of collective kind in phase with argument arg.
func NewCall(kind comm.Collective, phase string, arg uint64) *Call {
	return &Call{Kind: kind, Phase: phase, Hash: PhaseHash(phase), Arg: arg}
}

// PhaseHash is the 64-bit FNV-1a hash of a phase name, which messages
// carry instead of the name.
func PhaseHash(phase string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(phase); i++ {
		h ^= uint64(phase[i])
		h *= 1099511628211
	}
	return h
}

// GroupArg is the argument of an Alltoallv among a group of ranks only
// (comm.GroupExchanger), which a full Alltoallv (argument 0) does not match.
const GroupArg = 1

// AllreduceArg is the argument of an allreduce of n values with op.
func AllreduceArg(n int, op comm.Op) uint64 { return uint64(n)<<8 | uint64(op) }

// DescribeArgs renders a call's arguments after the phase, e.g. ", len=2, op=sum".
func DescribeArgs(kind comm.Collective, arg uint64) string {
	switch kind {
	case comm.CollectiveAllreduceInt64, comm.CollectiveAllreduceFloat64:
		return fmt.Sprintf(", len=%d, op=%s", arg>>8, comm.Op(arg&0xff))
	case comm.CollectiveBcast:
		return fmt.Sprintf(", root=%d", arg)
	case comm.CollectiveAlltoallv:
		if arg == GroupArg {
			return ", group"
		}
	}
	return ""
}

// String describes the call, e.g. `AllreduceInt64("bfs.done", len=2, op=sum)`.
func (ci *Call) String() string {
	return fmt.Sprintf("%s(%q%s)", ci.Kind, ci.Phase, DescribeArgs(ci.Kind, ci.Arg))
}

// Mismatch reports how the message of call seq from rank src, which says it
// belongs to collective kind with phase hash and argument arg, belongs to
// another call than ci; nil if it belongs to ci.
func (ci *Call) Mismatch(seq uint64, src int, kind comm.Collective, hash, arg uint64) error {
	if kind == ci.Kind && hash == ci.Hash && arg == ci.Arg {
		return nil
	}
	var theirs string
	switch {
	case kind != ci.Kind:
		theirs = kind.String()
	case hash != ci.Hash:
		theirs = kind.String() + " with another phase name"
	default:
		theirs = fmt.Sprintf("%s(…%s)", kind, DescribeArgs(kind, arg))
	}
	return fmt.Errorf("collective mismatch in call #%d: this rank called %s but rank %d called %s", seq, ci, src, theirs)
}

// Limit is the most bytes rank src may send in a call of collective kind
// with argument arg: none in a barrier, or in a broadcast from a rank that
// is not the root, and 8·len in an allreduce of len values. ok is false for
// the collectives whose messages have any length (Alltoallv, Allgatherv,
// the root's broadcast).
func Limit(kind comm.Collective, arg uint64, src int) (limit uint64, ok bool) {
	switch kind {
	case comm.CollectiveBarrier:
		return 0, true
	case comm.CollectiveAllreduceInt64, comm.CollectiveAllreduceFloat64:
		return 8 * (arg >> 8), true
	case comm.CollectiveBcast:
		if arg != uint64(src) {
			return 0, true
		}
	}
	return 0, false
}

// CheckLength is the protocol error of an n-byte message from rank src in
// call ci, or nil: a barrier's and a non-root's broadcast message are
// empty, and an allreduce's holds exactly its values.
func CheckLength(ci *Call, src, n int) error {
	limit, ok := Limit(ci.Kind, ci.Arg, src)
	switch {
	case !ok:
		return nil
	case ci.Kind == comm.CollectiveAllreduceInt64 || ci.Kind == comm.CollectiveAllreduceFloat64:
		if uint64(n) != limit {
			return fmt.Errorf("protocol error: %d bytes for %d values in %s", n, ci.Arg>>8, ci)
		}
	case ci.Kind == comm.CollectiveBcast && n != 0:
		return fmt.Errorf("protocol error: %d bytes from a rank that is not the root of %s", n, ci)
	case n != 0:
		return fmt.Errorf("protocol error: %d bytes in %s", n, ci)
	}
	return nil
}
