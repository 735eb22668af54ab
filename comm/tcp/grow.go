// This file is elastic ramp-up (paper 002 §V-C, "add new tasks", and §III's
// ramp-up mode): processes that join a running job between iterations.
//
// Rank 0 keeps a lobby on the job's coordinator address (AcceptJoins). A
// process that wants to join (Join) proves the job token to it over fresh
// nonces, like a rank registering, and waits there; the lobby answers with
// a proof of its own, so both sides are authenticated and no proof can be
// replayed. The job learns how many processes wait (PendingJoins, which
// rank 0 reads at an iteration boundary and shares with the iteration's
// own reduction), and at a boundary every rank calls Grow with that number.
// Rank 0 then takes that many processes from the lobby in arrival order,
// turns its listener over to a fresh rendezvous for the job of Size+k ranks
// (the joiners get the new highest ranks), and tells each joiner its rank,
// the size, the epoch and the new job id (derived from the old one, the
// epoch and k, so every rank agrees on it by construction) in an admission
// carrying another proof. Every rank of the old job and every joiner then
// connect as in Connect, and confirm the new topology with one barrier over
// it; only then is the old Comm closed.
//
// The growth is bounded by half the peer timeout (the other ranks wait up
// to a second more, so that rank 0's verdict reaches them): a joiner that
// vanishes leaves the new job incomplete, and every rank fails within that
// bound, naming the missing rank (rank 0 also names the joiner's address). The old
// Comm is untouched by a failed growth (nothing travels over it), so the
// job can go on with the ranks it had; half the peer timeout keeps ranks
// that give up at different moments from blaming each other on it.
//
// Rank 0's listener serves two kinds of connections. Between rendezvous it
// is the lobby: its challenge names the root job and carries lobbyMarker.
// During a rendezvous (a growth, or a Shrink) it hands every connection to
// the rendezvous' coordinator. A rank of the new job that reaches the lobby
// too early sees another job's challenge and dials again (handshaker.
// derived); a joiner that reaches a rendezvous sees a challenge without the
// marker and knocks again later. A joiner that sees the lobby of another job
// (another token, or another job id) fails at once.

package tcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// Labels of the join proofs.
const (
	labelJoin   = "graphrun/tcp/v1 join"
	labelQueued = "graphrun/tcp/v1 queued"
	labelAdmit  = "graphrun/tcp/v1 admit"
)

// lobbyMarker is the Arg of a lobby's challenge ("lobby" in ASCII).
const lobbyMarker = 0x79_62_62_6f_6c

// maxTag bounds a joining process's tag.
const maxTag = 4 << 10

// PhaseGrow is the phase name of the barrier that confirms a grown topology.
const PhaseGrow = "tcp.grow"

// ErrJobEnded is returned by Join when the job ended before it took the
// process in: its rank 0 closed the lobby after the job finished.
var ErrJobEnded = errors.New("tcp: the elastic job ended before it took this process in")

// ErrForeignLobby is wrapped by Join's error when the lobby on the
// coordinator address belongs to another job: another token, or another
// job id.
var ErrForeignLobby = errors.New("the lobby answers for another job")

// errQuiet marks lobby connections that went away without a word: ranks of
// a new topology that reached the lobby too early, and port scans.
var errQuiet = errors.New("closed before a join request")

// growTimeout bounds the rendezvous of a growth on rank 0, whose
// coordinator gives up first: half the peer timeout (see the file comment),
// at most the connect timeout. The other ranks and the joiners wait a
// little longer (growRankTimeout), so that the coordinator's abort naming
// the missing ranks reaches them before their own deadline.
func growTimeout(cfg Config) time.Duration { return min(cfg.ConnectTimeout, cfg.PeerTimeout/2) }

// growRankTimeout bounds the rendezvous of a growth on the ranks but 0:
// growTimeout and a quarter of the peer timeout (at most a second) more.
func growRankTimeout(cfg Config) time.Duration {
	return growTimeout(cfg) + min(time.Second, cfg.PeerTimeout/4)
}

// anyPort is listen with port 0: the old data listener's port may still be
// taken, and any port will do for a new topology.
func anyPort(listen string) string {
	if listen == "" {
		return ""
	}
	if host, _, err := net.SplitHostPort(listen); err == nil {
		return net.JoinHostPort(host, "0")
	}
	return listen
}

