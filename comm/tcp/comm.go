package tcp

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/wire"
	"github.com/graphrun/graphrun/internal/untrusted"
)

// Defaults and limits of Config.
const (
	DefaultPeerTimeout    = 30 * time.Second
	DefaultConnectTimeout = 60 * time.Second
	DefaultMaxFrame       = 1 << 30

	// minMaxFrame is the smallest MaxFrame accepted: abort notices must fit.
	minMaxFrame = 1 << 10
	// maxChunk is the largest frame this rank sends. Larger messages are
	// split, which keeps the checksum pass over a frame cache-warm for the
	// write that follows and bounds the work lost to a corrupt frame.
	maxChunk = 1 << 20
	// maxAbortReason bounds the reason carried by an abort notice.
	maxAbortReason = 512
	// holdLimit bounds how long a reader holds back a message of the next
	// call until the caller makes that call (see holdLocked). A caller that
	// takes longer gets the message read ahead into a buffer of its own.
	holdLimit = 20 * time.Millisecond
	// maxGrace bounds how long a failing call waits for its sends and
	// receives to finish on their own before it cuts them short.
	maxGrace = 2 * time.Second
)

// Config describes one rank of a TCP job.
type Config struct {
	// Rank and Size are this process's id and the number of processes. With
	// Replicas S > 1 they count processes, not logical ranks: process P is
	// replica P / (Size/S) of logical rank P mod (Size/S) (Kylix §V-A's
	// numbering), and the Comm's Rank and Size are the logical ones.
	Rank, Size int

	// Replicas is the replication factor S (default 1): every logical rank
	// runs as S processes holding the same data, every message goes to all
	// replicas of its destination and the first copy received wins. See
	// the package documentation, "Replication".
	Replicas int

	// Coordinator is the host:port of the rendezvous. Rank 0 listens there;
	// every rank, rank 0 included, registers there.
	Coordinator string
	// Listen is the address of this rank's data listener. By default it is
	// the local interface this rank reaches the coordinator through, on an
	// ephemeral port. Port 0 picks an ephemeral port.
	Listen string

	// Token is the job's shared secret (required). It never crosses the
	// network: ranks prove they hold it with HMAC-SHA256 over fresh nonces.
	Token []byte
	// JobID names the job. It is part of every proof and every frame header,
	// so ranks of different jobs sharing a token never connect.
	JobID string

	// PeerTimeout is how long a call may wait without any progress (no frame
	// sent or received) before it fails, blaming the ranks it still waits
	// for. Default DefaultPeerTimeout.
	PeerTimeout time.Duration
	// ConnectTimeout bounds Connect: the rendezvous and the mesh set-up.
	// Default DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// MaxFrame is the largest frame payload this rank accepts; peers split
	// their messages accordingly. Default DefaultMaxFrame, at least 1 KiB,
	// at most 4 GiB − 1.
	MaxFrame int

	// Logf, if set, receives refused connections and failures. It may be
	// called from several goroutines at once.
	Logf func(format string, args ...any)
	// Tracef receives the set-up's progress: the addresses the coordinator
	// and the rank listen on. nil: Logf.
	Tracef func(format string, args ...any)
}

