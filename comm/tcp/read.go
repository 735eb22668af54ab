package tcp

// The read side of a peer connection: one reader goroutine per peer turns
// the peer's frames into complete messages, keyed by call sequence number,
// reading each payload straight into the caller's buffer when it can. With
// replication (Kylix §V-B, packet racing) the first copy of a message from
// any replica of a logical rank wins; the later copies are read, checked
// and dropped.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/wire"
)

// read is a peer's reader goroutine: it demultiplexes the peer's frames into
// messages, keyed by call sequence number, until the connection ends.
func (c *Comm) read(p *peer) {
	defer c.readers.Done()
	err := c.readMessages(p)
	c.mu.Lock()
	p.filling = false
	p.err = err
	quiet := c.failErr != nil || c.closing || errors.Is(err, errPeerClosed)
	c.mu.Unlock()
	c.cond.Broadcast()
	c.poke()
	if !quiet {
		c.logf("tcp: rank %d: %v", c.rank, err)
	}
}

// frameReader is the state of readMessages between two frames of one
// peer's stream. It lives on the reader goroutine's stack: reading a frame
// allocates nothing but the payload buffers it fills.
type frameReader struct {
	c       *Comm
	p       *peer
	hdr     [HeaderSize]byte
	next    uint64   // sequence number of the next message
	m       *message // message being received
	frames  int      // frames of m received
	got     uint64   // payload bytes of m received
	discard bool     // m is a late replica's copy: read, check and drop
	sink    []byte   // where discarded payloads are read
	bye     bool     // the peer said goodbye
}

// lost is the reader's failure: the connection to p is lost or broken,
// blamed on p's logical rank.
func (r *frameReader) lost(format string, args ...any) error {
	return &PeerError{Rank: r.p.group, Err: r.c.peerErr(r.p, fmt.Errorf(format, args...))}
}

func (c *Comm) readMessages(p *peer) error {
	r := frameReader{c: c, p: p, next: 1}
	for {
		f, err := readHeader(p.br, r.hdr[:], c.maxFrame)
		switch {
		case err != nil && r.bye:
			// The end of the stream after a goodbye, or a reset when this
			// rank's last frames reached the peer after it closed.
			return &PeerError{Rank: p.group, Err: c.peerErr(p, errPeerClosed)}
		case err == io.EOF && r.m == nil:
			return r.lost("connection closed without a goodbye (process died?)")
		case err != nil:
			return r.lost("connection lost: %w", err)
		case f.Job != c.job || int(f.Src) != p.rank:
			return r.lost("protocol error: frame of job %#x from rank %d on this connection", f.Job, f.Src)
		}
		switch f.Type {
		case FrameData:
			if err := r.data(f); err != nil {
				return err
			}
		case FrameAbort, FrameBye:
			if err := r.control(f); err != nil {
				return err
			}
		default:
			return r.lost("protocol error: unexpected %s frame", f.Type)
		}
	}
}

// data reads a data frame's payload into its message, beginning the
// message with its first frame and delivering it with its last.
func (r *frameReader) data(f Frame) error {
	c, p := r.c, r.p
	if r.m == nil {
		if err := r.begin(f); err != nil {
			return err
		}
	} else if f.Seq != r.m.seq || comm.Collective(f.Kind) != r.m.kind || f.Phase != r.m.phase || f.Arg != r.m.arg {
		return r.lost("protocol error: frame of call #%d inside the message of call #%d", f.Seq, r.m.seq)
	} else if f.Total != r.m.total {
		return r.lost("protocol error: frame announcing a message of %d bytes inside one of %d bytes (call #%d)", f.Total, r.m.total, r.m.seq)
	}
	m := r.m
	if r.got+uint64(f.Len) > m.total {
		return r.lost("protocol error: message of call #%d longer than its announced %d bytes", m.seq, m.total)
	}
	if !r.discard && c.replicas > 1 && r.frames > 0 {
		// Cancel a copy that lost the race while it arrives.
		c.mu.Lock()
		r.discard = m.seq <= c.arrived[p.group]
		c.mu.Unlock()
		if r.discard {
			c.dropped.Add(int64(r.got))
			m.data = nil
		}
	}
	if err := r.payload(f); err != nil {
		return err
	}
	r.got += uint64(f.Len)
	r.frames++
	if f.Flags&FlagLast == 0 {
		c.poke()
		return nil
	}
	if r.got != m.total {
		return r.lost("protocol error: message of call #%d has %d bytes, announced %d", m.seq, r.got, m.total)
	}
	r.deliver()
	return nil
}

// begin checks the first frame of a message and starts the message: into
// the caller's buffer if the caller waits for it (or shortly will:
// holdLocked), into a buffer of its own otherwise, or, with replication,
// nowhere if another replica's copy came first.
func (r *frameReader) begin(f Frame) error {
	c, p := r.c, r.p
	if f.Seq < r.next {
		// Calls among groups (group.go) skip the calls this
		// peer made without this rank; none comes twice.
		return r.lost("protocol error: message of call #%d, expected call #%d or later", f.Seq, r.next)
	}
	if f.Total > math.MaxInt>>1 {
		return r.lost("protocol error: message of %d bytes", f.Total)
	}
	if k := comm.Collective(f.Kind); k < comm.CollectiveAlltoallv || k > comm.CollectiveBarrier {
		return r.lost("protocol error: message of an unknown collective (%d)", f.Kind)
	}
	if limit, ok := wire.Limit(comm.Collective(f.Kind), f.Arg, p.group); ok && f.Total > limit {
		return r.lost("protocol error: %s message announced as %d bytes, more than the %d bytes it carries", comm.Collective(f.Kind), f.Total, limit)
	}
	m := &message{seq: f.Seq, kind: comm.Collective(f.Kind), phase: f.Phase, arg: f.Arg, total: f.Total}
	r.m, r.frames, r.got, r.discard = m, 0, 0, false
	c.mu.Lock()
	if c.replicas > 1 {
		// Another replica's copy of this message came first.
		r.discard = f.Seq <= c.arrived[p.group]
	} else {
		c.holdLocked(p, f.Seq)
		if p.want == f.Seq && c.failErr == nil && uint64(cap(p.dest)) >= f.Total {
			m.data = p.dest[:0]
			p.filling = true
		}
	}
	c.mu.Unlock()
	return nil
}

