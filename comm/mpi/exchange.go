//go:build mpi

package mpi

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/wire"
)

// exchange runs one collective call (wire.Backend.Exchange): this rank
// sends every other rank d a header and the payload payload.To(d), and
// receives every other rank's, msgs[s], straight into dests[s]'s array when
// dests is not nil and that has the capacity, else into a new buffer. A
// message whose length the call does not allow (wire.CheckLength) fails
// the job, blamed on its sender, before anything is allocated for it.
func (c *Comm) exchange(ctx context.Context, ci *wire.Call, payload wire.Payload, dests [][]byte) ([][]byte, error) {
	msgs := c.msgs
	clear(msgs)
	err := c.exchangeInto(ctx, ci, payload, func(s, n int) ([]byte, error) {
		if err := wire.CheckLength(ci, s, n); err != nil {
			return nil, err
		}
		if dests != nil && cap(dests[s]) >= n {
			msgs[s] = dests[s][:n]
		} else {
			msgs[s] = make([]byte, n)
		}
		return msgs[s], nil
	})
	if err != nil {
		return nil, err
	}
	return msgs, nil
}

// exchangeInto is exchange with the payload of rank s, n bytes, received
// into place(s, n), a buffer of length n. A place error fails the job,
// blamed on rank s.
func (c *Comm) exchangeInto(ctx context.Context, ci *wire.Call, payload wire.Payload, place func(s, n int) ([]byte, error)) error {
	if c.failErr != nil {
		return c.failure(ci)
	}
	if ctx.Err() != nil {
		return c.selfFail(ci, ctxError(ctx))
	}
	c.seq++
	ci.Seq = c.seq
	c.inCall = true
	c.reqs = append(c.reqs[:0], *c.noticeReq)
	c.slots = append(c.slots[:0], slot{role: roleNotice, peer: -1})
	clear(c.got)
	err := c.run(ctx, ci, payload, place)
	*c.noticeReq = c.reqs[0]
	c.inCall = false
	if err == nil {
		c.completed.Store(c.seq)
	}
	return err
}

// run is exchange once the call has its number.
func (c *Comm) run(ctx context.Context, ci *wire.Call, payload wire.Payload, place func(s, n int) ([]byte, error)) error {
	if c.notice != nil && c.noticeSeq < ci.Seq {
		return c.abandon(ci, c.notice, false)
	}
	for s, last := range c.departed {
		if last < ci.Seq {
			return c.abandon(ci, departedError(s, last, ci.Seq), true)
		}
	}
	if c.size == 1 {
		return nil
	}
	if err := c.post(ci, payload); err != nil {
		return err
	}
	return c.wait(ctx, ci, place)
}

// post starts the receives of every peer's header, then the sends of this
// rank's headers and payloads.
func (c *Comm) post(ci *wire.Call, payload wire.Payload) error {
	for s := range c.size {
		if s == c.rank {
			continue
		}
		r := c.add(roleHeader, s)
		if err := c.data.irecv(unsafe.Add(c.hdrIn, s*headerBytes), headerBytes, s, tagHeader, r); err != nil {
			return c.abandon(ci, err, true)
		}
	}
	for d := range c.size {
		if d == c.rank {
			continue
		}
		p := payload.To(d)
		h := c.header(c.hdrOut, d)
		h[0], h[1], h[2], h[3], h[4], h[5] = headerMagic<<32|uint64(ci.Kind), ci.Seq, ci.Hash, ci.Arg, uint64(len(p)), uint64(c.maxChunk)
		r := c.add(roleSend, d)
		if err := c.data.isend(unsafe.Add(c.hdrOut, d*headerBytes), headerBytes, d, tagHeader, r); err != nil {
			return c.abandon(ci, err, true)
		}
		if len(p) == 0 {
			continue
		}
		// MPI reads p after Isend returns: pinned until the call ends.
		c.pin.Pin(&p[0])
		for off := 0; off < len(p); off += c.maxChunk {
			r := c.add(roleSend, d)
			if err := c.data.isend(unsafe.Pointer(&p[off]), min(c.maxChunk, len(p)-off), d, tagData, r); err != nil {
				return c.abandon(ci, err, true)
			}
		}
	}
	return nil
}

