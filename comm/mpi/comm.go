//go:build mpi

package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/wire"
)

// Defaults and limits.
const (
	// DefaultPeerTimeout is Config.PeerTimeout's default.
	DefaultPeerTimeout = 30 * time.Second
	// DefaultMaxChunk is the largest MPI message: MPI counts are C ints,
	// so payloads above it travel as several messages.
	DefaultMaxChunk = 1 << 30
	// grace bounds how long a failing call waits for receives into the
	// caller's buffers that MPI could not cancel.
	grace = 2 * time.Second
)

// Message tags. Headers, payloads and notices use separate tags (notices
// also a communicator of their own), and MPI delivers messages of one
// sender, tag and communicator in the order they were sent.
const (
	tagHeader = 1
	tagData   = 2
	tagNotice = 3
)

// A header is six native 64-bit words: magic<<32 | kind, the call's
// sequence number, the FNV-1a hash of its phase, its argument (Allreduce:
// len<<8 | op; Bcast: root), the payload length that follows and the size
// of the chunks it is sent in.
const (
	headerWords = 6
	headerBytes = 8 * headerWords
	headerMagic = 0x47524d50 // "GRMP"
)

// Notices travel on the notice communicator: type (4 bytes), blamed rank (4),
// the number of calls the sender completed (8), then up to maxReason bytes
// of text.
const (
	noticeAbort = 1 // the job failed: blamed rank and reason
	noticeBye   = 2 // the sender's function returned

	noticeHead  = 16
	maxReason   = 1008
	noticeBytes = noticeHead + maxReason
)

// ErrClosed is the cause reported by calls made after Close.
var ErrClosed = errors.New("mpi: Comm closed")

// PeerError blames a failure on a rank: comm's, shared with comm/tcp and
// understood by comm/launch.
type PeerError = comm.PeerError

// Config tunes a Comm.
type Config struct {
	// PeerTimeout is how long a call may wait without progress (no message
	// of the call sent or received) before it fails, blaming the ranks it
	// still waits for. 0 means DefaultPeerTimeout; negative, no limit.
	PeerTimeout time.Duration
	// MaxChunk is the largest message handed to MPI; larger payloads are
	// split. 0 means DefaultMaxChunk. Tests set it small to exercise the
	// splitting.
	MaxChunk int
}

func (cfg Config) withDefaults() Config {
	if cfg.PeerTimeout == 0 {
		cfg.PeerTimeout = DefaultPeerTimeout
	}
	if cfg.MaxChunk <= 0 || cfg.MaxChunk > DefaultMaxChunk {
		cfg.MaxChunk = DefaultMaxChunk
	}
	return cfg
}

// role says what a pending request of a call is.
type role uint8

const (
	roleNotice role = iota // the posted notice receive (always index 0)
	roleHeader             // a header from peer
	roleData               // a chunk of payload from peer, into the caller's buffer
	roleSend               // a header or payload chunk to peer
)

type slot struct {
	role role
	peer int
	n    int // bytes a data receive expects
}

// Comm is one rank's comm.Comm over MPI. Its methods must be called from
// one goroutine at a time.
type Comm struct {
	rank, size  int
	data, ctl   commHandle // collectives' messages; notices
	peerTimeout time.Duration
	maxChunk    int

	stats   comm.Stats
	seq     uint64 // sequence number of the last call
	failErr error  // why the job failed (wraps comm.ErrAborted); nil while healthy
	inCall  bool   // a call is in progress (c.seq is its number)
	// notice is the first abort notice received and not yet acted on;
	// noticeSeq the fewest calls completed by a rank that sent one. A
	// call numbered above noticeSeq fails on it; a call at or below
	// completes, because the failed rank completed it and so every rank
	// has sent its messages of that call.
	notice    error
	noticeSeq uint64
	closed    bool
	// departed[s] is the number of calls rank s made before its function
	// returned (math.MaxUint64 while it takes part).
	departed []uint64

	// C memory: the headers of the current call and the notice receive
	// buffer. MPI reads and writes them after the calls that hand them
	// over return.
	hdrOut, hdrIn unsafe.Pointer
	noticeIn      unsafe.Pointer
	// noticeReq is the posted notice receive. Request handles passed to
	// MPI by address live in allocations that hold no Go pointers (cgo
	// checks the whole allocation), hence a separate one.
	noticeReq *request
	// noticeMu guards notices and noticesClosed: besides the rank's
	// goroutine, the interrupt watcher (runRank) sends a notice.
	noticeMu      sync.Mutex
	notices       []sentNotice
	noticesClosed bool
	// completed is the number of calls this rank completed, for the
	// watcher's notice.
	completed atomic.Uint64

	// The current call's requests: index 0 is the notice receive.
	reqs  []request
	slots []slot
	idx   []cIndex
	sts   []status
	got   []bool // header of peer s arrived in this call
	pin   *runtime.Pinner

	// The collectives, over exchange (comm/wire).
	wire.Collectives
	msgs [][]byte // messages of the current call, by source rank
}