// growJobID is the job id of the topology that grows job by k processes
// at epoch.
func growJobID(job string, epoch, k int) string {
	return fmt.Sprintf("%s/elastic-%d/grow-%d", job, epoch, k)
}

// Epoch is the epoch of the topology change that made this Comm (Shrink,
// Grow or Join); 0 for a Comm from Connect.
func (c *Comm) Epoch() int { return c.epoch }

// AcceptJoins opens rank 0's lobby: from now on processes may ask to join
// the job (Join) on its coordinator address, proving the job token and
// presenting tag, which must equal this one (a digest of the run's
// configuration, say; a joiner whose tag differs is refused with both
// tags). They wait in the lobby until a Grow takes them. The lobby passes
// to the Comm that Shrink or Grow returns and closes with the last one:
// the processes still waiting then learn that the job ended (Join returns
// ErrJobEnded) or failed. Only rank 0 of an unreplicated job accepts joins.
func (c *Comm) AcceptJoins(tag string) error {
	switch {
	case c.replicas > 1:
		return fmt.Errorf("tcp: rank %d of %d: %w: a replicated job takes no joining processes", c.rank, c.size, ErrNotElastic)
	case c.rank != 0:
		return fmt.Errorf("tcp: rank %d of %d: only rank 0, the coordinator, accepts joining processes", c.rank, c.size)
	case len(tag) > maxTag:
		return fmt.Errorf("tcp: a join tag of %d bytes is longer than %d", len(tag), maxTag)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.lobby != nil:
		return fmt.Errorf("tcp: rank 0 of %d accepts joining processes already", c.size)
	case c.failErr != nil:
		return fmt.Errorf("tcp: rank 0 of %d: the job is over: %w", c.size, c.failErr)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", c.cfg.Coordinator)
	if err != nil {
		return fmt.Errorf("tcp: rank 0 of %d: lobby for joining processes: %w", c.size, err)
	}
	hcfg := c.cfg
	hcfg.JobID = c.rootJob
	c.lobby = newLobby(newHandshaker(hcfg), tag, ln)
	c.logf("tcp: rank 0: processes may join job %q on %s", c.rootJob, ln.Addr())
	return nil
}

// PendingJoins is the number of processes waiting in rank 0's lobby (0 on
// other ranks, or when no lobby is open). It changes at any time; the job
// shares the value rank 0 read (see Grow).
func (c *Comm) PendingJoins() int {
	lb := c.currentLobby()
	if lb == nil {
		return 0
	}
	return lb.pending()
}

// currentLobby is c's lobby, or nil.
func (c *Comm) currentLobby() *lobby {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lobby
}

// takeLobby detaches c's lobby (to hand it to the Comm that replaces c).
func (c *Comm) takeLobby() *lobby {
	c.mu.Lock()
	defer c.mu.Unlock()
	lb := c.lobby
	c.lobby = nil
	return lb
}

// rendezvousListener is what rank 0's coordinator of a new topology
// listens on: the lobby's listener when a lobby is open (nil otherwise,
// and connect listens on the coordinator address itself).
func (c *Comm) rendezvousListener() (net.Listener, error) {
	lb := c.currentLobby()
	if lb == nil {
		return nil, nil
	}
	rv, err := lb.openRendezvous()
	if err != nil {
		return nil, err
	}
	return rv, nil
}

// Grow builds the Comm of c's ranks and joiners more processes, which wait
// in rank 0's lobby: every rank of c calls it with the same joiners (the
// count rank 0 read from PendingJoins and shared) and epoch (≥ 1, one more
// than the last topology change of the job, Shrinks included). The ranks
// keep their numbers; the joiners, in arrival order, get ranks c.Size() up.
// On success c is closed (its lobby passes to the new Comm) and the new
// Comm returned. On failure c is left as it was, still usable: nothing
// travels over it during a growth. A growth fails within half the peer
// timeout (at most the connect timeout; ranks other than 0 wait up to a
// second more for rank 0's verdict) if a joiner is missing, naming its
// rank; rank 0 fails at once if it has no lobby.
//
// Grow implements comm.Elastic; grow is the same returning the concrete
// Comm.
func (c *Comm) Grow(ctx context.Context, joiners, epoch int) (comm.Elastic, error) {
	nc, err := c.grow(ctx, joiners, epoch)
	if err != nil {
		return nil, err
	}
	return nc, nil
}

func (c *Comm) grow(ctx context.Context, joiners, epoch int) (*Comm, error) {
	switch {
	case c.replicas > 1:
		return nil, fmt.Errorf("tcp: rank %d of %d: %w: a replicated job does not grow", c.rank, c.size, ErrNotElastic)
	case joiners < 1:
		return nil, fmt.Errorf("tcp: rank %d of %d: growing by %d processes, want ≥ 1", c.rank, c.size, joiners)
	case epoch < 1:
		return nil, fmt.Errorf("tcp: rank %d of %d: growth epoch %d, want ≥ 1", c.rank, c.size, epoch)
	}
	if err := c.failure(); err != nil {
		return nil, fmt.Errorf("tcp: rank %d of %d: a failed job does not grow: %w", c.rank, c.size, err)
	}
	cfg := c.cfg
	cfg.Size = c.size + joiners
	cfg.JobID = growJobID(c.cfg.JobID, epoch, joiners)
	cfg.Listen = anyPort(cfg.Listen)
	cfg.ConnectTimeout = growRankTimeout(c.cfg)
	if c.rank == 0 {
		cfg.ConnectTimeout = growTimeout(c.cfg)
	}
	wrap := func(err error) error {
		return fmt.Errorf("tcp: rank %d of %d: growing to %d ranks (epoch %d): %w", c.rank, c.size, cfg.Size, epoch, err)
	}
	var coordLn net.Listener
	var admitted []string // rank 0: where the joiners came from, by new rank − c.size
	if c.rank == 0 {
		lb := c.currentLobby()
		if lb == nil {
			return nil, wrap(errors.New("rank 0 accepts no joining processes (AcceptJoins was not called)"))
		}
		rv, err := lb.openRendezvous()
		if err != nil {
			return nil, wrap(err)
		}
		coordLn = rv
		taken := lb.take(joiners)
		for i, w := range taken {
			a := admission{epoch: epoch, rank: c.size + i, size: cfg.Size, peerTimeout: cfg.PeerTimeout, connectTimeout: growRankTimeout(c.cfg), jobID: cfg.JobID}
			admitted = append(admitted, w.from)
			if err := lb.admit(w, a, time.Now().Add(cfg.ConnectTimeout)); err != nil {
				c.logf("tcp: rank 0: admitting the process from %s as rank %d: %v", w.from, a.rank, err)
			}
		}
		if len(taken) < joiners {
			c.logf("tcp: rank 0: only %d of the %d processes counted still wait to join; the growth will miss the others", len(taken), joiners)
		}
	}
	c.logf("tcp: rank %d of %d: %d process(es) join; going on as rank %d of %d (epoch %d)", c.rank, c.size, joiners, c.rank, cfg.Size, epoch)
	nc, err := connectJob(ctx, cfg, coordLn, true)
	if err != nil {
		if len(admitted) > 0 {
			err = fmt.Errorf("%w (joiners: %s)", err, joinerList(c.size, admitted))
		}
		return nil, wrap(err)
	}
	if err := nc.Barrier(ctx, PhaseGrow); err != nil {
		_ = nc.Close()
		return nil, wrap(fmt.Errorf("confirming the new topology: %w", err))
	}
	nc.rootJob, nc.epoch = c.rootJob, epoch
	nc.lobby = c.takeLobby()
	_ = c.Close()
	return nc, nil
}

// joinerList names joiners by their new rank and address.
func joinerList(first int, from []string) string {
	var b bytes.Buffer
	for i, a := range from {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "rank %d from %s", first+i, a)
	}
	return b.String()
}