// add appends a request slot and returns its handle's address.
func (c *Comm) add(r role, peer int) *request {
	c.reqs = append(c.reqs, requestNull())
	c.slots = append(c.slots, slot{role: r, peer: peer})
	return &c.reqs[len(c.reqs)-1]
}

// grow makes the Testsome output arrays as long as the request array.
func (c *Comm) grow() {
	if len(c.idx) < len(c.reqs) {
		c.idx = make([]cIndex, cap(c.reqs))
		c.sts = make([]status, cap(c.reqs))
	}
}

// Polling. MPI progresses only inside MPI calls, and Open MPI's blocking
// waits spin on the CPU, which on a shared or oversubscribed machine takes
// it from the ranks still computing (measured: a pure spin made graphrun
// bfs 2× slower on this 2-core machine under load). So a waiting call polls
// with MPI_Testsome: without pause for spinFor after the last completion,
// then offering the CPU to other threads between polls (sched_yield) until
// yieldFor more have passed, then sleeping between polls, the pauses
// doubling up to maxPause.
const (
	spinFor  = 50 * time.Microsecond
	yieldFor = 5 * time.Millisecond
	minPause = 5 * time.Microsecond
	maxPause = 500 * time.Microsecond
)

// wait completes the call's requests, polling them together with the
// notice receive (an abort or goodbye notice from a peer), and fails the
// call when the job fails, the context is done or nothing moves for the
// peer timeout.
func (c *Comm) wait(ctx context.Context, ci *wire.Call, place func(s, n int) ([]byte, error)) error {
	pending := len(c.reqs) - 1
	last := time.Now()
	var pause time.Duration
	for pending > 0 {
		c.grow()
		n, err := testsome(c.reqs, c.idx, c.sts)
		if err != nil {
			return c.abandon(ci, err, true)
		}
		progressed, bye := false, false
		for i := range max(n, 0) {
			k := int(c.idx[i])
			st := statusOf(&c.sts[i])
			sl := c.slots[k]
			if sl.role == roleNotice {
				b, err := c.onNotice(st)
				if err != nil {
					return c.abandon(ci, err, true)
				}
				bye = bye || b
				continue
			}
			pending--
			progressed = true
			if st.err != 0 {
				return c.abandon(ci, &PeerError{Rank: sl.peer, Err: fmt.Errorf("MPI: %s", errorString(st.err))}, true)
			}
			if sl.role == roleData && st.count != sl.n {
				return c.abandon(ci, &PeerError{Rank: sl.peer, Err: fmt.Errorf("protocol error: %d bytes of a %d-byte chunk", st.count, sl.n)}, true)
			}
			if sl.role != roleHeader {
				continue
			}
			if st.count != headerBytes {
				return c.abandon(ci, &PeerError{Rank: sl.peer, Err: fmt.Errorf("protocol error: a header of %d bytes", st.count)}, true)
			}
			more, err := c.onHeader(ci, sl.peer, place)
			if err != nil {
				return c.abandon(ci, err, true)
			}
			pending += more
		}
		if pending == 0 {
			break // complete, even if a notice says the job failed meanwhile
		}
		if c.notice != nil && c.noticeSeq < ci.Seq {
			return c.abandon(ci, c.notice, false)
		}
		if bye {
			for s, l := range c.departed {
				if !c.got[s] && l < ci.Seq {
					return c.abandon(ci, departedError(s, l, ci.Seq), true)
				}
			}
		}
		if ctx.Err() != nil {
			return c.abandon(ci, ctxError(ctx), true)
		}
		now := time.Now()
		if progressed {
			last, pause = now, 0
			continue
		}
		idle := now.Sub(last)
		if c.peerTimeout > 0 && idle >= c.peerTimeout {
			return c.abandon(ci, c.timeoutError(idle), true)
		}
		switch {
		case idle < spinFor:
		case idle < spinFor+yieldFor:
			runtime.Gosched() // this process's other goroutines first
			yield()
		default:
			pause = min(max(2*pause, minPause), maxPause)
			time.Sleep(pause)
		}
	}
	c.pin.Unpin()
	return nil
}

