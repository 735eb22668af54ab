package tcp

// Rank 0's lobby for elastic ramp-up (Zhang and Qiu §V-C): the processes
// that wait to join a running job, and the hand-over of rank 0's listener
// to the rendezvous of a new topology (a growth, or a Shrink).

import (
	"bytes"
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

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