func (cfg Config) withDefaults() (Config, error) {
	switch {
	case cfg.Size < 1:
		return cfg, fmt.Errorf("tcp: job of %d ranks, need at least 1", cfg.Size)
	case cfg.Rank < 0 || cfg.Rank >= cfg.Size:
		return cfg, fmt.Errorf("tcp: rank %d out of range [0, %d)", cfg.Rank, cfg.Size)
	case cfg.Coordinator == "":
		return cfg, errors.New("tcp: no coordinator address")
	case len(cfg.Token) == 0:
		return cfg, errors.New("tcp: no job token")
	case cfg.Replicas < 0 || (cfg.Replicas > 1 && cfg.Size%cfg.Replicas != 0):
		return cfg, fmt.Errorf("tcp: %d processes cannot form groups of %d replicas", cfg.Size, cfg.Replicas)
	case cfg.MaxFrame != 0 && (cfg.MaxFrame < minMaxFrame || int64(cfg.MaxFrame) > math.MaxUint32):
		return cfg, fmt.Errorf("tcp: MaxFrame %d out of range [%d, %d]", cfg.MaxFrame, minMaxFrame, uint32(math.MaxUint32))
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	if cfg.PeerTimeout <= 0 {
		cfg.PeerTimeout = DefaultPeerTimeout
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.MaxFrame == 0 {
		cfg.MaxFrame = DefaultMaxFrame
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Tracef == nil {
		cfg.Tracef = cfg.Logf
	}
	cfg.Token = bytesClone(cfg.Token)
	return cfg, nil
}

func (h *handshaker) logf(format string, args ...any) { h.cfg.Logf(format, args...) }

// ErrClosed is the cause reported by calls made after Close.
var ErrClosed = errors.New("tcp: Comm closed")

// errPeerClosed is why a peer that said goodbye is gone.
var errPeerClosed = errors.New("closed its Comm")

// PeerError blames a failure on a rank: comm's, shared with comm/mpi and
// understood by comm/launch.
type PeerError = comm.PeerError

// Connect joins the job described by cfg: it registers with the coordinator
// (which rank 0 runs), receives the address table, connects to every other
// rank and returns this rank's Comm. It fails if the job is not assembled
// within cfg.ConnectTimeout or ctx is done first.
func Connect(ctx context.Context, cfg Config) (*Comm, error) {
	return connect(ctx, cfg, nil)
}

// connect is Connect; rank 0 runs its coordinator on coordLn if it is not nil.
func connect(ctx context.Context, cfg Config, coordLn net.Listener) (*Comm, error) {
	return connectJob(ctx, cfg, coordLn, false)
}

// connectJob is connect; derived says the job is an elastic job's new
// topology (see handshaker.derived).
func connectJob(ctx context.Context, cfg Config, coordLn net.Listener, derived bool) (c *Comm, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		if coordLn != nil {
			_ = coordLn.Close()
		}
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.ConnectTimeout, fmt.Errorf("tcp: ConnectTimeout of %v expired", cfg.ConnectTimeout))
	defer cancel()
	wrap := func(err error) error { return fmt.Errorf("tcp: rank %d of %d: connect: %w", cfg.Rank, cfg.Size, err) }
	h := newHandshaker(cfg)
	h.derived = derived
	var lc net.ListenConfig

	if cfg.Rank == 0 {
		if coordLn == nil {
			if coordLn, err = lc.Listen(ctx, "tcp", cfg.Coordinator); err != nil {
				return nil, wrap(fmt.Errorf("coordinator: %w", err))
			}
		}
		h.cfg.Tracef("tcp: coordinator of job %q listening on %s", cfg.JobID, coordLn.Addr())
		coordDone := make(chan error, 1)
		go func() { coordDone <- h.coordinate(ctx, coordLn) }()
		defer func() {
			if err != nil {
				// The coordinator's failure, if any, explains this rank's.
				cancel()
				if cerr := <-coordDone; cerr != nil {
					err = wrap(cerr)
				}
				return
			}
			if cerr := <-coordDone; cerr != nil {
				_ = c.Close()
				c, err = nil, wrap(cerr)
			}
		}()
	}

	session, err := h.joinCoordinator(ctx)
	if err != nil {
		return nil, wrap(err)
	}
	local, _ := session.conn.LocalAddr().(*net.TCPAddr)
	listenAddr := cfg.Listen
	if listenAddr == "" && local != nil {
		listenAddr = net.JoinHostPort(local.IP.String(), "0")
	}
	ln, err := lc.Listen(ctx, "tcp", listenAddr)
	if err != nil {
		_ = session.conn.Close()
		return nil, wrap(fmt.Errorf("data listener: %w", err))
	}
	advertised := ln.Addr().String()
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.IsUnspecified() && local != nil {
		advertised = net.JoinHostPort(local.IP.String(), fmt.Sprint(a.Port))
	}
	h.cfg.Tracef("tcp: rank %d of %d: listening for peers on %s", cfg.Rank, cfg.Size, advertised)

	m := newMesh(ctx, h)
	m.accept(ln)
	addrs, err := h.register(ctx, session, advertised)
	if err != nil {
		m.fail(err)
		_, _ = m.wait(ctx, ln)
		return nil, wrap(err)
	}
	m.dial(addrs)
	conns, err := m.wait(ctx, ln)
	if err != nil {
		return nil, wrap(err)
	}
	return newComm(cfg, h.jobHash, conns), nil
}

// Comm is one rank's comm.Comm over TCP. Its methods other than Close and
// Abort must be called from one goroutine at a time.
type Comm struct {
	rank, size  int // logical rank and size (the process's when Replicas is 1)
	proc, procs int // this process's id and the number of processes
	replicas    int // replication factor S: procs = S·size
	job         uint64
	maxFrame    int
	peerTimeout time.Duration
	grace       time.Duration
	logf        func(format string, args ...any)
	peers       []*peer // by rank; nil at this rank
	cfg         Config  // how this Comm was connected (Shrink reuses it)

	// Elastic jobs (shrink.go, grow.go): the job id of the job this Comm's
	// topology descends from (what joining processes prove), the epoch of
	// the topology change that made it (0: Connect), and rank 0's lobby
	// of processes waiting to join (nil unless AcceptJoins was called on
	// this Comm or on the one it replaced). lobby is guarded by mu.
	rootJob string
	epoch   int
	lobby   *lobby

	stats  comm.Stats
	inCall atomic.Bool
	seq    uint64 // sequence number of the last call
	among  []bool // the call in progress is among these ranks only (nil: all; group.go)
	group  groupScratch

	// The collectives, over exchange (comm/wire).
	wire.Collectives
	// Per-call scratch, owned by the calling goroutine.
	msgs [][]byte // messages of the current call, by source rank

	// wake is poked (never blocking) whenever a frame is sent or received,
	// a reader or writer stops, or the job fails.
	wake chan struct{}

	mu      sync.Mutex
	cond    sync.Cond // signalled when peer.filling or peer.writing falls, a call starts, the job fails or closes
	failErr error     // why the job failed on this rank; nil while healthy
	closing bool

	// arrived[g] is the last call whose message from logical rank g has
	// arrived from one of its replicas (Replicas > 1 only): later copies
	// of that message are dropped as they come in.
	arrived []uint64
	replicaCounters

	bg        sync.WaitGroup // abort notices; no Add once closing is set
	readers   sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

var _ comm.Comm = (*Comm)(nil)

// peer is the connection to one other rank.
type peer struct {
	rank  int // the peer's process id
	group int // the peer's logical rank (= rank when Replicas is 1)
	conn  net.Conn
	br    *bufio.Reader
	chunk int // largest frame payload sent to this peer

	wmu     sync.Mutex // serialises writes on conn; guards the fields below
	hdr     [HeaderSize]byte
	trailer [TrailerSize]byte
	wbroken error // a write failed: the stream may hold a partial frame

	// Guarded by Comm.mu.
	want    uint64     // sequence number of the call waiting for this peer
	dest    []byte     // the caller's buffer for message want
	filling bool       // the reader is writing into dest
	inbox   []*message // complete messages not yet taken, in order
	err     error      // why the reader stopped
	writing bool       // the current call's message to this peer is being sent
	werr    error      // why sending the current call's message failed
	dead    error      // Replicas > 1: why this replica was given up; nil while live
	entered uint64     // Replicas > 1, a replica of this rank: the last call it entered
	aborted bool       // p sent an abort notice: it sends nothing more that counts
}

// message is one collective's payload from one peer.
type message struct {
	seq   uint64
	kind  comm.Collective
	phase uint64
	arg   uint64
	total uint64
	data  []byte
}

func newComm(cfg Config, job uint64, conns []*peerConn) *Comm {
	logical := cfg.Size / cfg.Replicas
	c := &Comm{
		rank:        cfg.Rank % logical,
		size:        logical,
		proc:        cfg.Rank,
		procs:       cfg.Size,
		replicas:    cfg.Replicas,
		job:         job,
		maxFrame:    cfg.MaxFrame,
		peerTimeout: cfg.PeerTimeout,
		grace:       min(cfg.PeerTimeout, maxGrace),
		logf:        cfg.Logf,
		peers:       make([]*peer, cfg.Size),
		cfg:         cfg,
		rootJob:     cfg.JobID,
		msgs:        make([][]byte, logical),
		arrived:     make([]uint64, logical),
		wake:        make(chan struct{}, 1),
	}
	c.cond.L = &c.mu
	c.Collectives = wire.NewCollectives(wire.Backend{Rank: c.rank, Size: c.size, Stats: &c.stats,
		Exchange: c.exchange, SelfFail: c.selfFail, PeerFail: c.peerFail})
	for r, pc := range conns {
		if pc == nil || r == cfg.Rank {
			continue
		}
		c.peers[r] = &peer{rank: r, group: r % logical, conn: pc.conn, br: pc.br, chunk: min(maxChunk, pc.maxFrame)}
	}
	for _, p := range c.peers {
		if p != nil {
			c.readers.Add(1)
			go c.read(p)
		}
	}
	return c
}

// Rank is this rank's id.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in the job.
func (c *Comm) Size() int { return c.size }

// Stats is this rank's communication counters.
func (c *Comm) Stats() *comm.Stats { return &c.stats }

func (c *Comm) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// failure is why the job failed on this rank, or nil.
func (c *Comm) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failErr
}

// fail records cause as the reason the job failed on this rank, unless it
// failed already, and tells every peer.
func (c *Comm) fail(cause error) {
	c.mu.Lock()
	if c.failErr != nil {
		c.mu.Unlock()
		return
	}
	c.failErr = cause
	notify := !c.closing
	if notify {
		c.bg.Add(1)
	}
	c.mu.Unlock()
	c.cond.Broadcast()
	c.poke()
	c.logf("tcp: rank %d: job aborted: %v", c.rank, cause)
	if notify {
		go c.notifyAbort(cause)
	}
}

// Abort fails the job because of err: every pending and later call on this
// rank fails, and every peer is told, so that their calls fail too, naming
// this rank and err. Only the first failure of a Comm is recorded. Abort may
// be called from any goroutine.
func (c *Comm) Abort(err error) {
	if err == nil {
		err = errors.New("aborted without a reason")
	}
	c.fail(err)
}

// notifyAbort sends an abort notice to every peer.
func (c *Comm) notifyAbort(cause error) {
	defer c.bg.Done()
	blame, reason := c.rank, cause.Error()
	var pe *PeerError
	if errors.As(cause, &pe) {
		blame, reason = pe.Rank, pe.Err.Error()
	}
	payload := encodeAbort(blame, reason)
	var wg sync.WaitGroup
	for _, p := range c.peers {
		if p != nil {
			wg.Go(func() { c.sendControl(p, FrameAbort, payload) })
		}
	}
	wg.Wait()
}

// sendControl writes one control frame, waiting at most the grace period.
func (c *Comm) sendControl(p *peer, t FrameType, payload []byte) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.wbroken != nil {
		return
	}
	_ = p.conn.SetWriteDeadline(time.Now().Add(c.grace))
	if _, err := p.conn.Write(AppendFrame(nil, Frame{Type: t, Job: c.job, Src: uint32(c.proc)}, payload)); err != nil {
		p.wbroken = err
	}
}

func encodeAbort(blame int, reason string) []byte {
	if len(reason) > maxAbortReason {
		reason = reason[:maxAbortReason] + "..."
	}
	return append(binary.LittleEndian.AppendUint32(nil, uint32(int32(blame))), reason...)
}

// decodeAbort reads an abort notice. Its reason comes from another
// process: it is capped and its control characters escaped, so that
// printing it cannot forge lines or drive the terminal.
func decodeAbort(p []byte) (blame int, reason string) {
	if len(p) < 4 {
		return -1, "malformed abort notice"
	}
	return int(int32(binary.LittleEndian.Uint32(p))), untrusted.Line(string(p[4:min(len(p), 4+4*maxAbortReason)]), maxAbortReason)
}

// Close leaves the job: it tells the peers (a goodbye if the job is
// healthy; an abort notice was sent already otherwise), closes every
// connection and waits for this Comm's goroutines. A call in progress fails.
// Calls after Close fail with an error wrapping comm.ErrAborted and ErrClosed.
// Close is idempotent and may be called from any goroutine.
func (c *Comm) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown() })
	return c.closeErr
}

func (c *Comm) shutdown() error {
	c.mu.Lock()
	healthy := c.failErr == nil
	failErr := c.failErr
	if healthy {
		c.failErr = ErrClosed
	}
	c.closing = true
	lb := c.lobby
	c.lobby = nil
	c.mu.Unlock()
	if lb != nil {
		// The job ends here (or failed): tell the processes still waiting.
		lb.close(failErr)
	}
	c.cond.Broadcast()
	c.poke()
	// The goodbyes have their own WaitGroup: c.bg takes no Add once closing
	// is set, so other goroutines may wait on it (runRank does, after an
	// Abort) while Close runs in yet another.
	var byes sync.WaitGroup
	if healthy {
		for _, p := range c.peers {
			if p != nil {
				byes.Go(func() { c.sendControl(p, FrameBye, nil) })
			}
		}
	}
	byes.Wait()
	c.bg.Wait()
	var errs []error
	c.mu.Lock()
	dead := make([]bool, len(c.peers))
	for i, p := range c.peers {
		dead[i] = p != nil && p.dead != nil
	}
	c.mu.Unlock()
	if c.replicas > 1 && healthy {
		c.drain(dead)
	}
	for i, p := range c.peers {
		if p != nil && !dead[i] {
			// Half-close first, so that the peer reads everything written
			// before it sees the end of the stream.
			if cw, ok := p.conn.(interface{ CloseWrite() error }); ok {
				_ = cw.CloseWrite()
			}
			if err := p.conn.Close(); err != nil {
				errs = append(errs, fmt.Errorf("tcp: rank %d: closing the connection to %s: %w", c.rank, c.procName(p), err))
			}
		}
	}
	c.readers.Wait()
	return errors.Join(errs...)
}

// writeMessage sends data to p as the message described by f, in frames of
// at most p.chunk bytes.
func (c *Comm) writeMessage(p *peer, f Frame, data []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.wbroken != nil {
		return p.wbroken
	}
	f.Total = uint64(len(data))
	for off := 0; ; {
		n := min(len(data)-off, p.chunk)
		piece := data[off : off+n]
		f.Len, f.Flags = uint32(n), 0
		if off+n == len(data) {
			f.Flags = FlagLast
		}
		putHeader(p.hdr[:], f)
		binary.LittleEndian.PutUint32(p.trailer[:], frameCRC(p.hdr[:], piece))
		bufs := net.Buffers{p.hdr[:], piece, p.trailer[:]}
		if _, err := bufs.WriteTo(p.conn); err != nil {
			p.wbroken = err
			return err
		}
		off += n
		if off == len(data) {
			return nil
		}
		c.poke()
	}
}
