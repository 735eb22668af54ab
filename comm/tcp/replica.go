package tcp

// Replication with packet racing, after Kylix §V-A, §V-B: a
// logical rank runs as S processes holding the same data, every message
// goes to every live replica of its destination, and a receiver listens to
// all replicas of a source and keeps the copy that arrives first. A call
// completes while every other logical rank keeps one live replica; when a
// whole group is gone, the call fails naming that logical rank.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphrun/graphrun/comm/wire"
)

// ReplicaStats is what replication adds to a rank's traffic on top of its
// comm.Stats, which count logical volumes (one copy per destination and
// source, exactly what an unreplicated job counts).
type ReplicaStats struct {
	// ExtraBytesSent and ExtraMessages are the copies sent beyond the first
	// to each destination rank: (live replicas − 1) copies per message.
	ExtraBytesSent, ExtraMessages int64
	// DroppedBytes and DroppedMessages are the copies received from
	// replicas that lost the race, read off the connection and dropped
	// (a copy cancelled while it arrived counts its bytes received so far).
	DroppedBytes, DroppedMessages int64
	// LostReplicas is the number of peer processes this rank gave up.
	LostReplicas int
}

// replicaCounters back ReplicaStats. extra* are owned by the calling
// goroutine; the others are updated by readers.
type replicaCounters struct {
	extraSent, extraMsgs int64
	dropped, droppedMsgs atomic.Int64
	lost                 atomic.Int64
}

// Replicas is the replication factor S of the job.
func (c *Comm) Replicas() int { return c.replicas }

// Process is this process's id among the S·Size() processes: replica
// Process() / Size() of logical rank Rank().
func (c *Comm) Process() int { return c.proc }

// ReplicaStats returns the replication counters. Like Stats, it belongs to
// the goroutine making the calls.
func (c *Comm) ReplicaStats() ReplicaStats {
	return ReplicaStats{
		ExtraBytesSent: c.extraSent, ExtraMessages: c.extraMsgs,
		DroppedBytes: c.dropped.Load(), DroppedMessages: c.droppedMsgs.Load(),
		LostReplicas: int(c.lost.Load()),
	}
}

// procName names peer p in messages: "rank 3", or "process 7 (replica 1 of
// rank 3)" in a replicated job.
func (c *Comm) procName(p *peer) string {
	if c.replicas == 1 {
		return fmt.Sprintf("rank %d", p.rank)
	}
	return fmt.Sprintf("process %d (replica %d of rank %d)", p.rank, p.rank/c.size, p.group)
}

// peerErr adds which replica of a logical rank err is about.
func (c *Comm) peerErr(p *peer, err error) error {
	if c.replicas == 1 {
		return err
	}
	return fmt.Errorf("process %d (replica %d): %w", p.rank, p.rank/c.size, err)
}

// members returns the processes of logical rank g.
func (c *Comm) member(g, k int) *peer { return c.peers[g+k*c.size] }

// exchangeReplicated is exchange in a replicated job (call seq, already
// numbered): payload.To(d) goes to every live replica of every other logical
// rank d, and msgs[s] is the first copy of logical rank s's message.
// Replicas of this rank's own group exchange nothing: they hold the same
// data.
func (c *Comm) exchangeReplicated(ctx context.Context, seq uint64, ci *wire.Call, payload wire.Payload) ([][]byte, error) {
	f := Frame{Type: FrameData, Kind: uint8(ci.Kind), Job: c.job, Seq: seq, Phase: ci.Hash, Arg: ci.Arg, Src: uint32(c.proc)}
	var targets []*peer
	c.mu.Lock()
	for _, p := range c.peers {
		if p != nil && p.dead == nil {
			p.writing, p.werr = true, nil
			targets = append(targets, p)
		}
	}
	c.mu.Unlock()
	copies := make(map[int]int, c.size)
	var writers sync.WaitGroup
	for _, p := range targets {
		var data []byte // a sibling replica gets an empty message: "entered call seq"
		if p.group != c.rank {
			data = payload.To(p.group)
		}
		if p.group != c.rank && copies[p.group] > 0 {
			c.extraSent += int64(len(data))
			if len(data) > 0 {
				c.extraMsgs++
			}
		}
		copies[p.group]++
		c.startWrite(&writers, p, f, data)
	}
	return c.await(ctx, seq, ci, &writers)
}

// salvage reports whether call seq of a replicated job completes although
// the job failed: every other logical rank's message arrived from a
// replica that completed the call (awaitArrivedLocked). The messages are
// then in c.msgs and the call's sends are over.
func (c *Comm) salvage(seq uint64, ci *wire.Call, writers *sync.WaitGroup) bool {
	c.mu.Lock()
	lagging := c.awaitArrivedLocked(seq, ci)
	if lagging {
		c.takeLocked(seq, c.msgs)
	}
	c.mu.Unlock()
	if lagging {
		c.finishWrites(writers)
	}
	return lagging
}

