package multiplex

// Group calls of the ranks (comm.GroupExchanger): a comm.Sub of some of
// the ranks (in a 2D BFS run, the block row or column of a row or column
// exchange, the 2D partitioning Lv et al. §IX combine with their sieve) calls AlltoallvGroup on its Comm, and
// the hub carries the round among only the processes that host a rank of
// one of its local ranks' groups. Since the groups partition the ranks,
// process a reaches process b exactly when b reaches a, so the
// process-level membership is symmetric as the real Comm's AlltoallvGroup
// requires, and every process computes its own from the placement alone.

import (
	"context"
	"fmt"
	"slices"

	"github.com/graphrun/graphrun/comm"
)

var _ comm.GroupExchanger = (*Comm)(nil)

// localGroups returns the local ranks' groups in a round of group calls,
// after checking that two local ranks list each other or neither lists
// the other (the remote pairs are checked by splitMessage).
func (h *Hub) localGroups(calls []request) ([][]int, error) {
	mine := h.hosts[h.real.Rank()]
	groups := make([][]int, len(calls))
	for k, c := range calls {
		groups[k] = c.group
	}
	for k, v := range mine {
		for j, w := range mine {
			if slices.Contains(groups[k], w) != slices.Contains(groups[j], v) {
				return nil, fmt.Errorf("collective mismatch: the group calls of ranks %d and %d of process %d disagree on whether they are in one group", v, w, h.real.Rank())
			}
		}
	}
	return groups, nil
}

// groupProcesses returns, per process, whether one of the local ranks'
// calls (a round of group calls) lists a rank it hosts; this process is
// among them. The slice is the hub's, valid until the next round.
func (h *Hub) groupProcesses(calls []request) []bool {
	if len(h.among) != len(h.hosts) {
		h.among = make([]bool, len(h.hosts))
	}
	clear(h.among)
	h.among[h.real.Rank()] = true
	for _, c := range calls {
		for _, w := range c.group {
			h.among[h.owner[w]] = true
		}
	}
	return h.among
}

// exchangeGroup sends h.sendBuf[d] to every process d with among[d] in one
// group call of the real Comm and returns the messages by process (empty
// for the others).
func (h *Hub) exchangeGroup(ctx context.Context, g comm.GroupExchanger, phase string, among []bool) ([][]byte, error) {
	h.procs, h.gsend, h.grecv = h.procs[:0], h.gsend[:0], h.grecv[:0]
	if len(h.recvBuf) != len(h.hosts) {
		h.recvBuf = make([][]byte, len(h.hosts))
	}
	for d, in := range among {
		if in {
			h.procs = append(h.procs, d)
			h.gsend = append(h.gsend, h.sendBuf[d])
			h.grecv = append(h.grecv, h.recvBuf[d])
		}
	}
	got, err := g.AlltoallvGroup(ctx, phase, h.procs, h.gsend, h.grecv)
	clear(h.gsend)
	if err != nil {
		return nil, err
	}
	h.grecv = got
	for d := range h.recvBuf {
		h.recvBuf[d] = h.recvBuf[d][:0]
	}
	for k, d := range h.procs {
		h.recvBuf[d] = got[k]
	}
	return h.recvBuf, nil
}

// AlltoallvGroup sends send[k] to rank members[k] and returns what
// each member sent this rank; the hub carries it among the processes
// that host the local ranks' groups (exchangeGroup) when the real Comm is
// a GroupExchanger, else in an Alltoallv of the whole job. Counted as an
// Alltoallv whose payloads to other ranks are those of the members.
func (b *Comm) AlltoallvGroup(ctx context.Context, phase string, members []int, send, recv [][]byte) ([][]byte, error) {
	n := b.Size()
	if len(send) != len(members) {
		return nil, fmt.Errorf("multiplex: AlltoallvGroup: len(send) = %d, want len(members) = %d", len(send), len(members))
	}
	if len(b.seen) != n {
		b.seen = make([]bool, n)
	}
	if _, err := comm.CheckMembers(members, b.rank, n, b.seen); err != nil {
		return nil, fmt.Errorf("multiplex: %w", err)
	}
	// The whole job's send and receive lists, reused from call to call
	// (a level makes several group calls per rank): only the members'
	// entries are set, and they are cleared again once the round is done
	// (the hub reads them only during it), so no buffer of an earlier call
	// is offered to a later one.
	if len(b.full) != n {
		b.full, b.fullRecv = make([][]byte, n), make([][]byte, n)
	}
	full, fullRecv := b.full, b.fullRecv
	reuse := len(recv) == len(members)
	for k, w := range members {
		full[w] = send[k]
		if reuse {
			fullRecv[w] = recv[k]
		}
	}
	got, err := b.call(ctx, "alltoallv-group", phase, full, fullRecv, members)
	if err != nil {
		// A failed call may return (its context ended) while the local
		// rank that runs the round still reads these lists: leave them
		// to it, untouched, and take fresh ones next time.
		b.full, b.fullRecv = nil, nil
		return nil, err
	}
	out := recv
	if !reuse {
		out = make([][]byte, len(members))
	}
	for k, w := range members {
		out[k] = got[w]
		full[w], fullRecv[w] = nil, nil
	}
	return out, nil
}
