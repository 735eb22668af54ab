package tcp

// Alltoallv among a group of ranks only (comm.GroupExchanger): the frames
// of the call go to and come from the group's members, so a comm.Sub of g
// ranks sends g−1 frames per rank, not p−1 (the row and column exchanges
// of 2D BFS, Lv et al. §VIII–IX). Every rank still numbers every call, so
// a pair that shares a group meets at the same call number on both sides;
// a pair that does not skips it. What keeps that honest (progressLocked,
// skipError): a message from a member must be of this call (a later one
// means the member skipped it), and a message of this call or an earlier
// one from a rank this call leaves out means that rank listed this one
// when this one did not list it. A rank that dies outside the group is not
// waited for: the next call that includes it, or the next call of the
// whole job, reports it.

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/wire"
	"github.com/graphrun/graphrun/internal/bufs"
)

// groupScratch is AlltoallvGroup's per-call scratch, indexed by rank.
type groupScratch struct {
	among []bool
	seen  []bool
	send  [][]byte
	dests [][]byte

	marked [][]byte // Replicas > 1: the messages with their marker byte
}

var _ comm.GroupExchanger = (*Comm)(nil)

// inCallWith reports whether the call in progress exchanges with p.
func (c *Comm) inCallWith(p *peer) bool {
	return p != nil && (c.among == nil || c.among[p.rank])
}

// skipError is the mismatch of call seq, made among c.among, that p's
// first waiting message shows: p skipped a call that lists it, or sent a
// message in a call that leaves it out. c.mu is held.
func (c *Comm) skipError(p *peer, seq uint64) error {
	if len(p.inbox) == 0 {
		return nil
	}
	got, member := p.inbox[0].seq, c.inCallWith(p)
	switch {
	case member && got > seq && c.among == nil:
		return fmt.Errorf("collective mismatch in call #%d: rank %d skipped it: its next message is of call #%d", seq, p.group, got)
	case member && got > seq:
		return fmt.Errorf("collective mismatch in call #%d: rank %d skipped it, but this rank's group call lists it (group calls must list each other symmetrically)", seq, p.group)
	case member && got < seq, !member && got <= seq:
		return fmt.Errorf("collective mismatch in call #%d: rank %d sent a message of call #%d, which this rank made without it (group calls must list each other symmetrically)", seq, p.group, got)
	}
	return nil
}

// AlltoallvGroup sends send[k] to rank members[k] and returns what each
// member sent this rank, exchanging frames with the members only (see
// comm.GroupExchanger). A replicated job (Replicas > 1) runs it as one
// Alltoallv of the whole job instead.
func (c *Comm) AlltoallvGroup(ctx context.Context, phase string, members []int, send, recv [][]byte) ([][]byte, error) {
	ci := wire.NewCall(comm.CollectiveAlltoallv, phase, wire.GroupArg)
	g := &c.group
	if g.among == nil {
		g.among, g.seen = make([]bool, c.size), make([]bool, c.size)
		g.send, g.dests = make([][]byte, c.size), make([][]byte, c.size)
	}
	if len(send) != len(members) {
		return nil, c.selfFail(ci, fmt.Errorf("len(send) = %d, want len(members) = %d", len(send), len(members)))
	}
	if _, err := comm.CheckMembers(members, c.rank, c.size, g.seen); err != nil {
		return nil, c.selfFail(ci, err)
	}
	out := bufs.RecvSlices(recv, len(members))
	for k, m := range members {
		g.send[m], g.dests[m] = send[k], out[k]
	}
	if c.replicas > 1 {
		return c.alltoallvGroupReplicated(ctx, ci, phase, members, send, out)
	}
	for _, m := range members {
		g.among[m] = true
	}
	msgs, err := c.exchangeAmong(ctx, ci, wire.Payload{Each: g.send}, g.dests, g.among)
	clear(g.among)
	clear(g.send)
	clear(g.dests)
	if err != nil {
		return nil, err
	}
	self := 0
	for k, m := range members {
		switch {
		case m == c.rank:
			out[k], self = bufs.CopyInto(out[k], send[k]), k
		case msgs[m] != nil:
			out[k] = msgs[m]
		default:
			out[k] = out[k][:0]
		}
	}
	clear(msgs)
	sent, received, messages := comm.AlltoallvVolume(send, out, self)
	c.stats.Record(phase, sent, received, messages)
	return out, nil
}

// alltoallvGroupReplicated runs the group call of a replicated job as one
// exchange of the whole job over c.group.send (it clears c.group.send and
// c.group.dests). A message to a member starts with a byte 1, so that a member
// that skipped the call (an empty message) is told from one that sent
// nothing; a rank outside the group sends nothing. out gets the members'
// messages, and the counters the payloads without the markers.
func (c *Comm) alltoallvGroupReplicated(ctx context.Context, ci *wire.Call, phase string, members []int, send, out [][]byte) ([][]byte, error) {
	g := &c.group
	if g.marked == nil {
		g.marked = make([][]byte, c.size)
	}
	for _, m := range members {
		g.marked[m] = append(append(g.marked[m][:0], 1), g.send[m]...)
		g.send[m] = g.marked[m]
		g.seen[m] = true
	}
	defer clear(g.seen)
	all, err := c.exchange(ctx, ci, wire.Payload{Each: g.send}, nil)
	clear(g.send)
	clear(g.dests)
	if err != nil {
		return nil, err
	}
	for s, b := range all {
		switch {
		case s == c.rank:
		case g.seen[s] && len(b) == 0:
			return nil, c.peerFail(ci, s, fmt.Errorf("collective mismatch: rank %d skipped a group call that lists it (group calls must list each other symmetrically)", s))
		case !g.seen[s] && len(b) > 0:
			return nil, c.peerFail(ci, s, fmt.Errorf("collective mismatch: rank %d sent a group message to this rank, whose group leaves it out (group calls must list each other symmetrically)", s))
		}
	}
	self := 0
	for k, m := range members {
		if m == c.rank {
			out[k], self = append(out[k][:0], g.marked[m][1:]...), k
		} else {
			out[k] = append(out[k][:0], all[m][1:]...)
		}
	}
	clear(all)
	sent, received, messages := comm.AlltoallvVolume(send, out, self)
	c.stats.Record(phase, sent, received, messages)
	return out, nil
}
