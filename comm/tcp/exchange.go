package tcp

// One collective call over the peers' connections (wire.Backend.Exchange):
// send every peer its message, one writer goroutine each, and wait until
// every peer's message of the call has arrived (the readers of comm.go file
// them), the job fails, the context ends or no frame moves for the peer
// timeout. replica.go's exchange of a replicated job shares the writers and
// the wait.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/wire"
)

// selfFail fails the job because this rank's call ci cannot go on.
func (c *Comm) selfFail(ci *wire.Call, err error) error {
	cause := fmt.Errorf("%s: %w", ci, err)
	c.fail(cause)
	return fmt.Errorf("tcp: rank %d: %w: %w", c.rank, comm.ErrAborted, cause)
}

// peerFail fails the job because rank s broke the protocol in call ci.
func (c *Comm) peerFail(ci *wire.Call, s int, err error) error {
	c.fail(&PeerError{Rank: s, Err: err})
	return c.abortedError(ci)
}

// mismatch reports how message m of call seq from rank src belongs to
// another call than ci.
func (m *message) mismatch(ci *wire.Call, seq uint64, src int) error {
	return ci.Mismatch(seq, src, m.kind, m.phase, m.arg)
}

// abortedError is the error of call ci once the job has failed.
func (c *Comm) abortedError(ci *wire.Call) error {
	return fmt.Errorf("tcp: rank %d: %s: %w: %w", c.rank, ci, comm.ErrAborted, c.failure())
}

// exchange runs one collective: it sends payload.To(d) to every other rank d,
// all at once, and returns c.msgs where msgs[s] is the message of rank s.
// msgs[s] is received into dests[s]'s array when dests is not nil and that
// has the capacity; otherwise it is a new buffer, or an empty one.
func (c *Comm) exchange(ctx context.Context, ci *wire.Call, payload wire.Payload, dests [][]byte) ([][]byte, error) {
	return c.exchangeAmong(ctx, ci, payload, dests, nil)
}

// exchangeAmong is exchange among the ranks r with among[r] only (every
// rank when among is nil; group.go): frames go to and come from those
// peers, and a message of this call from any other is a mismatch.
func (c *Comm) exchangeAmong(ctx context.Context, ci *wire.Call, payload wire.Payload, dests [][]byte, among []bool) ([][]byte, error) {
	if !c.inCall.CompareAndSwap(false, true) {
		return nil, c.selfFail(ci, errors.New("another call is in progress on this rank's Comm"))
	}
	defer c.inCall.Store(false)
	c.among = among
	defer func() { c.among = nil }()
	if c.replicas > 1 && (c.failure() != nil || ctx.Err() != nil) {
		if ctx.Err() != nil {
			c.fail(fmt.Errorf("%s: %w", ci, ctxError(ctx))) // tells the siblings not to wait for this one
		}
		if msgs, ok := c.replayArrived(ci); ok {
			return msgs, nil
		}
	}
	if c.failure() != nil {
		return nil, c.abortedError(ci)
	}
	if ctx.Err() != nil {
		return nil, c.selfFail(ci, ctxError(ctx))
	}
	c.seq++
	seq := c.seq
	msgs := c.msgs
	clear(msgs)
	if c.replicas > 1 {
		return c.exchangeReplicated(ctx, seq, ci, payload)
	}
	if c.size == 1 {
		return msgs, nil
	}

	c.mu.Lock()
	for _, p := range c.peers {
		if c.inCallWith(p) {
			p.want, p.dest, p.writing, p.werr = seq, nil, true, nil
			if dests != nil {
				p.dest = dests[p.rank][:0]
			}
		}
	}
	c.mu.Unlock()
	c.cond.Broadcast() // readers holding a message of this call

	f := Frame{Type: FrameData, Kind: uint8(ci.Kind), Job: c.job, Seq: seq, Phase: ci.Hash, Arg: ci.Arg, Src: uint32(c.rank)}
	var writers sync.WaitGroup
	for _, p := range c.peers {
		if c.inCallWith(p) {
			c.startWrite(&writers, p, f, payload.To(p.rank))
		}
	}
	return c.await(ctx, seq, ci, &writers)
}

// startWrite sends data to p as the message f describes, on a writer
// goroutine of its own that writers counts. p.writing must be set; it
// falls when the message is sent, and p.werr, blaming p's logical rank,
// says why sending failed.
func (c *Comm) startWrite(writers *sync.WaitGroup, p *peer, f Frame, data []byte) {
	writers.Go(func() {
		err := c.writeMessage(p, f, data)
		c.mu.Lock()
		p.writing = false
		if err != nil {
			p.werr = &PeerError{Rank: p.group, Err: c.peerErr(p, fmt.Errorf("sending failed: %w", err))}
		}
		c.mu.Unlock()
		c.cond.Broadcast()
		c.poke()
	})
}

