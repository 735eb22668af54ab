package tcp

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

const (
	nonceSize = 32
	proofSize = sha256.Size

	// handshakeMaxFrame bounds the frames a dialer reads during the
	// rendezvous, from the listener it chose to reach. The address table is
	// the largest. (Listeners read at most preAuthMaxFrame: preauth.go.)
	handshakeMaxFrame = 1 << 20
	// handshakeTimeout bounds one connection's handshake, so that a client
	// that connects and stays silent cannot hold a goroutine for long.
	handshakeTimeout = 10 * time.Second
	// readBufferSize is the size of a peer connection's read buffer. Larger
	// reads (payloads) bypass it.
	readBufferSize = 64 << 10
	// maxAddrLen bounds a listen address in the registration.
	maxAddrLen = 255
)

// Labels of the handshake proofs, so that no proof can stand in for another.
const (
	labelHello    = "graphrun/tcp/v1 hello"
	labelWelcome  = "graphrun/tcp/v1 welcome"
	labelRegister = "graphrun/tcp/v1 register"
	labelTable    = "graphrun/tcp/v1 table"
)

var errForeignJob = errors.New("frame of another job (job id differs)")

// handshaker holds what a rank needs to prove itself and check its peers.
type handshaker struct {
	cfg     Config
	job     []byte // cfg.JobID
	jobHash uint64
	// derived: the job is an elastic job's new topology (Shrink, Grow,
	// Join), whose coordinator address rank 0 may still serve as the old
	// job's lobby for a moment: a challenge of another job there means
	// "not yet", and joinCoordinator dials again until ctx is done.
	derived bool
}

func newHandshaker(cfg Config) *handshaker {
	return &handshaker{cfg: cfg, job: []byte(cfg.JobID), jobHash: jobHash(cfg.JobID)}
}

// jobHash is the job id as carried in every frame header.
func jobHash(jobID string) uint64 {
	sum := sha256.Sum256([]byte("graphrun/tcp job\x00" + jobID))
	return binary.LittleEndian.Uint64(sum[:8])
}

// proof is HMAC-SHA256(token, label ‖ job id ‖ parts...), each part length-prefixed.
func (h *handshaker) proof(label string, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, h.cfg.Token)
	var n [4]byte
	write := func(p []byte) {
		binary.LittleEndian.PutUint32(n[:], uint32(len(p)))
		m.Write(n[:])
		m.Write(p)
	}
	write([]byte(label))
	write(h.job)
	for _, p := range parts {
		write(p)
	}
	return m.Sum(nil)
}

func u32(v int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

func newNonce() ([]byte, error) {
	b := make([]byte, nonceSize)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("tcp: generating a nonce: %w", err)
	}
	return b, nil
}

// send writes one handshake frame.
func (h *handshaker) send(w io.Writer, t FrameType, src int, payload []byte) error {
	_, err := w.Write(AppendFrame(nil, Frame{Type: t, Job: h.jobHash, Src: uint32(src)}, payload))
	return err
}

// receive reads one handshake frame of at most limit bytes, which must be of
// type want and of this job.
func (h *handshaker) receive(r io.Reader, want FrameType, limit int) (Frame, []byte, error) {
	f, payload, err := ReadFrame(r, nil, limit)
	switch {
	case err != nil:
		return Frame{}, nil, err
	case f.Job != h.jobHash:
		return Frame{}, nil, errForeignJob
	case f.Type == FrameAbort && want != FrameAbort:
		_, reason := decodeAbort(payload)
		return Frame{}, nil, fmt.Errorf("the other side gave up: %s", reason)
	case f.Type != want:
		return Frame{}, nil, fmt.Errorf("got a %s frame, want %s", f.Type, want)
	}
	return f, payload, nil
}

// guard bounds conn's I/O by the earlier of ctx's deadline and now+limit and
// cuts it short when ctx is done. The returned function lifts both and
// reports whether ctx was still live.
func guard(ctx context.Context, conn net.Conn, limit time.Duration) func() bool {
	deadline := time.Now().Add(limit)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(aLongTimeAgo) })
	return func() bool {
		live := stop()
		if live {
			_ = conn.SetDeadline(time.Time{})
		}
		return live
	}
}

// aLongTimeAgo is a deadline in the past: I/O against it fails at once.
var aLongTimeAgo = time.Unix(1, 0)