// payload reads a data frame's payload and trailer: into the message, or
// into the sink when the message is discarded.
func (r *frameReader) payload(f Frame) error {
	var err error
	if r.discard {
		if r.sink, err = readPayload(r.p.br, r.sink[:0], int(f.Len)); err != nil {
			return r.lost("connection lost: %w", err)
		}
		if err := readTrailer(r.p.br, r.hdr[:], r.sink); err != nil {
			return r.lost("corrupt frame in call #%d: %w", r.m.seq, err)
		}
		r.c.dropped.Add(int64(f.Len))
		return nil
	}
	// The buffer grows with the bytes that arrive, not with the
	// announced length, which no checksum makes true.
	m := r.m
	m.data = reserve(m.data, int(f.Len), m.total)
	start := len(m.data)
	if m.data, err = readPayload(r.p.br, m.data, int(f.Len)); err != nil {
		return r.lost("connection lost: %w", err)
	}
	if err := readTrailer(r.p.br, r.hdr[:], m.data[start:]); err != nil {
		return r.lost("corrupt frame in call #%d: %w", m.seq, err)
	}
	return nil
}

// deliver hands a complete message to its call: into the peer's inbox,
// unless another replica's copy completed first (then it is dropped) or it
// is a sibling replica's "entered call" notice.
func (r *frameReader) deliver() {
	c, p, m := r.c, r.p, r.m
	c.mu.Lock()
	switch {
	case r.discard:
	case c.replicas > 1 && m.seq <= c.arrived[p.group]:
		r.discard = true // another replica's copy completed first
		c.dropped.Add(int64(r.got))
	case c.replicas > 1 && p.group == c.rank:
		p.entered = m.seq // a sibling replica's "entered call" notice
	default:
		if c.replicas > 1 {
			c.arrived[p.group] = m.seq
		}
		p.inbox = append(p.inbox, m)
	}
	p.filling = false
	c.mu.Unlock()
	if r.discard {
		c.droppedMsgs.Add(1)
	}
	c.cond.Broadcast()
	c.poke()
	r.next = m.seq + 1
	r.m = nil
}

// control reads an abort notice or a goodbye. An abort fails this rank's
// job, blaming the rank the notice names (or its sender).
func (r *frameReader) control(f Frame) error {
	c, p := r.c, r.p
	payload, err := readPayload(p.br, nil, int(f.Len))
	if err != nil {
		return r.lost("connection lost: %w", err)
	}
	if err := readTrailer(p.br, r.hdr[:], payload); err != nil {
		return r.lost("corrupt frame: %w", err)
	}
	if f.Type == FrameBye {
		r.bye = true
		if c.replicas > 1 {
			c.stopWriting(p)
		}
		return nil
	}
	c.mu.Lock()
	p.aborted = true
	c.mu.Unlock()
	blame, reason := decodeAbort(payload)
	switch {
	case blame < 0 || blame >= c.size || blame == p.group:
		c.fail(&PeerError{Rank: p.group, Err: c.peerErr(p, fmt.Errorf("aborted the job: %s", reason))})
	case blame == c.rank:
		// This rank knows of no failure of its own: the sender is the
		// one that saw it, or invents it.
		c.fail(&PeerError{Rank: p.group, Err: c.peerErr(p, fmt.Errorf("aborted the job, blaming rank %d: %s", blame, reason))})
	default:
		c.fail(&PeerError{Rank: blame, Err: fmt.Errorf("%s (reported by %s)", reason, c.procName(p))})
	}
	return nil
}

// reserve makes room in data for the next frame of n bytes of a message of
// total bytes, trusting neither number: the capacity at most doubles what
// has arrived, plus one frame of at most maxChunk bytes (readPayload grows
// a larger frame as it arrives). A header that announces more than the
// peer sends thus costs no more than about twice what was received.
func reserve(data []byte, n int, total uint64) []byte {
	if cap(data)-len(data) >= n {
		return data
	}
	want := max(2*cap(data), len(data)+min(n, maxChunk))
	want = int(min(uint64(want), total))
	if want <= cap(data) {
		return data
	}
	return slices.Grow(data, want-len(data))
}

// holdLocked waits, for at most holdLimit, until this rank makes call seq,
// whose message from p has begun to arrive, so that the message can go
// straight into the caller's buffer rather than into a new one the caller
// would copy from. Waiting cannot deadlock: p's message of this rank's
// current call has arrived already, and p cannot finish call seq before
// this rank joins it. Meanwhile TCP flow control pauses p's writer.
func (c *Comm) holdLocked(p *peer, seq uint64) {
	if p.want == seq || c.failErr != nil || c.closing {
		return
	}
	expired := false
	timer := time.AfterFunc(holdLimit, func() {
		c.mu.Lock()
		expired = true
		c.mu.Unlock()
		c.cond.Broadcast()
	})
	for p.want != seq && c.failErr == nil && !c.closing && !expired {
		c.cond.Wait()
	}
	timer.Stop()
}