// await waits for call seq, whose messages writers send: it returns c.msgs
// once the call is done (progressLocked, or progressReplicatedLocked in a
// replicated job, checked whenever a frame moves), and fails it when they
// report an error, ctx ends or nothing moves for the peer timeout. In a
// replicated job a call that waits only for sends to replicas lagging
// behind their siblings gives them up after a quarter of the peer timeout
// (giveUpLagging), a timeout first cuts stalled replicas off
// (giveUpStalled), and a failed job may still complete the call (salvage).
func (c *Comm) await(ctx context.Context, seq uint64, ci *wire.Call, writers *sync.WaitGroup) ([][]byte, error) {
	replicated := c.replicas > 1
	tick := c.peerTimeout
	if replicated {
		tick = lagTimeout(c.peerTimeout)
	}
	timer := time.NewTimer(tick)
	defer timer.Stop()
	idleSince := time.Now()
	for {
		c.mu.Lock()
		var done bool
		var err error
		if replicated {
			done, err = c.progressReplicatedLocked(seq, ci, c.msgs)
		} else {
			done, err = c.progressLocked(seq, ci, c.msgs)
		}
		c.mu.Unlock()
		if done {
			writers.Wait()
			return c.msgs, nil
		}
		own := false
		if err == nil {
			select {
			case <-c.wake:
				timer.Reset(tick)
				idleSince = time.Now()
				continue
			case <-ctx.Done():
				err, own = fmt.Errorf("%s: %w", ci, ctxError(ctx)), true
			case <-timer.C:
				if replicated && c.giveUpLagging(seq) {
					// The call waited only for sends to replicas
					// that lag behind their siblings: it goes on
					// without them.
					timer.Reset(tick)
					continue
				}
				if left := c.peerTimeout - time.Since(idleSince); left > 0 {
					timer.Reset(min(tick, left))
					continue
				}
				if replicated && c.giveUpStalled(seq) {
					// The stalled replicas are cut off; the next pass
					// either goes on without them or names a lost group.
					timer.Reset(tick)
					idleSince = time.Now()
					continue
				}
				err = c.stallError(seq)
			}
		}
		c.fail(err)
		if replicated && c.salvage(seq, ci, writers) {
			return c.msgs, nil
		}
		c.release(writers)
		if own {
			return nil, fmt.Errorf("tcp: rank %d: %w: %w", c.rank, comm.ErrAborted, err)
		}
		return nil, c.abortedError(ci)
	}
}

// progressLocked checks call seq: done once every peer's message arrived
// and every send finished (the messages are then moved to msgs), or the
// reason the call fails.
func (c *Comm) progressLocked(seq uint64, ci *wire.Call, msgs [][]byte) (bool, error) {
	complete := true
	for _, p := range c.peers {
		if p == nil {
			continue
		}
		if err := c.skipError(p, seq); err != nil {
			return false, err
		}
		if !c.inCallWith(p) {
			continue
		}
		if len(p.inbox) > 0 && p.inbox[0].seq == seq {
			if err := p.inbox[0].mismatch(ci, seq, p.rank); err != nil {
				return false, err
			}
		} else {
			complete = false
		}
		if p.writing || p.werr != nil {
			complete = false
		}
	}
	if complete {
		for _, p := range c.peers {
			if c.inCallWith(p) {
				msgs[p.rank] = p.inbox[0].data
				p.inbox[0] = nil
				p.inbox = p.inbox[:copy(p.inbox, p.inbox[1:])]
				p.want, p.dest = 0, nil
			}
		}
		return true, nil
	}
	// A complete call succeeds even if the job failed meanwhile: the next
	// call reports it.
	if c.failErr != nil {
		return false, c.failErr
	}
	for _, p := range c.peers {
		if c.inCallWith(p) && p.err != nil && !(len(p.inbox) > 0 && p.inbox[0].seq == seq) {
			return false, p.err
		}
	}
	for _, p := range c.peers {
		if c.inCallWith(p) && p.werr != nil {
			return false, p.werr
		}
	}
	return false, nil
}

// stallError blames the ranks call seq still waits for.
func (c *Comm) stallError(seq uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ranks []int
	for _, p := range c.peers {
		if c.inCallWith(p) && p.dead == nil && p.group != c.rank && (p.writing || len(p.inbox) == 0 || p.inbox[0].seq != seq) && !slices.Contains(ranks, p.group) {
			ranks = append(ranks, p.group)
		}
	}
	err := fmt.Errorf("no progress for %v (PeerTimeout) in call #%d", c.peerTimeout, seq)
	if len(ranks) == 1 {
		return &PeerError{Rank: ranks[0], Err: err}
	}
	return fmt.Errorf("%s: %w", rankList(ranks), err)
}

// release takes the failed call's buffers back from the reader and writer
// goroutines: the caller's receive buffers are not written, nor its send
// buffers read, once it returns. Transfers still running after the grace
// period are cut short by expiring their connection's deadline.
func (c *Comm) release(writers *sync.WaitGroup) {
	cut := c.cutAfterGrace(true)
	c.mu.Lock()
	for {
		busy := false
		for _, p := range c.peers {
			if p != nil {
				p.want, p.dest = 0, nil
				busy = busy || p.filling || p.writing
			}
		}
		if !busy {
			break
		}
		c.cond.Wait()
	}
	for _, p := range c.peers {
		if p != nil {
			clear(p.inbox)
			p.inbox = p.inbox[:0]
		}
	}
	c.mu.Unlock()
	cut.Stop()
	writers.Wait()
}

// ctxError is ctx's error, with its cause when that says more.
func ctxError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, err) {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// rankList renders ranks as "rank 3" or "ranks 2, 5".
func rankList(ranks []int) string {
	if len(ranks) == 1 {
		return fmt.Sprintf("rank %d", ranks[0])
	}
	s := make([]string, len(ranks))
	for i, r := range ranks {
		s[i] = fmt.Sprint(r)
	}
	return "ranks " + strings.Join(s, ", ")
}

// cutAfterGrace expires, after the grace period, the write deadline of
// every connection still writing a message of the failed call, and with
// reads the read deadline of every one still filling a caller's buffer.
// Stop the timer once the transfers are over.
func (c *Comm) cutAfterGrace(reads bool) *time.Timer {
	return time.AfterFunc(c.grace, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, p := range c.peers {
			if p != nil && reads && p.filling {
				_ = p.conn.SetReadDeadline(aLongTimeAgo)
			}
			if p != nil && p.writing {
				_ = p.conn.SetWriteDeadline(aLongTimeAgo)
			}
		}
	})
}