// Join asks the elastic job whose rank 0 listens on cfg.Coordinator to
// take this process in, proving cfg.Token for cfg.JobID (the job's id, not
// a derived one) and presenting tag (see AcceptJoins). cfg.Rank, Size and
// Replicas are ignored: the job gives the rank, the size, the peer and
// connect timeouts. Join waits, reaching the lobby within
// cfg.ConnectTimeout, until a growth takes the process in (or ctx is done,
// or the lobby goes away), then connects to every rank of the grown job
// and returns its Comm, whose Epoch is the growth's. It fails at once when
// the lobby refuses the process (wrong token, job id or tag) and with
// ErrJobEnded when the job ended first.
func Join(ctx context.Context, cfg Config, tag string) (*Comm, error) {
	if len(tag) > maxTag {
		return nil, fmt.Errorf("tcp: a join tag of %d bytes is longer than %d", len(tag), maxTag)
	}
	cfg.Rank, cfg.Size, cfg.Replicas = 0, 1, 1
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	h := newHandshaker(cfg)
	a, err := h.requestJoin(ctx, []byte(tag))
	if err != nil {
		return nil, fmt.Errorf("tcp: joining the job at %s: %w", cfg.Coordinator, err)
	}
	cfg.Rank, cfg.Size, cfg.JobID = a.rank, a.size, a.jobID
	cfg.PeerTimeout, cfg.ConnectTimeout = a.peerTimeout, a.connectTimeout
	cfg.Logf("tcp: admitted to the job at %s as rank %d of %d (epoch %d)", cfg.Coordinator, a.rank, a.size, a.epoch)
	wrap := func(err error) error {
		return fmt.Errorf("tcp: joining the job at %s as rank %d of %d (epoch %d): %w", cfg.Coordinator, a.rank, a.size, a.epoch, err)
	}
	nc, err := connectJob(ctx, cfg, nil, true)
	if err != nil {
		return nil, wrap(err)
	}
	if err := nc.Barrier(ctx, PhaseGrow); err != nil {
		_ = nc.Close()
		return nil, wrap(fmt.Errorf("confirming the new topology: %w", err))
	}
	nc.rootJob, nc.epoch = h.cfg.JobID, a.epoch
	return nc, nil
}