// progressReplicatedLocked checks call seq of a replicated job: done once
// every other logical rank's message arrived from one of its replicas and
// every send finished (the winning copies are then moved to msgs); an error
// once a logical rank lost all its replicas before its message arrived.
// Replicas whose connection broke are given up on the way.
func (c *Comm) progressReplicatedLocked(seq uint64, ci *wire.Call, msgs [][]byte) (bool, error) {
	for _, p := range c.peers {
		if p == nil || p.dead != nil {
			continue
		}
		if p.err != nil {
			c.giveUpLocked(p, p.err)
		} else if p.werr != nil {
			c.giveUpLocked(p, p.werr)
		}
	}
	complete := true
	var lost []int
	for g := range c.size {
		if g == c.rank {
			continue
		}
		found, live := false, false
		for k := range c.replicas {
			p := c.member(g, k)
			for len(p.inbox) > 0 && p.inbox[0].seq < seq {
				p.inbox = p.inbox[:copy(p.inbox, p.inbox[1:])]
			}
			if len(p.inbox) > 0 && p.inbox[0].seq == seq {
				if err := p.inbox[0].mismatch(ci, seq, g); err != nil {
					return false, &PeerError{Rank: g, Err: c.peerErr(p, err)}
				}
				found = true
			}
			if p.writing {
				complete = false
			}
			live = live || p.dead == nil
		}
		if !found {
			complete = false
			if !live {
				lost = append(lost, g)
			}
		}
	}
	if complete {
		c.takeLocked(seq, msgs)
		return true, nil
	}
	if c.failErr != nil {
		return false, c.failErr
	}
	if len(lost) > 0 {
		g := lost[0]
		var why []error
		for k := range c.replicas {
			why = append(why, c.member(g, k).dead)
		}
		return false, &PeerError{Rank: g, Err: fmt.Errorf("all %d replicas of rank %d lost before its message of call #%d arrived: %w",
			c.replicas, g, seq, errors.Join(why...))}
	}
	return false, nil
}

// giveUpLocked stops using replica p: nothing more is sent to it and its
// connection is closed, so that its reader and writer stop.
func (c *Comm) giveUpLocked(p *peer, cause error) {
	if p.dead != nil {
		return
	}
	p.dead = cause
	c.lost.Add(1)
	_ = p.conn.Close()
	if c.failErr == nil && !c.closing && !errors.Is(cause, errPeerClosed) {
		c.logf("tcp: rank %d (process %d): gave up %s, going on with its other replicas: %v", c.rank, c.proc, c.procName(p), cause)
	}
}

// giveUpStalled gives up every live replica that call seq still waits for
// after PeerTimeout without progress, and reports whether there was one.
func (c *Comm) giveUpStalled(seq uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	any := false
	for _, p := range c.peers {
		if p == nil || p.dead != nil {
			continue
		}
		waiting := p.writing
		if !waiting && p.group != c.rank && c.arrived[p.group] < seq {
			waiting = true
		}
		if waiting {
			c.giveUpLocked(p, &PeerError{Rank: p.group, Err: c.peerErr(p, fmt.Errorf("no progress for %v (PeerTimeout) in call #%d", c.peerTimeout, seq))})
			any = true
		}
	}
	return any
}

// lagTimeout is how long a replicated call that waits only for sends to
// lagging replicas waits before it gives them up (giveUpLagging): a
// quarter of the peer timeout, so that the ranks waiting for this one's
// next message do not time out meanwhile.
func lagTimeout(peerTimeout time.Duration) time.Duration {
	return max(peerTimeout/4, time.Millisecond)
}

// giveUpLagging gives up the replicas that call seq waits for only
// because its send to them is not through, while the call is otherwise
// complete: every other logical rank's message arrived and reached (was
// sent completely to) one of its replicas. A stopped or stalled replica
// that reads nothing would otherwise hold its peers, and through them
// every rank, until they time out. It reports whether it gave one up.
func (c *Comm) giveUpLagging(seq uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for g := range c.size {
		if g == c.rank {
			continue
		}
		found, sent := false, false
		for k := range c.replicas {
			p := c.member(g, k)
			if len(p.inbox) > 0 && p.inbox[0].seq == seq {
				found = true
			}
			sent = sent || (p.dead == nil && !p.writing && p.werr == nil)
		}
		if !found || !sent {
			return false
		}
	}
	any := false
	for _, p := range c.peers {
		if p != nil && p.dead == nil && p.writing {
			c.giveUpLocked(p, &PeerError{Rank: p.group, Err: c.peerErr(p,
				fmt.Errorf("lagging: its message of call #%d was not through %v after the call was otherwise done", seq, lagTimeout(c.peerTimeout)))})
			any = true
		}
	}
	return any
}