// dialRetry dials addr until it succeeds or ctx is done.
func dialRetry(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	backoff := 10 * time.Millisecond
	for {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("dialing %s: %w (last attempt: %v)", addr, ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}

// ---------------------------------------------------------------------------
// Coordinator

// registration is a rank that proved itself to the coordinator and waits for
// the address table.
type registration struct {
	rank           int
	conn           net.Conn
	nonceC, nonceR []byte
	addr           string
}

// coordinate runs rank 0's coordinator on ln until every rank registered and
// got the address table, or ctx is done. It closes ln.
func (h *handshaker) coordinate(ctx context.Context, ln net.Listener) error {
	size := h.cfg.Size
	regs := make([]*registration, size)
	registered := make(chan *registration)
	hctx, stop := context.WithCancel(ctx)
	defer stop()

	done := make(chan struct{})
	var handshakes sync.WaitGroup
	var gate gatekeeper
	refusals := newRefusalLog(h.cfg.Logf, "tcp: coordinator", "connection", "connections")
	defer refusals.flush()
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			handshakes.Go(func() {
				leave := gate.admit(conn)
				reg, err := h.acceptRegistration(hctx, conn)
				if leave() {
					err = errEvicted
				}
				if err != nil {
					if hctx.Err() == nil {
						refusals.refused(conn.RemoteAddr().String(), err)
					}
					_ = conn.Close()
					return
				}
				select {
				case registered <- reg:
				case <-hctx.Done():
					_ = conn.Close()
				}
			})
		}
	}()

	count := 0
	for count < size {
		select {
		case reg := <-registered:
			if regs[reg.rank] != nil {
				h.logf("tcp: coordinator: refused a second registration of rank %d from %s", reg.rank, reg.conn.RemoteAddr())
				_ = reg.conn.Close()
				continue
			}
			regs[reg.rank] = reg
			count++
		case <-ctx.Done():
			var missing []int
			for r, reg := range regs {
				if reg == nil {
					missing = append(missing, r)
				}
			}
			err := fmt.Errorf("tcp: coordinator: %d of %d ranks registered, missing %s: %w", count, size, rankList(missing), ctx.Err())
			reason := encodeAbort(-1, err.Error())
			for _, reg := range regs {
				if reg != nil {
					_ = reg.conn.SetWriteDeadline(time.Now().Add(time.Second))
					_ = h.send(reg.conn, FrameAbort, 0, reason)
					_ = reg.conn.Close()
				}
			}
			_ = ln.Close()
			stop()
			<-done
			handshakes.Wait()
			return err
		}
	}
	_ = ln.Close()
	stop()
	<-done
	handshakes.Wait()

	table := binary.LittleEndian.AppendUint32(nil, uint32(size))
	for _, reg := range regs {
		table = binary.LittleEndian.AppendUint16(table, uint16(len(reg.addr)))
		table = append(table, reg.addr...)
	}
	var errs []error
	for _, reg := range regs {
		payload := append(h.proof(labelTable, reg.nonceC, reg.nonceR, u32(reg.rank), table), table...)
		_ = reg.conn.SetWriteDeadline(time.Now().Add(handshakeTimeout))
		if err := h.send(reg.conn, FrameTable, 0, payload); err != nil {
			errs = append(errs, fmt.Errorf("tcp: coordinator: sending the address table to rank %d: %w", reg.rank, err))
		}
		_ = reg.conn.Close()
	}
	return errors.Join(errs...)
}

// acceptRegistration runs the coordinator's side of a registration.
func (h *handshaker) acceptRegistration(ctx context.Context, conn net.Conn) (*registration, error) {
	release := guard(ctx, conn, handshakeTimeout)
	nonceC, err := newNonce()
	if err != nil {
		release()
		return nil, err
	}
	if err := h.send(conn, FrameChallenge, 0, nonceC); err != nil {
		release()
		return nil, err
	}
	f, p, err := h.receive(conn, FrameRegister, preAuthMaxFrame)
	if !release() {
		return nil, errors.Join(ctx.Err(), err)
	}
	if err != nil {
		return nil, err
	}
	if len(p) < nonceSize+proofSize+4+2 {
		return nil, fmt.Errorf("registration of %d bytes is too short", len(p))
	}
	nonceR, proof := p[:nonceSize], p[nonceSize:nonceSize+proofSize]
	rest := p[nonceSize+proofSize:]
	size := int(binary.LittleEndian.Uint32(rest))
	addrLen := int(binary.LittleEndian.Uint16(rest[4:]))
	addr := rest[6:]
	if len(addr) != addrLen {
		return nil, fmt.Errorf("registration: address of %d bytes announced as %d", len(addr), addrLen)
	}
	rank := int(f.Src)
	if !hmac.Equal(proof, h.proof(labelRegister, nonceC, nonceR, u32(rank), u32(size), addr)) {
		return nil, errBadProof
	}
	if size != h.cfg.Size {
		return nil, fmt.Errorf("rank %d expects a job of %d ranks, this one has %d", rank, size, h.cfg.Size)
	}
	if rank >= h.cfg.Size {
		return nil, fmt.Errorf("rank %d out of range [0, %d)", rank, h.cfg.Size)
	}
	return &registration{rank: rank, conn: conn, nonceC: nonceC, nonceR: bytesClone(nonceR), addr: string(addr)}, nil
}