// admission is what the lobby tells a joiner that a growth takes in.
type admission struct {
	epoch, rank, size           int
	peerTimeout, connectTimeout time.Duration
	jobID                       string
}

func (a admission) encode() []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(a.epoch))
	b = binary.LittleEndian.AppendUint32(b, uint32(a.rank))
	b = binary.LittleEndian.AppendUint32(b, uint32(a.size))
	b = binary.LittleEndian.AppendUint64(b, uint64(a.peerTimeout))
	b = binary.LittleEndian.AppendUint64(b, uint64(a.connectTimeout))
	return append(b, a.jobID...)
}

func decodeAdmission(b []byte) (admission, error) {
	if len(b) < 28 {
		return admission{}, fmt.Errorf("admission of %d bytes is too short", len(b))
	}
	a := admission{
		epoch:          int(binary.LittleEndian.Uint32(b)),
		rank:           int(binary.LittleEndian.Uint32(b[4:])),
		size:           int(binary.LittleEndian.Uint32(b[8:])),
		peerTimeout:    time.Duration(binary.LittleEndian.Uint64(b[12:])),
		connectTimeout: time.Duration(binary.LittleEndian.Uint64(b[20:])),
		jobID:          string(b[28:]),
	}
	switch {
	case a.epoch < 1 || a.size < 2 || a.rank < 1 || a.rank >= a.size:
		return admission{}, fmt.Errorf("admission as rank %d of %d at epoch %d is out of range", a.rank, a.size, a.epoch)
	case a.peerTimeout <= 0 || a.connectTimeout <= 0:
		return admission{}, errors.New("admission without timeouts")
	}
	return a, nil
}

// ---------------------------------------------------------------------------
// The joining process

// joinSession is a joiner's connection to the lobby once it is queued.
type joinSession struct {
	conn           net.Conn
	nonceC, nonceJ []byte
}