// onHeader checks the header of peer s and posts the receive of its
// payload, in chunks; it returns the number of receives posted.
func (c *Comm) onHeader(ci *wire.Call, s int, place func(s, n int) ([]byte, error)) (int, error) {
	h := c.header(c.hdrIn, s)
	if err := checkHeader(ci, s, h); err != nil {
		return 0, err
	}
	c.got[s] = true
	if h[4] > uint64(maxMessage) {
		return 0, &PeerError{Rank: s, Err: fmt.Errorf("protocol error: a payload of %d bytes", h[4])}
	}
	n := int(h[4])
	buf, err := place(s, n)
	if err != nil {
		return 0, &PeerError{Rank: s, Err: err}
	}
	if n == 0 {
		return 0, nil
	}
	// MPI writes buf after Irecv returns: pinned until the call ends (or,
	// if the call fails, until MPI cancelled or completed the receive).
	c.pin.Pin(&buf[0])
	chunk := int(h[5]) // the sender's
	k := 0
	for off := 0; off < n; off += chunk {
		m := min(chunk, n-off)
		r := c.add(roleData, s)
		c.slots[len(c.slots)-1].n = m
		if err := c.data.irecv(unsafe.Pointer(&buf[off]), m, s, tagData, r); err != nil {
			return k, err
		}
		k++
	}
	return k, nil
}

// maxMessage bounds a payload: the largest Go slice.
const maxMessage = 1<<62 - 1

// onNotice handles a completed notice receive and posts the next one. It
// reports whether the notice was a goodbye.
func (c *Comm) onNotice(st completion) (bool, error) {
	if st.err != 0 {
		return false, fmt.Errorf("notice receive: MPI: %s", errorString(st.err))
	}
	if st.cancelled {
		return false, errors.New("notice receive cancelled")
	}
	msg := unsafe.Slice((*byte)(c.noticeIn), st.count)
	if len(msg) < noticeHead {
		return false, &PeerError{Rank: st.source, Err: fmt.Errorf("protocol error: a notice of %d bytes", len(msg))}
	}
	kind := binary.LittleEndian.Uint32(msg)
	blame := int(int32(binary.LittleEndian.Uint32(msg[4:])))
	seq := binary.LittleEndian.Uint64(msg[8:])
	reason := string(msg[noticeHead:])
	if err := c.ctl.irecv(c.noticeIn, noticeBytes, -1, tagNotice, &c.reqs[0]); err != nil {
		return false, err
	}
	switch kind {
	case noticeBye:
		if st.source != c.rank {
			c.departed[st.source] = seq
		}
		return true, nil
	case noticeAbort:
		if blame < 0 || blame >= c.size {
			blame = st.source
		}
		if c.notice == nil {
			c.notice, c.noticeSeq = &PeerError{Rank: blame, Err: errors.New(reason)}, seq
		}
		c.noticeSeq = min(c.noticeSeq, seq)
	default:
		return false, &PeerError{Rank: st.source, Err: fmt.Errorf("protocol error: notice type %d", kind)}
	}
	return false, nil
}

// abandon fails the call ci (and the job) with cause, and takes back what
// it handed to MPI. Pending receives are cancelled. A receive into the
// caller's memory that MPI could not cancel because its data is already
// arriving is waited for, at most the grace period: MPI must not write
// into memory the caller owns once the call has returned, so if it still
// runs then, abandon ends the job with MPI_Abort. Sends and header
// receives that are still pending only touch pinned or C memory, which
// goes to the quarantine until Finalize.
func (c *Comm) abandon(ci *wire.Call, cause error, local bool) error {
	first := c.failErr == nil
	if local {
		// The call this rank failed in is part of the reason the others get.
		cause = fmt.Errorf("%s: %w", ci, cause)
	}
	c.fail(cause, local)
	rest := c.reqs[1:]
	for k, r := range c.slots[1:] {
		if r.role != roleSend {
			cancel(&rest[k])
		}
	}
	deadline := time.Now().Add(grace)
	for {
		c.grow()
		if n, err := testsome(rest, c.idx, c.sts); err != nil || n < 0 {
			break
		}
		inGo := false
		for k, r := range c.slots[1:] {
			if r.role == roleData && rest[k] != requestNull() {
				inGo = true
				break
			}
		}
		if !inGo {
			break
		}
		if time.Now().After(deadline) {
			fatal("rank %d: a receive into the caller's buffer was still running %v after %s failed", c.rank, grace, ci)
		}
		time.Sleep(100 * time.Microsecond)
	}
	if slices.ContainsFunc(rest, func(r request) bool { return r != requestNull() }) {
		quarantine(leftover{pin: c.pin, cmem: []unsafe.Pointer{c.hdrOut, c.hdrIn}})
		c.pin, c.hdrOut, c.hdrIn = new(runtime.Pinner), nil, nil
	} else {
		c.pin.Unpin()
	}
	if first && local {
		return fmt.Errorf("mpi: rank %d: %w", c.rank, c.failErr) // failErr names ci already
	}
	return c.failure(ci)
}