// coordinatorSession is a rank's connection to the coordinator between the
// challenge and the address table.
type coordinatorSession struct {
	conn   net.Conn
	nonceC []byte
}

// joinCoordinator dials the coordinator, retrying until it listens, and
// reads its challenge. For a derived job it also dials again, until ctx is
// done, while the coordinator's challenge is another job's (see
// handshaker.derived).
func (h *handshaker) joinCoordinator(ctx context.Context) (*coordinatorSession, error) {
	backoff := 5 * time.Millisecond
	for {
		conn, err := dialRetry(ctx, h.cfg.Coordinator)
		if err != nil {
			return nil, fmt.Errorf("reaching the coordinator: %w", err)
		}
		release := guard(ctx, conn, handshakeTimeout)
		f, nonceC, err := h.receive(conn, FrameChallenge, handshakeMaxFrame)
		live := release()
		if !live {
			err = errors.Join(ctx.Err(), err)
		}
		if live && h.derived && errors.Is(err, errForeignJob) {
			_ = conn.Close()
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("coordinator %s: still serving another job: %w", h.cfg.Coordinator, context.Cause(ctx))
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 100*time.Millisecond)
			continue
		}
		if err == nil && (f.Src != 0 || len(nonceC) != nonceSize) {
			err = errors.New("malformed challenge")
		}
		if err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("coordinator %s: %w", h.cfg.Coordinator, err)
		}
		return &coordinatorSession{conn: conn, nonceC: nonceC}, nil
	}
}

// register announces this rank's listen address and waits for the address
// table, which the coordinator sends once every rank registered. It closes
// the session.
func (h *handshaker) register(ctx context.Context, s *coordinatorSession, addr string) ([]string, error) {
	defer s.conn.Close()
	if len(addr) > maxAddrLen {
		return nil, fmt.Errorf("listen address %q is longer than %d bytes", addr, maxAddrLen)
	}
	nonceR, err := newNonce()
	if err != nil {
		return nil, err
	}
	rank, size := h.cfg.Rank, h.cfg.Size
	payload := append(bytesClone(nonceR), h.proof(labelRegister, s.nonceC, nonceR, u32(rank), u32(size), []byte(addr))...)
	payload = binary.LittleEndian.AppendUint32(payload, uint32(size))
	payload = binary.LittleEndian.AppendUint16(payload, uint16(len(addr)))
	payload = append(payload, addr...)

	// The table comes only when every rank registered: wait up to ctx's deadline.
	release := guard(ctx, s.conn, 365*24*time.Hour)
	err = h.send(s.conn, FrameRegister, rank, payload)
	var p []byte
	if err == nil {
		_, p, err = h.receive(s.conn, FrameTable, handshakeMaxFrame)
	}
	if !release() {
		err = errors.Join(ctx.Err(), err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("the coordinator closed the connection (wrong token, job id or size?): %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("registering with the coordinator %s: %w", h.cfg.Coordinator, err)
	}
	if len(p) < proofSize {
		return nil, errors.New("tcp: the coordinator's address table is too short")
	}
	proof, table := p[:proofSize], p[proofSize:]
	if !hmac.Equal(proof, h.proof(labelTable, s.nonceC, nonceR, u32(rank), table)) {
		return nil, errors.New("tcp: the coordinator's address table carries an invalid proof of the job token")
	}
	addrs, err := decodeTable(table, size)
	if err != nil {
		return nil, err
	}
	if addrs[rank] != addr {
		return nil, fmt.Errorf("tcp: the coordinator lists rank %d at %s, not at %s", rank, addrs[rank], addr)
	}
	return addrs, nil
}

func decodeTable(b []byte, size int) ([]string, error) {
	if len(b) < 4 || int(binary.LittleEndian.Uint32(b)) != size {
		return nil, fmt.Errorf("tcp: the coordinator's address table does not list %d ranks", size)
	}
	b = b[4:]
	addrs := make([]string, size)
	for r := range addrs {
		if len(b) < 2 || len(b)-2 < int(binary.LittleEndian.Uint16(b)) {
			return nil, errors.New("tcp: truncated address table")
		}
		n := int(binary.LittleEndian.Uint16(b))
		addrs[r] = string(b[2 : 2+n])
		b = b[2+n:]
	}
	if len(b) != 0 {
		return nil, errors.New("tcp: trailing bytes after the address table")
	}
	return addrs, nil
}

// ---------------------------------------------------------------------------
// Peer connections

// peerConn is an authenticated connection to another rank.
type peerConn struct {
	rank     int
	conn     net.Conn
	br       *bufio.Reader
	maxFrame int // the peer's receive limit
}

// mesh collects the peer connections of one rank: it accepts the ranks
// below and dials the ranks above.
type mesh struct {
	h      *handshaker
	ctx    context.Context // cancelled when the mesh is complete or failed
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	peers   []*peerConn
	missing int
	done    chan struct{} // closed when missing reaches 0
	failed  chan error    // first fatal error

	gate     gatekeeper  // the data listener's unauthenticated connections
	refusals *refusalLog // and its refusals
}

func newMesh(ctx context.Context, h *handshaker) *mesh {
	mctx, cancel := context.WithCancel(ctx)
	m := &mesh{
		h: h, ctx: mctx, cancel: cancel,
		peers:   make([]*peerConn, h.cfg.Size),
		missing: h.cfg.Size - 1,
		done:    make(chan struct{}),
		failed:  make(chan error, 1),

		refusals: newRefusalLog(h.cfg.Logf, fmt.Sprintf("tcp: rank %d", h.cfg.Rank), "connection", "connections"),
	}
	if m.missing == 0 {
		close(m.done)
	}
	return m
}

func (m *mesh) has(rank int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peers[rank] != nil
}

func (m *mesh) add(pc *peerConn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.peers[pc.rank] != nil || m.missing == 0 {
		return false
	}
	m.peers[pc.rank] = pc
	m.missing--
	if m.missing == 0 {
		close(m.done)
	}
	return true
}

func (m *mesh) fail(err error) {
	select {
	case m.failed <- err:
	default:
	}
}

// accept serves ln until it is closed: every connection must prove the job
// token as a rank below this one; others are refused and logged.
func (m *mesh) accept(ln net.Listener) {
	m.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			m.wg.Go(func() {
				leave := m.gate.admit(conn)
				pc, err := m.h.acceptPeer(m.ctx, conn, m.has)
				if leave() {
					err = errEvicted
				}
				if err == nil && !m.add(pc) {
					err = fmt.Errorf("rank %d is connected already", pc.rank)
				}
				if err != nil {
					if m.ctx.Err() == nil {
						m.refusals.refused(conn.RemoteAddr().String(), err)
					}
					_ = conn.Close()
				}
			})
		}
	})
}