// requestJoin knocks at the lobby until it is queued (within
// ConnectTimeout), then waits for the admission.
func (h *handshaker) requestJoin(ctx context.Context, tag []byte) (*admission, error) {
	reach, cancel := context.WithTimeoutCause(ctx, h.cfg.ConnectTimeout,
		fmt.Errorf("tcp: no lobby of the job queued this process within the ConnectTimeout of %v", h.cfg.ConnectTimeout))
	defer cancel()
	backoff := 5 * time.Millisecond
	for {
		s, busy, err := h.knock(reach, tag)
		if err == nil {
			h.logf("tcp: waiting in rank 0's lobby at %s to join job %q", h.cfg.Coordinator, h.cfg.JobID)
			return h.awaitAdmission(ctx, s)
		}
		if !busy {
			return nil, err
		}
		select {
		case <-reach.Done():
			return nil, fmt.Errorf("%w (last answer: %v)", context.Cause(reach), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 200*time.Millisecond)
	}
}

// knock makes one join request. busy says the coordinator address is
// serving something else right now (a rendezvous) and it is worth trying
// again.
func (h *handshaker) knock(ctx context.Context, tag []byte) (s *joinSession, busy bool, err error) {
	conn, err := dialRetry(ctx, h.cfg.Coordinator)
	if err != nil {
		return nil, false, fmt.Errorf("reaching rank 0's lobby: %w", err)
	}
	release := guard(ctx, conn, handshakeTimeout)
	s, busy, err = h.knockLocked(conn, tag)
	if !release() {
		s, busy, err = nil, false, errors.Join(context.Cause(ctx), err)
	}
	if err != nil {
		_ = conn.Close()
		return nil, busy, err
	}
	return s, false, nil
}

func (h *handshaker) knockLocked(conn net.Conn, tag []byte) (*joinSession, bool, error) {
	f, nonceC, err := ReadFrame(conn, nil, handshakeMaxFrame)
	switch {
	case err != nil:
		return nil, true, fmt.Errorf("reading the challenge: %w", err)
	case f.Type != FrameChallenge || len(nonceC) != nonceSize:
		return nil, false, fmt.Errorf("rank 0 sent a %s frame of %d bytes, not a challenge", f.Type, len(nonceC))
	case f.Job != h.jobHash && f.Arg == lobbyMarker:
		return nil, false, fmt.Errorf("rank 0's lobby at %s: %w (the job ids differ)", h.cfg.Coordinator, ErrForeignLobby)
	case f.Arg != lobbyMarker:
		return nil, true, errors.New("rank 0 is re-forming the job")
	}
	nonceJ, err := newNonce()
	if err != nil {
		return nil, false, err
	}
	req := append(bytesClone(nonceJ), h.proof(labelJoin, nonceC, nonceJ, tag)...)
	req = append(req, tag...)
	if _, err := conn.Write(AppendFrame(nil, Frame{Type: FrameJoin, Job: h.jobHash}, req)); err != nil {
		return nil, true, fmt.Errorf("sending the join request: %w", err)
	}
	f, p, err := ReadFrame(conn, nil, handshakeMaxFrame)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, true, fmt.Errorf("the lobby closed the connection: %w", err)
	case err != nil:
		return nil, false, fmt.Errorf("reading the lobby's answer: %w", err)
	case f.Job != h.jobHash:
		return nil, false, fmt.Errorf("the lobby's answer: %w", errForeignJob)
	case f.Type == FrameAbort:
		_, reason := decodeAbort(p)
		return nil, false, fmt.Errorf("rank 0 refused this process: %s", reason)
	case f.Type != FrameQueued:
		return nil, false, fmt.Errorf("the lobby answered with a %s frame", f.Type)
	case !hmac.Equal(p, h.proof(labelQueued, nonceC, nonceJ)):
		return nil, false, errors.New("the lobby's answer carries an invalid proof of the job token")
	}
	return &joinSession{conn: conn, nonceC: nonceC, nonceJ: nonceJ}, false, nil
}

// awaitAdmission waits in the lobby until a growth takes the process in,
// ctx is done or the lobby goes away.
func (h *handshaker) awaitAdmission(ctx context.Context, s *joinSession) (*admission, error) {
	defer s.conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = s.conn.SetDeadline(aLongTimeAgo) })
	defer stop()
	f, p, err := ReadFrame(s.conn, nil, handshakeMaxFrame)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("waiting to be taken in: %w", context.Cause(ctx))
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("rank 0's lobby went away before taking this process in (rank 0 lost?): %w", err)
	case f.Job != h.jobHash:
		return nil, fmt.Errorf("waiting to be taken in: %w", errForeignJob)
	case f.Type == FrameBye:
		return nil, ErrJobEnded
	case f.Type == FrameAbort:
		_, reason := decodeAbort(p)
		return nil, fmt.Errorf("the job failed before it took this process in: %s", reason)
	case f.Type != FrameAdmit:
		return nil, fmt.Errorf("the lobby sent a %s frame, want an admission", f.Type)
	case len(p) < proofSize:
		return nil, errors.New("the admission is too short")
	}
	proof, payload := p[:proofSize], p[proofSize:]
	if !hmac.Equal(proof, h.proof(labelAdmit, s.nonceC, s.nonceJ, payload)) {
		return nil, errors.New("the admission carries an invalid proof of the job token")
	}
	a, err := decodeAdmission(payload)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// ---------------------------------------------------------------------------
