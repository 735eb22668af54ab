package comm

import (
	"context"
	"fmt"
)

// Sub is a sub-communicator: a group of the ranks of a parent Comm, with the
// group's own rank numbers, built only from the parent's collectives. 2D
// BFS (Lv et al. §VIII–IX; bfs.BFS2D) uses one per processor row and one per
// processor column, so that a frontier exchange involves the r or c ranks of
// a grid line instead of all p.
//
// A Sub is a lockstep group, not an independent communicator: every rank
// of the parent must make the same call, with the same phase, on its own
// Sub at the same time — the groups of a grid's rows all exchange
// together, then the groups of its columns. The groups must partition the
// parent's ranks (every member's Sub lists the same members in the same
// order). When the parent is a GroupExchanger (comm/tcp, comm/inproc, the
// block-ranks of graph500), a call is one AlltoallvGroup of the parent:
// frames travel only among the members, so a row of c ranks sends c−1 of
// them per rank instead of p−1. Otherwise (comm/mpi) it is one parent
// Alltoallv in which a rank sends only to the members of its group, and
// ranks outside the group still get an empty frame on a backend that
// sends one to every rank. Barrier is always the whole parent's.
//
// The parent's counters see exactly the group's traffic: an Allgatherv in
// a group of g ranks counts len(mine)·(g−1) bytes and g−1 messages, as the
// same call would on a g-rank Comm; the counters count payloads, not
// frames.
//
// Sub implements Comm. Stats returns the parent's counters. A Sub is used
// from one goroutine at a time, like its parent.
type Sub struct {
	parent  Comm
	members []int // parent ranks, in group rank order
	index   []int // per parent rank: its group rank, or −1
	rank    int   // this rank's group rank

	group GroupExchanger // the parent, when it exchanges among groups

	send  [][]byte // parent-sized send slots (group-sized with group), reused
	precv [][]byte // parent-sized receive slots, reused
	enc   []byte   // encoded allreduce values
	recv  [][]byte // received allreduce values
}

// NewSub returns the group of parent's ranks members (parent rank ids, in
// the order that numbers them in the group). members must hold parent's own
// rank, and no rank twice.
func NewSub(parent Comm, members []int) (*Sub, error) {
	p := parent.Size()
	s := &Sub{parent: parent, members: append([]int(nil), members...), index: make([]int, p), rank: -1}
	if g, ok := parent.(GroupExchanger); ok {
		s.group = g
		s.send = make([][]byte, len(members))
	} else {
		s.send, s.precv = make([][]byte, p), make([][]byte, p)
	}
	for i := range s.index {
		s.index[i] = -1
	}
	for k, m := range members {
		if m < 0 || m >= p {
			return nil, fmt.Errorf("comm: sub-communicator member %d outside [0, %d)", m, p)
		}
		if s.index[m] >= 0 {
			return nil, fmt.Errorf("comm: sub-communicator lists rank %d twice", m)
		}
		s.index[m] = k
		if m == parent.Rank() {
			s.rank = k
		}
	}
	if s.rank < 0 {
		return nil, fmt.Errorf("comm: rank %d is not a member of its sub-communicator %v", parent.Rank(), members)
	}
	return s, nil
}

// Rank is this rank's number in the group.
func (s *Sub) Rank() int { return s.rank }

// Size is the number of ranks in the group.
func (s *Sub) Size() int { return len(s.members) }

// Parent returns the communicator the group is carved from.
func (s *Sub) Parent() Comm { return s.parent }

// Members returns the parent ranks of the group, in group rank order.
func (s *Sub) Members() []int { return s.members }

// Stats returns the parent's counters, which record the group's traffic.
func (s *Sub) Stats() *Stats { return s.parent.Stats() }

