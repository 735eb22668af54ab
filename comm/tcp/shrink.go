// This file is elastic recovery's topology update (Zhang and Qiu §II, the
// failure model, and §V, the coordinator that rebuilds the topology and
// lets the computation go on with the surviving nodes).
//
// A failed Comm exposes its failure as an error naming the rank to blame
// (PeerError). Shrink turns that into a new, healthy Comm over the
// survivors: every survivor renumbers itself (the ranks above the lost one
// move down by one) and joins a fresh rendezvous run by rank 0, the lowest
// surviving rank and the coordinator, on the job's coordinator address. The
// new job's id is derived from the old one, the recovery epoch and the lost
// rank, so the survivors agree on the new topology by construction: a
// survivor that blames another rank, or a second lost rank, leaves the new
// job incomplete, and the rendezvous fails within its timeout, naming the
// missing ranks, instead of assembling a wrong topology. Fresh connections
// are used rather than the old ones because the old streams may end in a
// partial frame or an abort notice; the old Comm stays open until the new
// one is assembled, so that no survivor sees an old connection close (and
// blames its peer) before it read the abort notice naming the lost rank.
//
// The iteration number the topology is keyed by is agreed on the new Comm
// by its user (one allreduce), since only the user knows what it counts.

package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/graphrun/graphrun/comm"
)

// ErrNotElastic is wrapped by the errors of Shrink when the failure cannot
// be recovered from by shrinking: rank 0 (the coordinator) was lost, the
// failure blames no other rank, or the Comm is replicated.
var ErrNotElastic = comm.ErrNotElastic

// A Comm is elastic: it shrinks over its survivors and grows by joining
// processes (comm.Elastic).
var _ comm.Elastic = (*Comm)(nil)

// LostRank is the logical rank the failure err (a failed call's error, or
// nil for the Comm's own recorded failure) blames, and whether one is
// named.
func (c *Comm) LostRank(err error) (int, bool) {
	var pe *PeerError
	if err != nil && errors.As(err, &pe) && pe.Rank >= 0 && pe.Rank != c.rank {
		return pe.Rank, true
	}
	if f := c.failure(); f != nil && errors.As(f, &pe) && pe.Rank >= 0 && pe.Rank != c.rank {
		return pe.Rank, true
	}
	return -1, false
}

// Shrink builds a Comm over the survivors of a job that lost exactly one
// logical rank, as cause (the error of the call that failed) says. Ranks
// above the lost one are renumbered down by one; rank 0 coordinates, so
// losing it is not recoverable. epoch (≥ 1) counts the recoveries of the
// job and must be the same on every survivor. On success c is closed and
// the new Comm returned; the rendezvous is bounded by twice the peer
// timeout (at most the connect timeout), so a second lost rank or a
// disagreement fails every survivor in bounded time with an error naming
// the missing ranks. c is left as it is on failure (the caller closes it).
//
// Shrink implements comm.Elastic; shrink is the same returning the
// concrete Comm.
func (c *Comm) Shrink(ctx context.Context, cause error, epoch int) (comm.Elastic, error) {
	nc, err := c.shrink(ctx, cause, epoch)
	if err != nil {
		return nil, err
	}
	return nc, nil
}

func (c *Comm) shrink(ctx context.Context, cause error, epoch int) (*Comm, error) {
	lost, ok := c.LostRank(cause)
	switch {
	case c.replicas > 1:
		return nil, fmt.Errorf("tcp: rank %d of %d: %w: a replicated job survives losses by its replicas, not by shrinking", c.rank, c.size, ErrNotElastic)
	case !ok:
		return nil, fmt.Errorf("tcp: rank %d of %d: %w: the failure names no lost rank: %w", c.rank, c.size, ErrNotElastic, cause)
	case lost == 0:
		return nil, fmt.Errorf("tcp: rank %d of %d: %w: rank 0, the coordinator, was lost: %w", c.rank, c.size, ErrNotElastic, cause)
	case c.size < 2 || lost >= c.size:
		return nil, fmt.Errorf("tcp: rank %d of %d: %w: lost rank %d is not another rank of the job", c.rank, c.size, ErrNotElastic, lost)
	case epoch < 1:
		return nil, fmt.Errorf("tcp: rank %d of %d: recovery epoch %d, want ≥ 1", c.rank, c.size, epoch)
	}
	cfg := c.cfg
	cfg.Size = c.size - 1
	cfg.Rank = c.rank
	if c.rank > lost {
		cfg.Rank--
	}
	cfg.JobID = fmt.Sprintf("%s/elastic-%d/lost-%d", c.cfg.JobID, epoch, lost)
	cfg.Listen = anyPort(cfg.Listen) // the old data listener's port may still be taken
	cfg.ConnectTimeout = min(c.cfg.ConnectTimeout, 2*c.cfg.PeerTimeout)
	c.logf("tcp: rank %d of %d: rank %d was lost; joining the job of the %d survivors as rank %d (epoch %d)",
		c.rank, c.size, lost, cfg.Size, cfg.Rank, epoch)
	var coordLn net.Listener
	if c.rank == 0 {
		// With a lobby open (grow.go), its listener serves the rendezvous.
		var err error
		if coordLn, err = c.rendezvousListener(); err != nil {
			return nil, fmt.Errorf("tcp: rank %d of %d: recovering from the loss of rank %d (epoch %d): %w", c.rank, c.size, lost, epoch, err)
		}
	}
	nc, err := connectJob(ctx, cfg, coordLn, true)
	if err != nil {
		return nil, fmt.Errorf("tcp: rank %d of %d: recovering from the loss of rank %d (epoch %d): %w", c.rank, c.size, lost, epoch, err)
	}
	nc.rootJob, nc.epoch = c.rootJob, epoch
	nc.lobby = c.takeLobby() // the processes waiting to join wait on
	_ = c.Close()            // failed already: no goodbye, just the connections
	return nc, nil
}