// Rank 0's lobby

// lobby is rank 0's listener on the coordinator address while an elastic
// job runs: the processes waiting to join, and the hand-over of the
// listener to the rendezvous of a new topology.
type lobby struct {
	h    *handshaker // of the root job: what joiners prove
	tag  []byte
	ln   net.Listener
	ctx  context.Context // cancelled when the lobby closes
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu     sync.Mutex
	queue  []*waiter     // queued joiners, in arrival order
	rv     *chanListener // the rendezvous in progress, or nil
	closed bool
	cause  error // why it closed: nil when the job ended

	gate     gatekeeper  // join requests not authenticated yet
	refusals *refusalLog // and the refused ones
}

// waiter is a queued joiner.
type waiter struct {
	conn           net.Conn
	from           string
	nonceC, nonceJ []byte
	taken          bool // guarded by lobby.mu
}

func newLobby(h *handshaker, tag string, ln net.Listener) *lobby {
	ctx, stop := context.WithCancel(context.Background())
	l := &lobby{h: h, tag: []byte(tag), ln: ln, ctx: ctx, stop: stop,
		refusals: newRefusalLog(h.cfg.Logf, "tcp: rank 0: lobby", "the process", "processes")}
	l.wg.Go(l.serve)
	return l
}

func (l *lobby) logf(format string, args ...any) { l.h.logf(format, args...) }

// serve accepts connections until the listener closes.
func (l *lobby) serve() {
	for {
		conn, err := l.ln.Accept()
		if err != nil {
			return
		}
		l.mu.Lock()
		rv := l.rv
		l.mu.Unlock()
		if rv != nil && rv.offer(conn) {
			continue
		}
		l.wg.Go(func() { l.welcome(conn) })
	}
}

// welcome runs the lobby's side of a join request and keeps the joiner
// queued until a growth takes it or it goes away.
func (l *lobby) welcome(conn net.Conn) {
	from := conn.RemoteAddr().String()
	leave := l.gate.admit(conn)
	release := guard(l.ctx, conn, handshakeTimeout)
	w, err := l.handshake(conn, from)
	if !release() && err == nil {
		err = errors.New("the lobby closed")
	}
	if leave() {
		err = errEvicted
	}
	if err != nil {
		if !errors.Is(err, errQuiet) && l.ctx.Err() == nil {
			l.refusals.refused(from, err)
		}
		_ = conn.Close()
		return
	}
	l.mu.Lock()
	if l.closed {
		cause := l.cause
		l.mu.Unlock()
		l.dismiss(w, cause)
		return
	}
	l.queue = append(l.queue, w)
	n := len(l.queue)
	l.mu.Unlock()
	l.logf("tcp: rank 0: lobby: the process from %s waits to join (%d waiting)", from, n)
	// The joiner sends nothing more: a read returns when it goes away, or
	// when the connection is closed after its admission.
	var b [1]byte
	_, _ = conn.Read(b[:])
	l.mu.Lock()
	left := !w.taken && !l.closed
	if left {
		for i, q := range l.queue {
			if q == w {
				l.queue = append(l.queue[:i:i], l.queue[i+1:]...)
				break
			}
		}
	}
	l.mu.Unlock()
	if left {
		l.logf("tcp: rank 0: lobby: the process from %s stopped waiting", from)
		_ = conn.Close()
	}
}

