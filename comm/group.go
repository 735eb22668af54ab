package comm

// Collectives among a group of ranks only, as an optional capability of a
// transport: the row and column exchanges of 2D BFS (Lv et al. §VIII–IX,
// bfs.BFS2D) involve the r or c ranks of a grid line, and on a network
// with latency a call that sends a frame to every one of the p ranks costs
// p−1 frames per rank where g−1 would do. comm/tcp and comm/inproc implement
// it, as does the block-rank multiplexer of graph500 (k blocks per rank);
// Sub uses it when its parent offers it and falls back to a parent
// Alltoallv otherwise (comm/mpi).

import (
	"context"
	"fmt"
)

// GroupExchanger is a Comm that can run an Alltoallv among some of its
// ranks only.
//
// AlltoallvGroup is collective over the whole job, like every call: every
// rank makes a group call at the same point of its call sequence, with the
// same phase, each naming its own members (parent rank ids, its own among
// them, no rank twice). The membership must be symmetric — rank r lists s
// exactly when s lists r — as it is when the groups partition the ranks
// (Sub's rows and columns) or when each rank lists the ranks it shares a
// group with. A rank sends send[k] to members[k] and gets back recv[k],
// what members[k] sent it; send and recv are indexed by position in
// members, and recv is reused as Alltoallv reuses it (one buffer per
// member). Frames travel only between members: two ranks that do not list
// each other skip the call with each other. A backend reports a violated symmetry
// as a mismatch (a call of one rank that another did not make with it),
// at the latest at the pair's next call together or the next call of the
// whole job; a non-member that died meanwhile is seen there too, not in
// this call.
//
// The counters record the group's traffic as an Alltoallv on a Comm of
// len(members) ranks would: the payload bytes to and from the other
// members and one message per non-empty payload sent.
type GroupExchanger interface {
	Comm
	AlltoallvGroup(ctx context.Context, phase string, members []int, send, recv [][]byte) ([][]byte, error)
}

// CheckMembers checks members as a GroupExchanger receives them from rank
// me of a job of size ranks: every member in [0, size), none twice, me
// among them. It returns me's position in members. seen is scratch of
// size entries (reused when it has them; it is left cleared).
func CheckMembers(members []int, me, size int, seen []bool) (int, error) {
	pos := -1
	var err error
	for k, m := range members {
		switch {
		case m < 0 || m >= size:
			err = fmt.Errorf("comm: group member %d outside [0, %d)", m, size)
		case seen[m]:
			err = fmt.Errorf("comm: group lists rank %d twice", m)
		default:
			seen[m] = true
		}
		if err != nil {
			break
		}
		if m == me {
			pos = k
		}
	}
	for _, m := range members {
		if m >= 0 && m < size {
			seen[m] = false
		}
	}
	if err == nil && pos < 0 {
		err = fmt.Errorf("comm: rank %d is not a member of its group %v", me, members)
	}
	return pos, err
}

// AlltoallvVolume is what an Alltoallv (or a group call) in which this rank,
// at position self of send and recv, sent send and received recv records:
// the payload bytes to and from the others and one message per non-empty
// payload sent.
func AlltoallvVolume(send, recv [][]byte, self int) (sent, received, messages int64) {
	for d := range send {
		if d == self {
			continue
		}
		sent += int64(len(send[d]))
		received += int64(len(recv[d]))
		if len(send[d]) > 0 {
			messages++
		}
	}
	return sent, received, messages
}