var _ comm.Comm = (*Comm)(nil)

// sentNotice is a notice in flight: one C buffer sent to several peers.
type sentNotice struct {
	buf  unsafe.Pointer
	reqs []request
}

// newComm makes a Comm over data (collectives) and ctl (notices), two
// communicators of the same processes that nothing else uses.
func newComm(data, ctl commHandle, cfg Config) (*Comm, error) {
	cfg = cfg.withDefaults()
	rank, size, err := data.rankAndSize()
	if err != nil {
		return nil, err
	}
	c := &Comm{
		rank: rank, size: size, data: data, ctl: ctl,
		peerTimeout: cfg.PeerTimeout, maxChunk: cfg.MaxChunk,
		departed: make([]uint64, size),
		hdrOut:   cAlloc(size * headerBytes),
		hdrIn:    cAlloc(size * headerBytes),
		noticeIn: cAlloc(noticeBytes),
		got:      make([]bool, size),
		pin:      new(runtime.Pinner),
		msgs:     make([][]byte, size),
	}
	c.Collectives = wire.NewCollectives(wire.Backend{Rank: rank, Size: size, Stats: &c.stats,
		Exchange: c.exchange, SelfFail: c.selfFail, PeerFail: c.peerFail})
	for s := range c.departed {
		c.departed[s] = math.MaxUint64
	}
	c.noticeReq = new(request)
	*c.noticeReq = requestNull()
	if err := c.ctl.irecv(c.noticeIn, noticeBytes, -1, tagNotice, c.noticeReq); err != nil {
		return nil, err
	}
	return c, nil
}

// Rank is this rank's id.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in the job.
func (c *Comm) Size() int { return c.size }

// Stats is this rank's communication counters.
func (c *Comm) Stats() *comm.Stats { return &c.stats }

// checkHeader compares the header h that rank src sent in call ci with ci.
func checkHeader(ci *wire.Call, src int, h []uint64) error {
	if h[0]>>32 != headerMagic || h[1] != ci.Seq || h[5] == 0 || h[5] > DefaultMaxChunk {
		return &PeerError{Rank: src, Err: fmt.Errorf("protocol error: header %#x of call #%d in call #%d", h[0], h[1], ci.Seq)}
	}
	if err := ci.Mismatch(ci.Seq, src, comm.Collective(h[0]&0xff), h[2], h[3]); err != nil {
		return &PeerError{Rank: src, Err: err}
	}
	return nil
}

func (c *Comm) header(buf unsafe.Pointer, peer int) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Add(buf, peer*headerBytes)), headerWords)
}

// failure is the error of call ci once the job has failed.
func (c *Comm) failure(ci *wire.Call) error {
	return fmt.Errorf("mpi: rank %d: %s: %w", c.rank, ci, c.failErr)
}

// selfFail fails the job because this rank's call ci cannot go on, and
// tells the other ranks.
func (c *Comm) selfFail(ci *wire.Call, cause error) error {
	first := c.failErr == nil
	c.fail(fmt.Errorf("%s: %w", ci, cause), true)
	if first {
		return fmt.Errorf("mpi: rank %d: %w", c.rank, c.failErr) // failErr names ci already
	}
	return c.failure(ci)
}

// peerFail fails the job because rank s broke the protocol in call ci.
func (c *Comm) peerFail(ci *wire.Call, s int, err error) error {
	c.fail(&PeerError{Rank: s, Err: err}, true)
	return c.failure(ci)
}