// timeoutError blames the first rank a call still waits for.
func (c *Comm) timeoutError(idle time.Duration) error {
	var waiting []int
	for k, sl := range c.slots {
		if k > 0 && c.reqs[k] != requestNull() && !slices.Contains(waiting, sl.peer) {
			waiting = append(waiting, sl.peer)
		}
	}
	slices.Sort(waiting)
	if len(waiting) == 0 {
		return fmt.Errorf("no progress for %v", idle.Round(time.Millisecond))
	}
	names := make([]string, len(waiting))
	for i, r := range waiting {
		names[i] = fmt.Sprint(r)
	}
	return &PeerError{Rank: waiting[0], Err: fmt.Errorf("no progress for %v (waiting for rank %s; a rank hangs, or the peer timeout is too short)",
		idle.Round(time.Millisecond), strings.Join(names, ", "))}
}

func departedError(s int, last, seq uint64) error {
	return &PeerError{Rank: s, Err: fmt.Errorf("left the job: its function returned after call #%d, without making call #%d", last, seq)}
}

// ctxError is the cause of a call whose context is done.
func ctxError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, err) {
		return fmt.Errorf("this rank's context is done: %w (%w)", err, cause)
	}
	return fmt.Errorf("this rank's context is done: %w", err)
}

// Close ends this rank's part in the job. If the job is healthy it tells
// the other ranks that this rank left after its last call, so that a rank
// still making calls fails instead of waiting; calls after Close fail with
// ErrClosed. Close releases the C memory MPI no longer uses and puts the
// rest in the quarantine. The job's communicators are not freed before
// MPI_Finalize: MPI reuses a freed communicator's context id, and a late
// notice of this job could then reach the next job that gets it.
func (c *Comm) Close() error {
	if c.closed {
		return nil
	}
	if c.failErr == nil {
		c.notify(noticeBye, c.rank, c.seq, "")
		c.failErr = fmt.Errorf("%w: %w", comm.ErrAborted, ErrClosed)
	}
	c.closed = true
	c.noticeMu.Lock()
	c.noticesClosed = true // no notice after these (the watcher's)
	c.noticeMu.Unlock()
	cancel(c.noticeReq)
	// Notices are small (sent eagerly, they complete at once); the notice
	// receive completes once cancelled. Give them a moment.
	deadline := time.Now().Add(100 * time.Millisecond)
	for {
		done := true
		if *c.noticeReq != requestNull() {
			ok, err := test(c.noticeReq)
			done = done && ok && err == nil
		}
		for i := range c.notices {
			for j := range c.notices[i].reqs {
				if c.notices[i].reqs[j] != requestNull() {
					ok, err := test(&c.notices[i].reqs[j])
					done = done && ok && err == nil
				}
			}
		}
		if done || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	var keep []unsafe.Pointer
	if *c.noticeReq != requestNull() {
		keep = append(keep, c.noticeIn)
	} else {
		cFree(c.noticeIn)
	}
	for _, n := range c.notices {
		if slices.ContainsFunc(n.reqs, func(r request) bool { return r != requestNull() }) {
			keep = append(keep, n.buf)
		} else {
			cFree(n.buf)
		}
	}
	for _, p := range []unsafe.Pointer{c.hdrOut, c.hdrIn} {
		if p != nil {
			cFree(p)
		}
	}
	c.notices, c.hdrOut, c.hdrIn, c.noticeIn = nil, nil, nil, nil
	if len(keep) > 0 {
		quarantine(leftover{cmem: keep})
	}
	return nil
}