// dial connects to every rank above this one.
func (m *mesh) dial(addrs []string) {
	for j := m.h.cfg.Rank + 1; j < len(addrs); j++ {
		m.wg.Go(func() {
			pc, err := m.h.dialPeer(m.ctx, j, addrs[j])
			if err != nil {
				m.fail(&PeerError{Rank: j, Err: err})
				return
			}
			if !m.add(pc) {
				_ = pc.conn.Close()
			}
		})
	}
}

// wait returns once every peer is connected, a dial failed or ctx is done.
// It then stops the mesh's goroutines; on failure it closes the connections.
func (m *mesh) wait(ctx context.Context, ln net.Listener) ([]*peerConn, error) {
	var err error
	select {
	case <-m.done:
	case err = <-m.failed:
	case <-ctx.Done():
		var missing []int
		m.mu.Lock()
		for r, pc := range m.peers {
			if pc == nil && r != m.h.cfg.Rank {
				missing = append(missing, r)
			}
		}
		m.mu.Unlock()
		err = fmt.Errorf("connecting to %s: %w", rankList(missing), context.Cause(ctx))
	}
	_ = ln.Close()
	m.cancel()
	m.wg.Wait()
	m.refusals.flush()
	if err == nil {
		select {
		case <-m.done:
		default:
			err = errors.New("connections incomplete")
		}
	}
	if err != nil {
		for _, pc := range m.peers {
			if pc != nil {
				_ = pc.conn.Close()
			}
		}
		return nil, err
	}
	return m.peers, nil
}

// acceptPeer runs the acceptor's side of a peer handshake: challenge, the
// dialer's hello and proof, this rank's welcome and proof.
func (h *handshaker) acceptPeer(ctx context.Context, conn net.Conn, connected func(rank int) bool) (*peerConn, error) {
	release := guard(ctx, conn, handshakeTimeout)
	pc, err := h.acceptPeerLocked(conn, connected)
	if !release() {
		return nil, errors.Join(ctx.Err(), err)
	}
	return pc, err
}