// replayArrived completes the next call of a lagging replica from messages
// that have all arrived already, although the job failed or ctx is done
// meanwhile, provided a sibling replica of this rank has entered that call
// (its empty "entered" message arrived): the other logical ranks then got
// this rank's contribution from the sibling, so the call did happen, and
// this replica stays in step with its group up to the call where the
// failure became visible. It sends nothing. ok is false otherwise.
func (c *Comm) replayArrived(ci *wire.Call) (msgs [][]byte, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seq := c.seq + 1
	if !c.awaitArrivedLocked(seq, ci) {
		return nil, false
	}
	c.seq = seq
	msgs = c.msgs
	clear(msgs)
	c.takeLocked(seq, msgs)
	return msgs, true
}

// awaitArrivedLocked reports whether call seq can complete without this
// replica although the job failed: a sibling replica entered the call, and
// every other logical rank's message arrives. Notices and messages sent
// before the failure may still be on their way: it waits for them until
// their senders' connections end, at most the grace period.
func (c *Comm) awaitArrivedLocked(seq uint64, ci *wire.Call) bool {
	expired := false
	timer := time.AfterFunc(c.grace, func() {
		c.mu.Lock()
		expired = true
		c.mu.Unlock()
		c.cond.Broadcast()
	})
	defer timer.Stop()
	for {
		// A sibling's notice may be on its way too, until its connection
		// ends.
		entered, siblingPending := false, false
		for k := range c.replicas {
			if p := c.member(c.rank, k); p != nil {
				entered = entered || p.entered >= seq
				siblingPending = siblingPending || (p.err == nil && p.dead == nil && !p.aborted)
			}
		}
		if !entered && (!siblingPending || expired) {
			return false
		}
		complete := entered
		for g := range c.size {
			if g == c.rank {
				continue
			}
			found, pending := false, false
			for k := range c.replicas {
				p := c.member(g, k)
				if len(p.inbox) > 0 && p.inbox[0].seq == seq {
					found = found || p.inbox[0].mismatch(ci, seq, g) == nil
				} else if p.err == nil && p.dead == nil && !p.aborted {
					pending = true
				}
			}
			if !found {
				if !pending || expired {
					return false
				}
				complete = false
			}
		}
		if complete {
			return true
		}
		c.cond.Wait()
	}
}

// takeLocked moves the first copy of every other logical rank's message of
// call seq to msgs.
func (c *Comm) takeLocked(seq uint64, msgs [][]byte) {
	for g := range c.size {
		if g == c.rank {
			continue
		}
		for k := range c.replicas {
			p := c.member(g, k)
			if len(p.inbox) > 0 && p.inbox[0].seq == seq {
				msgs[g] = p.inbox[0].data
				p.inbox[0] = nil
				p.inbox = p.inbox[:copy(p.inbox, p.inbox[1:])]
				break
			}
		}
	}
}

// finishWrites waits for the call's sends after the job failed, cutting
// those still running after the grace period short, so that no goroutine
// reads the caller's buffers once the call returns.
func (c *Comm) finishWrites(writers *sync.WaitGroup) {
	cut := c.cutAfterGrace(false)
	writers.Wait()
	cut.Stop()
}

// stopWriting is a replicated job's answer to p's goodbye: once any message
// being written to p is through, nothing more is sent to it and this side
// of the connection is half-closed, so that p's reader sees the end of the
// stream and p can close without discarding anything (a close with unread
// data resets the connection, and a reset destroys what the other side has
// not read yet, such as a lagging replica's messages).
func (c *Comm) stopWriting(p *peer) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.wbroken == nil {
		p.wbroken = errPeerClosed
	}
	if cw, ok := p.conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// drain is the first step of a replicated job's Close: after the goodbyes
// it half-closes every live connection and waits, at most PeerTimeout,
// until every peer has half-closed its side (stopWriting), reading and
// dropping their late copies meanwhile.
func (c *Comm) drain(dead []bool) {
	for i, p := range c.peers {
		if p != nil && !dead[i] {
			p.wmu.Lock()
			if cw, ok := p.conn.(interface{ CloseWrite() error }); ok {
				_ = cw.CloseWrite()
			}
			p.wmu.Unlock()
		}
	}
	done := make(chan struct{})
	go func() {
		c.readers.Wait()
		close(done)
	}()
	timer := time.NewTimer(c.peerTimeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}
