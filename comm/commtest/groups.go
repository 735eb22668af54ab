package commtest

// The group tests: comm.Sub's collectives over groups that partition the
// ranks, interleaved with calls of the whole job (through the backend's
// comm.GroupExchanger when it has one, else through its Alltoallv); a
// GroupExchanger's calls over symmetric neighbourhoods that are not a
// partition, with their counters; and a membership that is not symmetric,
// or a group call met by a whole-job call, which must fail the job on every
// rank without hanging.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

// groupRounds is the number of rounds of the group tests.
const groupRounds = 5

// partitionGroups returns rank r's group in two partitions of p ranks: by
// parity, listed in descending order (so group ranks differ from parent
// order), and by consecutive pairs.
func partitionGroups(r, p int) [][]int {
	var parity, pair []int
	for s := p - 1; s >= 0; s-- {
		if s%2 == r%2 {
			parity = append(parity, s)
		}
	}
	for s := range p {
		if s/2 == r/2 {
			pair = append(pair, s)
		}
	}
	return [][]int{parity, pair}
}

func testSubGroups(t *testing.T, launch Launcher, p int) {
	pt := newPattern(maxVariedLen)
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		var subs []*comm.Sub
		for _, members := range partitionGroups(r, p) {
			s, err := comm.NewSub(c, members)
			if err != nil {
				return err
			}
			subs = append(subs, s)
		}
		var recv [][]byte
		for round := range groupRounds {
			for si, s := range subs {
				members := s.Members()
				phase := fmt.Sprintf("commtest.group.%d", si)
				send := make([][]byte, len(members))
				for k, m := range members {
					send[k] = pt.window(variedLen(r, m, round), messageSeed(r, m, round))
				}
				got, err := s.Alltoallv(ctx, phase, send, recv)
				if err != nil {
					return err
				}
				if len(got) != len(members) {
					return fmt.Errorf("group %v: Alltoallv returned %d messages", members, len(got))
				}
				for k, m := range members {
					if err := checkBytes(fmt.Sprintf("round %d, group %v, from rank %d", round, members, m),
						got[k], pt.window(variedLen(m, r, round), messageSeed(m, r, round))); err != nil {
						return err
					}
				}
				recv = got
				gathered, err := s.Allgatherv(ctx, phase+".gather", []byte{byte(r), byte(round)}, nil)
				if err != nil {
					return err
				}
				for k, m := range members {
					if err := checkBytes(fmt.Sprintf("gather round %d from rank %d", round, m), gathered[k], []byte{byte(m), byte(round)}); err != nil {
						return err
					}
				}
				vals := []int64{int64(r), int64(round)}
				if err := s.AllreduceInt64(ctx, phase+".sum", vals, comm.Sum); err != nil {
					return err
				}
				var sum int64
				for _, m := range members {
					sum += int64(m)
				}
				if vals[0] != sum || vals[1] != int64(round*len(members)) {
					return fmt.Errorf("group %v: sum %v, want [%d %d]", members, vals, sum, round*len(members))
				}
				root := round % len(members)
				data, err := s.Bcast(ctx, phase+".bcast", root, []byte(fmt.Sprintf("from %d", members[root])))
				if err != nil {
					return err
				}
				if string(data) != fmt.Sprintf("from %d", members[root]) {
					return fmt.Errorf("group %v: Bcast from group rank %d gave %q", members, root, data)
				}
			}
			// A call of the whole job between the groups' calls.
			all, err := c.Allgatherv(ctx, "commtest.group.all", []byte{byte(round)}, nil)
			if err != nil {
				return err
			}
			for s, b := range all {
				if err := checkBytes(fmt.Sprintf("whole-job gather from rank %d", s), b, []byte{byte(round)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// ringMembers is rank r's neighbourhood on a ring of p ranks: r−1, r and
// r+1, ascending, without repeats. It is symmetric but no partition.
func ringMembers(r, p int) []int {
	m := []int{(r + p - 1) % p, r, (r + 1) % p}
	slices.Sort(m)
	return slices.Compact(m)
}

func testGroupNeighbours(t *testing.T, launch Launcher, p int) {
	pt := newPattern(maxVariedLen)
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		g, ok := c.(comm.GroupExchanger)
		if !ok {
			return nil // the backend has no group calls: comm.Sub falls back
		}
		r := c.Rank()
		members := ringMembers(r, p)
		var recv [][]byte
		for round := range groupRounds {
			send := make([][]byte, len(members))
			want := comm.PhaseCounters{Calls: 1}
			for k, m := range members {
				send[k] = pt.window(variedLen(r, m, round), messageSeed(r, m, round))
				if m != r {
					want.BytesSent += int64(len(send[k]))
					want.BytesRecv += int64(variedLen(m, r, round))
					if len(send[k]) > 0 {
						want.Messages++
					}
				}
			}
			phase := fmt.Sprintf("commtest.ring.%d", round)
			before := c.Stats().Phase(phase)
			snap := snapshotRecv(recv)
			got, err := g.AlltoallvGroup(ctx, phase, members, send, recv)
			if err != nil {
				return err
			}
			for k, m := range members {
				if err := checkBytes(fmt.Sprintf("round %d from ring neighbour %d", round, m), got[k],
					pt.window(variedLen(m, r, round), messageSeed(m, r, round))); err != nil {
					return err
				}
			}
			if err := snap.checkReused(fmt.Sprintf("round %d", round), got); err != nil {
				return err
			}
			recv = got
			if d := c.Stats().Phase(phase).Sub(before); d != want {
				return fmt.Errorf("round %d: counters %+v, want %+v", round, d, want)
			}
			if err := c.Barrier(ctx, "commtest.ring.barrier"); err != nil {
				return err
			}
		}
		return nil
	})
}

func testGroupAsymmetric(t *testing.T, launch Launcher, p int) {
	// Rank 0 lists rank 1; rank 1 does not list rank 0.
	testGroupMismatch(t, launch, p, "an asymmetric group call", func(r int) bool { return r == 0 },
		func(ctx context.Context, c comm.Comm, g comm.GroupExchanger) error {
			members := []int{c.Rank()}
			if c.Rank() == 0 {
				members = []int{0, 1}
			}
			_, err := g.AlltoallvGroup(ctx, "commtest.group.asymmetric", members, make([][]byte, len(members)), nil)
			return err
		})
}

// testGroupVersusFull: a group call and a whole-job Alltoallv of the same
// phase are different collectives (the group call's header says so), even
// when the group is the whole job.
func testGroupVersusFull(t *testing.T, launch Launcher, p int) {
	testGroupMismatch(t, launch, p, "a group call met by a whole-job Alltoallv", func(int) bool { return true },
		func(ctx context.Context, c comm.Comm, g comm.GroupExchanger) error {
			all := make([]int, p)
			for r := range all {
				all[r] = r
			}
			var err error
			if c.Rank() == 0 {
				_, err = c.Alltoallv(ctx, "commtest.group.kind", make([][]byte, p), nil)
			} else {
				_, err = g.AlltoallvGroup(ctx, "commtest.group.kind", all, make([][]byte, p), nil)
			}
			return err
		})
}

// testGroupMismatch runs call, which the ranks make inconsistently (what
// says how), on a backend with group calls (on others it returns at once):
// it must fail on the ranks mustFail names, a Barrier after it must fail
// with comm.ErrAborted on every rank, and the job must fail.
func testGroupMismatch(t *testing.T, launch Launcher, p int, what string, mustFail func(rank int) bool,
	call func(ctx context.Context, c comm.Comm, g comm.GroupExchanger) error) {
	if p == 1 {
		t.Skip("a single rank cannot disagree with itself")
	}
	var v Problems
	var ungrouped atomic.Bool
	err := launchWithin(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		g, ok := c.(comm.GroupExchanger)
		if !ok {
			ungrouped.Store(true)
			return errNoGroupCalls
		}
		warmUp(ctx, c, &v)
		err := call(ctx, c, g)
		if err == nil && mustFail(c.Rank()) {
			v.Addf("rank %d: %s returned nil", c.Rank(), what)
		}
		later := c.Barrier(ctx, "commtest.group.later")
		if !errors.Is(later, comm.ErrAborted) {
			v.Addf("rank %d: Barrier after %s returned %v, want an error wrapping comm.ErrAborted", c.Rank(), what, later)
		}
		if err != nil {
			return err
		}
		return later
	})
	v.Report(t)
	// Every rank that ran saw the same Comm type; a process of an MPI job
	// that is no rank of it learns the ranks' outcome only as text.
	if ungrouped.Load() || err != nil && strings.Contains(err.Error(), errNoGroupCalls.Error()) {
		return
	}
	if err == nil {
		t.Fatalf("launch returned nil for a job with %s", what)
	}
}

// errNoGroupCalls ends testGroupMismatch's job on a transport without group
// calls (comm.GroupExchanger), which has nothing to check.
var errNoGroupCalls = errors.New("commtest: the transport has no group calls")