// fail records why the job failed (the first reason wins) and, if the
// failure started here, sends every peer an abort notice.
func (c *Comm) fail(cause error, local bool) {
	if c.failErr != nil {
		return
	}
	if local && !c.inCall && !c.closed {
		// Between calls nobody polled the notice receive: a peer may have
		// failed first (a rank that mpirun then stops only learns it here).
		if err := c.takeNotices(); err == nil && c.notice != nil {
			cause = c.notice
			local = false
		}
	}
	c.failErr = fmt.Errorf("%w: %w", comm.ErrAborted, cause)
	if !local || c.closed {
		return
	}
	blame, reason := c.rank, cause.Error()
	var pe *PeerError
	if errors.As(cause, &pe) {
		blame, reason = pe.Rank, pe.Err.Error()
		if pe.Rank != c.rank {
			reason = fmt.Sprintf("%s (seen by rank %d)", reason, c.rank)
		}
	}
	completed := c.seq
	if c.inCall {
		completed--
	}
	c.notify(noticeAbort, blame, completed, reason)
}

// takeNotices handles the notices that arrived since the last call, outside
// a call: an abort notice becomes c.notice, a goodbye a departure.
func (c *Comm) takeNotices() error {
	c.reqs = append(c.reqs[:0], *c.noticeReq)
	c.slots = append(c.slots[:0], slot{role: roleNotice, peer: -1})
	defer func() { *c.noticeReq = c.reqs[0] }()
	c.grow()
	for {
		n, err := testsome(c.reqs[:1], c.idx, c.sts)
		if err != nil || n <= 0 {
			return err
		}
		if _, err := c.onNotice(statusOf(&c.sts[0])); err != nil {
			return err
		}
	}
}

// failedElsewhere reports the rank whose failure failed the job and why,
// if that is a rank other than this one: the abort notice this rank heard
// before it failed itself, or a failure it blamed on a peer.
func (c *Comm) failedElsewhere() (*PeerError, bool) {
	var pe *PeerError
	if errors.As(c.failErr, &pe) && pe.Rank != c.rank {
		return pe, true
	}
	return nil, false
}

// announceInterrupt tells every other rank that this rank's context is
// done, from another goroutine than the rank's: an interrupted process may
// exit before its rank function notices (interrupt.Grace), and mpirun then
// stops the other ranks before they learn why. The rank's own failure, if
// it gets there, sends its notice too; peers act on the first.
func (c *Comm) announceInterrupt(cause error) {
	c.notify(noticeAbort, c.rank, c.completed.Load(), fmt.Sprintf("this rank stopped: %v", cause))
}

// Abort fails the job: every pending and later call on every rank returns
// an error wrapping comm.ErrAborted and err. Launchers call it when a
// rank's function fails.
func (c *Comm) Abort(err error) {
	if err == nil {
		err = errors.New("aborted without a reason")
	}
	c.fail(&PeerError{Rank: c.rank, Err: err}, true)
}

// notify sends a notice to every other rank.
func (c *Comm) notify(kind uint32, blame int, seq uint64, reason string) {
	if c.size == 1 {
		return
	}
	if len(reason) > maxReason {
		reason = reason[:maxReason-3] + "..."
	}
	buf := cAlloc(noticeHead + len(reason))
	msg := unsafe.Slice((*byte)(buf), noticeHead+len(reason))
	binary.LittleEndian.PutUint32(msg[0:], kind)
	binary.LittleEndian.PutUint32(msg[4:], uint32(int32(blame)))
	binary.LittleEndian.PutUint64(msg[8:], seq)
	copy(msg[noticeHead:], reason)
	c.noticeMu.Lock()
	defer c.noticeMu.Unlock()
	if c.noticesClosed {
		cFree(buf)
		return
	}
	n := sentNotice{buf: buf}
	for d := range c.size {
		if d == c.rank {
			continue
		}
		r := requestNull()
		if err := c.ctl.isend(buf, len(msg), d, tagNotice, &r); err == nil {
			n.reqs = append(n.reqs, r)
		}
	}
	c.notices = append(c.notices, n)
}