func (h *handshaker) acceptPeerLocked(conn net.Conn, connected func(rank int) bool) (*peerConn, error) {
	me := h.cfg.Rank
	nonceA, err := newNonce()
	if err != nil {
		return nil, err
	}
	if err := h.send(conn, FrameChallenge, me, nonceA); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(conn, readBufferSize)
	f, p, err := h.receive(br, FrameHello, preAuthMaxFrame)
	if err != nil {
		return nil, err
	}
	if len(p) != nonceSize+proofSize+8 {
		return nil, fmt.Errorf("hello of %d bytes, want %d", len(p), nonceSize+proofSize+8)
	}
	nonceD, proof := p[:nonceSize], p[nonceSize:nonceSize+proofSize]
	target := int(binary.LittleEndian.Uint32(p[nonceSize+proofSize:]))
	theirMax := int(binary.LittleEndian.Uint32(p[nonceSize+proofSize+4:]))
	src := int(f.Src)
	if !hmac.Equal(proof, h.proof(labelHello, nonceA, nonceD, u32(src), u32(target), u32(theirMax))) {
		return nil, errBadProof
	}
	switch {
	case target != me:
		return nil, fmt.Errorf("rank %d meant to reach rank %d", src, target)
	case src >= me:
		return nil, fmt.Errorf("rank %d must be dialed by this rank, not dial it", src)
	case theirMax < minMaxFrame:
		return nil, fmt.Errorf("rank %d announces a maximum frame of %d bytes", src, theirMax)
	case connected(src):
		return nil, fmt.Errorf("rank %d is connected already", src)
	}
	welcome := h.proof(labelWelcome, nonceA, nonceD, u32(me), u32(src), u32(h.cfg.MaxFrame))
	welcome = binary.LittleEndian.AppendUint32(welcome, uint32(h.cfg.MaxFrame))
	if err := h.send(conn, FrameWelcome, me, welcome); err != nil {
		return nil, err
	}
	return &peerConn{rank: src, conn: conn, br: br, maxFrame: theirMax}, nil
}

// dialPeer connects to rank j at addr and runs the dialer's side of the
// handshake.
func (h *handshaker) dialPeer(ctx context.Context, j int, addr string) (*peerConn, error) {
	conn, err := dialRetry(ctx, addr)
	if err != nil {
		return nil, err
	}
	release := guard(ctx, conn, handshakeTimeout)
	pc, err := h.dialPeerLocked(conn, j)
	if !release() {
		err = errors.Join(ctx.Err(), err)
	}
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("handshake with %s: %w", addr, err)
	}
	return pc, nil
}

func (h *handshaker) dialPeerLocked(conn net.Conn, j int) (*peerConn, error) {
	me := h.cfg.Rank
	br := bufio.NewReaderSize(conn, readBufferSize)
	f, nonceA, err := h.receive(br, FrameChallenge, handshakeMaxFrame)
	if err != nil {
		return nil, err
	}
	if int(f.Src) != j || len(nonceA) != nonceSize {
		return nil, fmt.Errorf("malformed challenge (from rank %d, %d bytes)", f.Src, len(nonceA))
	}
	nonceD, err := newNonce()
	if err != nil {
		return nil, err
	}
	hello := append(bytesClone(nonceD), h.proof(labelHello, nonceA, nonceD, u32(me), u32(j), u32(h.cfg.MaxFrame))...)
	hello = binary.LittleEndian.AppendUint32(hello, uint32(j))
	hello = binary.LittleEndian.AppendUint32(hello, uint32(h.cfg.MaxFrame))
	if err := h.send(conn, FrameHello, me, hello); err != nil {
		return nil, err
	}
	_, p, err := h.receive(br, FrameWelcome, handshakeMaxFrame)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("rank %d refused the handshake (wrong token or job id?): %w", j, err)
	}
	if err != nil {
		return nil, err
	}
	if len(p) != proofSize+4 {
		return nil, fmt.Errorf("welcome of %d bytes, want %d", len(p), proofSize+4)
	}
	theirMax := int(binary.LittleEndian.Uint32(p[proofSize:]))
	if !hmac.Equal(p[:proofSize], h.proof(labelWelcome, nonceA, nonceD, u32(j), u32(me), u32(theirMax))) {
		return nil, errors.New("the welcome carries an invalid proof of the job token")
	}
	if theirMax < minMaxFrame {
		return nil, fmt.Errorf("rank %d announces a maximum frame of %d bytes", j, theirMax)
	}
	return &peerConn{rank: j, conn: conn, br: br, maxFrame: theirMax}, nil
}

func bytesClone(b []byte) []byte { return append([]byte(nil), b...) }
