package inproc

// Alltoallv among a group of ranks only (comm.GroupExchanger), which
// comm.Sub uses for the row and column exchanges of 2D BFS (Lv et al.
// §VIII–IX). In-process there are no frames to save, so a group call is
// still one rendezvous of the whole World, in which each rank reads only
// its members' slots; what the capability adds here is the contract the
// network transports keep (comm/tcp sends frames among the members only)
// and its strictest check: every rank sees every rank's member list, so a
// membership that is not symmetric fails at once, on the ranks it
// involves, and aborts the World.

import (
	"context"
	"fmt"
	"slices"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/bufs"
)

var _ comm.GroupExchanger = (*rankComm)(nil)

// AlltoallvGroup sends send[k] to rank members[k] and returns what each
// member sent this rank (comm.GroupExchanger); counted as an Alltoallv on
// a Comm of len(members) ranks.
func (c *rankComm) AlltoallvGroup(ctx context.Context, phase string, members []int, send, recv [][]byte) ([][]byte, error) {
	p := c.world.size
	mine := &contribution{kind: comm.CollectiveAlltoallv, phase: phase, rows: send, group: members}
	if members == nil {
		mine.group = []int{}
	}
	if len(send) != len(members) {
		return nil, c.fail(mine, fmt.Errorf("len(send) = %d, want len(members) = %d", len(send), len(members)))
	}
	if _, err := comm.CheckMembers(members, c.rank, p, make([]bool, p)); err != nil {
		return nil, c.fail(mine, err)
	}
	out := bufs.RecvSlices(recv, len(members))
	var asymmetric error
	err := c.collective(ctx, mine, func(slots []contribution) {
		for s := range slots {
			theirs := slots[s].group
			at := slices.Index(theirs, c.rank)
			listed := slices.Contains(members, s)
			switch {
			case listed && at < 0:
				asymmetric = fmt.Errorf("this rank's group lists rank %d, whose group %v leaves it out", s, theirs)
				return
			case !listed && at >= 0:
				asymmetric = fmt.Errorf("rank %d's group %v lists this rank, whose group %v leaves it out", s, theirs, members)
				return
			}
		}
		for k, m := range members {
			out[k] = bufs.CopyInto(out[k], slots[m].rows[slices.Index(slots[m].group, c.rank)])
		}
	})
	if err != nil {
		return nil, err
	}
	if asymmetric != nil {
		// Both ranks of the pair find it; the first records it.
		c.world.abort(c.rank, fmt.Errorf("rank %d failed: %s: collective mismatch: %w", c.rank, mine, asymmetric))
		return nil, c.callError(mine, c.world.abortError())
	}
	sent, received, messages := comm.AlltoallvVolume(send, out, slices.Index(members, c.rank))
	c.stats.Record(phase, sent, received, messages)
	return out, nil
}