// exchange runs one parent AlltoallvGroup, or one parent Alltoallv, in
// which this rank sends sendTo(k) to group rank k (nothing to ranks outside
// the group) and returns what every group rank sent, indexed by group rank,
// in recv's buffers when it has one per group rank.
func (s *Sub) exchange(ctx context.Context, phase string, sendTo func(k int) []byte, recv [][]byte) ([][]byte, error) {
	g := len(s.members)
	if s.group != nil {
		for k := range s.members {
			s.send[k] = sendTo(k)
		}
		out, err := s.group.AlltoallvGroup(ctx, phase, s.members, s.send, recv)
		clear(s.send)
		return out, err
	}
	reuse := len(recv) == g
	for k, m := range s.members {
		s.send[m] = sendTo(k)
		if reuse {
			s.precv[m] = recv[k]
		}
	}
	got, err := s.parent.Alltoallv(ctx, phase, s.send, s.precv)
	clear(s.send)
	if err != nil {
		clear(s.precv)
		return nil, err
	}
	out := recv
	if !reuse {
		out = make([][]byte, g)
	}
	var stray error
	for src, b := range got {
		if k := s.index[src]; k >= 0 {
			out[k] = b
		} else if len(b) > 0 && stray == nil {
			stray = fmt.Errorf("comm: sub-communicator %v received %d bytes from rank %d outside it (groups must partition the ranks)",
				s.members, len(b), src)
		}
	}
	clear(got)
	clear(s.precv) // hold no caller buffer between calls
	if stray != nil {
		return nil, stray
	}
	return out, nil
}

// Alltoallv sends send[k] to group rank k.
func (s *Sub) Alltoallv(ctx context.Context, phase string, send [][]byte, recv [][]byte) ([][]byte, error) {
	if len(send) != len(s.members) {
		return nil, fmt.Errorf("comm: sub-communicator Alltoallv: len(send) = %d, want Size() = %d", len(send), len(s.members))
	}
	return s.exchange(ctx, phase, func(k int) []byte { return send[k] }, recv)
}

// Allgatherv sends mine to every group rank.
func (s *Sub) Allgatherv(ctx context.Context, phase string, mine []byte, recv [][]byte) ([][]byte, error) {
	return s.exchange(ctx, phase, func(int) []byte { return mine }, recv)
}

// gatherValues sends the n 8-byte values in s.enc to every group rank and
// checks that every rank sent n values.
func (s *Sub) gatherValues(ctx context.Context, phase string, n int) error {
	got, err := s.exchange(ctx, phase, func(int) []byte { return s.enc }, s.recv)
	if err != nil {
		return err
	}
	s.recv = got
	for k, b := range got {
		if len(b) != 8*n {
			return fmt.Errorf("comm: sub-communicator allreduce: group rank %d sent %d values, this rank %d", k, len(b)/8, n)
		}
	}
	return nil
}

// AllreduceInt64 reduces vals over the group, in place, combining the
// ranks in group rank order.
func (s *Sub) AllreduceInt64(ctx context.Context, phase string, vals []int64, op Op) error {
	return subAllreduce(ctx, s, phase, vals, op, Int64Values())
}

// AllreduceFloat64 reduces vals over the group, in place, combining the
// ranks in group rank order, so every member gets the same bits.
func (s *Sub) AllreduceFloat64(ctx context.Context, phase string, vals []float64, op Op) error {
	return subAllreduce(ctx, s, phase, vals, op, Float64Values())
}

// subAllreduce is Sub's allreduce of either type: every member's values
// reach every other (gatherValues), and each member combines them in
// group rank order.
func subAllreduce[T int64 | float64](ctx context.Context, s *Sub, phase string, vals []T, op Op, vc ValueCodec[T]) error {
	if err := op.Check(); err != nil {
		return fmt.Errorf("comm: sub-communicator: %w", err)
	}
	s.enc = vc.Encode(s.enc[:0], vals)
	if err := s.gatherValues(ctx, phase, len(vals)); err != nil {
		return err
	}
	for k, b := range s.recv {
		if k == 0 {
			vc.Decode(vals, b)
		} else {
			vc.ReduceBytes(vals, b, op)
		}
	}
	return nil
}

// Bcast returns group rank root's data on every member.
func (s *Sub) Bcast(ctx context.Context, phase string, root int, data []byte) ([]byte, error) {
	if root < 0 || root >= len(s.members) {
		return nil, fmt.Errorf("comm: sub-communicator Bcast: root %d outside [0, %d)", root, len(s.members))
	}
	got, err := s.exchange(ctx, phase, func(k int) []byte {
		if s.rank == root && k != root {
			return data
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	if s.rank == root {
		return data, nil
	}
	return got[root], nil
}

// Barrier waits for every rank of the parent (a stronger condition than the
// group's).
func (s *Sub) Barrier(ctx context.Context, phase string) error {
	return s.parent.Barrier(ctx, phase)
}

var _ Comm = (*Sub)(nil)
