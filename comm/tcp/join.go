package tcp

// The joining side of elastic ramp-up (Zhang and Qiu §V-C, "add new
// tasks"): a process that asks a running job to take it in (Join), proves
// the job token to rank 0's lobby, waits there in line and receives its
// admission, the rank, size and job id of the grown job, when the job
// grows at an iteration boundary (grow.go).

import (
	"context"
	"crypto/hmac"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

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
	conn, err := dialLobby(ctx, h.cfg.Coordinator)
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

// dialLobby dials rank 0's lobby at addr as dialRetry does, but gives up
// with ErrNoLobby once the address has refused connections for
// noLobbyAfter in a row.
func dialLobby(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	backoff := 10 * time.Millisecond
	var refusedSince time.Time
	for {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn, nil
		}
		switch {
		case !errors.Is(err, syscall.ECONNREFUSED):
			refusedSince = time.Time{}
		case refusedSince.IsZero():
			refusedSince = time.Now()
		case time.Since(refusedSince) >= noLobbyAfter:
			return nil, fmt.Errorf("%w: %s refused connections for %v (last attempt: %v)", ErrNoLobby, addr, noLobbyAfter, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("dialing %s: %w (last attempt: %v)", addr, ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 200*time.Millisecond)
	}
}