// handshake checks a join request: the root job, the token, the tag.
func (l *lobby) handshake(conn net.Conn, from string) (*waiter, error) {
	nonceC, err := newNonce()
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write(AppendFrame(nil, Frame{Type: FrameChallenge, Job: l.h.jobHash, Arg: lobbyMarker}, nonceC)); err != nil {
		return nil, err
	}
	f, p, err := ReadFrame(conn, nil, preAuthMaxFrame)
	switch {
	case err == io.EOF:
		return nil, errQuiet
	case err != nil:
		return nil, err
	case f.Job != l.h.jobHash:
		return nil, errForeignJob
	case f.Type != FrameJoin:
		return nil, fmt.Errorf("got a %s frame, want a join request", f.Type)
	case len(p) < nonceSize+proofSize || len(p) > nonceSize+proofSize+maxTag:
		return nil, fmt.Errorf("join request of %d bytes", len(p))
	}
	nonceJ, proof, tag := p[:nonceSize], p[nonceSize:nonceSize+proofSize], p[nonceSize+proofSize:]
	refuse := func(reason error) error {
		_, _ = conn.Write(AppendFrame(nil, Frame{Type: FrameAbort, Job: l.h.jobHash}, encodeAbort(-1, reason.Error())))
		return reason
	}
	if !hmac.Equal(proof, l.h.proof(labelJoin, nonceC, nonceJ, tag)) {
		return nil, refuse(errBadProof)
	}
	if !bytes.Equal(tag, l.tag) {
		return nil, refuse(fmt.Errorf("its configuration differs from the job's (tag %q, the job's %q)", tag, l.tag))
	}
	nonceJ = bytesClone(nonceJ)
	if _, err := conn.Write(AppendFrame(nil, Frame{Type: FrameQueued, Job: l.h.jobHash}, l.h.proof(labelQueued, nonceC, nonceJ))); err != nil {
		return nil, err
	}
	return &waiter{conn: conn, from: from, nonceC: nonceC, nonceJ: nonceJ}, nil
}

// pending is the number of queued joiners.
func (l *lobby) pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.queue)
}

// take removes up to k joiners from the head of the queue.
func (l *lobby) take(k int) []*waiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := min(k, len(l.queue))
	taken := append([]*waiter(nil), l.queue[:n]...)
	l.queue = append([]*waiter(nil), l.queue[n:]...)
	for _, w := range taken {
		w.taken = true
	}
	return taken
}

// admit sends a taken joiner its admission, writing until deadline at
// most, and closes its connection.
func (l *lobby) admit(w *waiter, a admission, deadline time.Time) error {
	defer w.conn.Close()
	payload := a.encode()
	msg := append(l.h.proof(labelAdmit, w.nonceC, w.nonceJ, payload), payload...)
	_ = w.conn.SetWriteDeadline(deadline)
	_, err := w.conn.Write(AppendFrame(nil, Frame{Type: FrameAdmit, Job: l.h.jobHash}, msg))
	return err
}

// dismiss tells a joiner that the job ended (cause nil) or failed, and
// closes its connection.
func (l *lobby) dismiss(w *waiter, cause error) {
	_ = w.conn.SetWriteDeadline(time.Now().Add(time.Second))
	if cause == nil {
		_, _ = w.conn.Write(AppendFrame(nil, Frame{Type: FrameBye, Job: l.h.jobHash}, nil))
	} else {
		_, _ = w.conn.Write(AppendFrame(nil, Frame{Type: FrameAbort, Job: l.h.jobHash}, encodeAbort(-1, cause.Error())))
	}
	_ = w.conn.Close()
}

// openRendezvous hands the listener's next connections to a new
// topology's coordinator until it closes the returned listener.
func (l *lobby) openRendezvous() (*chanListener, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errors.New("rank 0's lobby is closed")
	}
	if l.rv != nil {
		l.rv.Close()
	}
	l.rv = &chanListener{addr: l.ln.Addr(), conns: make(chan net.Conn), done: make(chan struct{})}
	return l.rv, nil
}

// close stops the lobby and dismisses the joiners still waiting: the job
// ended (cause nil) or failed.
func (l *lobby) close(cause error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed, l.cause = true, cause
	queue, rv := l.queue, l.rv
	l.queue, l.rv = nil, nil
	l.mu.Unlock()
	_ = l.ln.Close()
	if rv != nil {
		rv.Close()
	}
	l.stop()
	for _, w := range queue {
		l.dismiss(w, cause)
	}
	l.wg.Wait()
	l.refusals.flush()
}

// chanListener is a net.Listener whose connections the lobby accepted.
type chanListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (cl *chanListener) Accept() (net.Conn, error) {
	select {
	case <-cl.done:
		return nil, net.ErrClosed
	case conn := <-cl.conns:
		return conn, nil
	}
}

func (cl *chanListener) Close() error {
	cl.once.Do(func() { close(cl.done) })
	return nil
}

func (cl *chanListener) Addr() net.Addr { return cl.addr }

// offer hands conn to the listener's Accept, unless it is closed.
func (cl *chanListener) offer(conn net.Conn) bool {
	select {
	case cl.conns <- conn:
		return true
	case <-cl.done:
		return false
	}
}
