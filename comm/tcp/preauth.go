// This file bounds what a listener spends on connections that have not
// proved the job token: the coordinator's, every rank's data listener and
// rank 0's lobby are open to anyone who reaches them, for a whole job in
// the lobby's case.
//
//   - A frame read before authentication is at most preAuthMaxFrame bytes,
//     checked in its header before anything is allocated: a registration,
//     a hello and a join request fit in a few hundred bytes (a join request
//     carries a tag of up to maxTag).
//   - A listener holds at most maxPending connections that have not
//     authenticated; a new one closes the oldest, so that silent
//     connections cannot keep genuine ranks out for long, and the memory
//     of refused connections is bounded by maxPending frames and buffers.
//   - Refused connections are logged once per cause and refusalInterval,
//     one line each; the others are counted and reported with the next
//     line of that cause, or when the listener closes.

package tcp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

const (
	// preAuthMaxFrame bounds a frame a listener reads from a connection
	// that has not proved the job token.
	preAuthMaxFrame = 8 << 10
	// maxPending bounds the connections of one listener that have not
	// authenticated yet.
	maxPending = 64
	// refusalInterval is how often a listener logs refusals of one cause.
	refusalInterval = 10 * time.Second
)

// errBadProof is a connection whose proof of the job token is wrong.
var errBadProof = errors.New("invalid proof of the job token")

// errEvicted is a connection closed because newer ones arrived while the
// listener already held maxPending unauthenticated connections.
var errEvicted = fmt.Errorf("closed unauthenticated: more than %d connections waited to prove the job token", maxPending)

// gatekeeper bounds the unauthenticated connections of one listener.
type gatekeeper struct {
	mu      sync.Mutex
	pending []*pendingConn // oldest first
}

type pendingConn struct {
	conn    net.Conn
	evicted bool // guarded by gatekeeper.mu
}

// admit counts conn among the listener's unauthenticated connections,
// closing the oldest if there are maxPending already. The returned function
// must be called once conn is authenticated or refused; it reports whether
// conn was closed to make room (its handshake's error is then errEvicted).
func (g *gatekeeper) admit(conn net.Conn) (leave func() (evicted bool)) {
	pc := &pendingConn{conn: conn}
	g.mu.Lock()
	if len(g.pending) >= maxPending {
		oldest := g.pending[0]
		g.pending = g.pending[1:]
		oldest.evicted = true
		_ = oldest.conn.Close()
	}
	g.pending = append(g.pending, pc)
	g.mu.Unlock()
	return func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		for i, q := range g.pending {
			if q == pc {
				g.pending = append(g.pending[:i:i], g.pending[i+1:]...)
				break
			}
		}
		return pc.evicted
	}
}

// refusalLog logs a listener's refused connections, once per cause and
// refusalInterval, one line each.
type refusalLog struct {
	logf         func(format string, args ...any)
	who          string // "tcp: coordinator"
	one, several string // "connection", "connections"

	mu     sync.Mutex
	causes map[string]*refusals
}

// refusals are the refused connections of one cause.
type refusals struct {
	logged     time.Time // when the last line of this cause was written
	suppressed int       // refusals since, not logged
	example    string    // the last one's error
}

// newRefusalLog logs as who: "<who>: refused <one> from <address>: <why>",
// and "<who>: refused <n> more <several>: <why>".
func newRefusalLog(logf func(format string, args ...any), who, one, several string) *refusalLog {
	return &refusalLog{logf: logf, who: who, one: one, several: several, causes: map[string]*refusals{}}
}

// refused records that the connection from from was refused because of err.
func (l *refusalLog) refused(from string, err error) {
	msg := oneLine(err.Error())
	key := refusalCause(err)
	now := time.Now()
	l.mu.Lock()
	r := l.causes[key]
	if r == nil {
		r = &refusals{}
		l.causes[key] = r
	}
	if !r.logged.IsZero() && now.Sub(r.logged) < refusalInterval {
		r.suppressed++
		r.example = msg
		l.mu.Unlock()
		return
	}
	n := r.suppressed
	r.logged, r.suppressed = now, 0
	l.mu.Unlock()
	if n > 0 {
		l.logf("%s: refused %s from %s: %s (and %d more %s for this cause in the last %v)", l.who, l.one, from, msg, n, l.several, refusalInterval)
		return
	}
	l.logf("%s: refused %s from %s: %s", l.who, l.one, from, msg)
}

// flush logs the refusals not logged yet, one line per cause. The listener
// calls it when it closes.
func (l *refusalLog) flush() {
	l.mu.Lock()
	var lines []string
	for _, r := range l.causes {
		if r.suppressed > 0 {
			lines = append(lines, fmt.Sprintf("%s: refused %d more %s: %s", l.who, r.suppressed, l.several, r.example))
			r.suppressed = 0
		}
	}
	l.mu.Unlock()
	sort.Strings(lines)
	for _, line := range lines {
		l.logf("%s", line)
	}
}

// refusalCause is the cause a refusal is counted under: the sentinel error
// it wraps, or its message with the numbers left out.
func refusalCause(err error) string {
	for _, s := range []error{errEvicted, errBadProof, errForeignJob, ErrFrameTooLarge, ErrBadMagic, ErrBadVersion,
		ErrMalformed, ErrChecksum, os.ErrDeadlineExceeded, io.ErrUnexpectedEOF, io.EOF} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, err.Error())
}

// oneLine keeps a log line on one line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }
