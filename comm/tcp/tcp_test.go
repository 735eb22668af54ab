package tcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/commtest"
)

// guardTimeout bounds every test job: a hung job fails its test, not the
// binary. Jobs take milliseconds to a few peer timeouts; the bound is
// generous for a loaded machine (a job whose ranks registered 10 s late
// has been seen there), and still tells a hang.
const guardTimeout = time.Minute

func TestConformance(t *testing.T) {
	sizes := []int{1, 2, 3, 4, 7}
	if raceEnabled {
		// Under the race detector a 7-rank job moving 49 MiB can approach
		// the suite's 5 s guard on a loaded machine.
		sizes = sizes[:4]
	}
	commtest.Run(t, LaunchLoopback, sizes)
}

// TestConformanceSmallFrames runs the suite with a 4 KiB frame limit, so
// that every message above 4 KiB travels in many frames.
func TestConformanceSmallFrames(t *testing.T) {
	launcher := func(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error {
		return launch(ctx, p, fn, launchOptions{maxFrame: 4096})
	}
	commtest.Run(t, launcher, []int{3})
}

// logRecorder collects Logf lines and lets a test wait for one.
type logRecorder struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
}

func newLogRecorder() *logRecorder { return &logRecorder{changed: make(chan struct{})} }

func (l *logRecorder) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	close(l.changed)
	l.changed = make(chan struct{})
}

// waitFor returns the first line containing every one of parts.
func (l *logRecorder) waitFor(t *testing.T, parts ...string) string {
	t.Helper()
	deadline := time.After(guardTimeout)
	for {
		l.mu.Lock()
		changed := l.changed
		for _, line := range l.lines {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				l.mu.Unlock()
				return line
			}
		}
		l.mu.Unlock()
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no log line contains %q; log:\n%s", parts, l.String())
		}
	}
}

func (l *logRecorder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// testJob starts the ranks of one job one by one, with Connect.
type testJob struct {
	t     *testing.T
	ctx   context.Context
	ln    net.Listener // the coordinator's, handed to rank 0
	base  Config
	logs  *logRecorder
	comms []chan connected
}

// connected is the outcome of one rank's Connect.
type connected struct {
	c   *Comm
	err error
}

func newTestJob(t *testing.T, p int, edit func(*Config)) *testJob {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	t.Cleanup(cancel)
	j := &testJob{t: t, ctx: ctx, ln: ln, logs: newLogRecorder(), comms: make([]chan connected, p)}
	j.base = Config{Size: p, Coordinator: ln.Addr().String(), Token: []byte("a job token for tests"), JobID: t.Name(),
		ConnectTimeout: guardTimeout, PeerTimeout: 2 * time.Second, Logf: j.logs.logf}
	if edit != nil {
		edit(&j.base)
	}
	for r := range j.comms {
		j.comms[r] = make(chan connected, 1)
	}
	return j
}

// start connects rank r in the background.
func (j *testJob) start(r int) {
	cfg := j.base
	cfg.Rank = r
	var ln net.Listener
	if r == 0 {
		ln = j.ln
	}
	go func() {
		c, err := connect(j.ctx, cfg, ln)
		j.comms[r] <- connected{c, err}
	}()
}

// run waits for every rank's Comm and runs fn on each, returning the errors.
func (j *testJob) run(fn func(c *Comm) error) []error {
	j.t.Helper()
	errs := make([]error, len(j.comms))
	var wg sync.WaitGroup
	comms := make([]*Comm, len(j.comms))
	for r := range j.comms {
		got := <-j.comms[r]
		if got.err != nil {
			j.t.Fatalf("rank %d: %v", r, got.err)
		}
		comms[r] = got.c
		j.t.Cleanup(func() { got.c.Close() })
	}
	for r, c := range comms {
		wg.Go(func() { errs[r] = fn(c) })
	}
	wg.Wait()
	return errs
}

// runHealthy runs smallJob on every rank, each of which must succeed.
func (j *testJob) runHealthy() {
	j.t.Helper()
	for r, err := range j.run(smallJob) {
		if err != nil {
			j.t.Errorf("rank %d: %v", r, err)
		}
	}
}

// smallJob is a short healthy workload (commtest.SmallJob).
func smallJob(c *Comm) error { return commtest.SmallJob(context.Background(), c) }

// expectRefused checks that the other side closes conn without a word more
// (a reset counts: the refusing side closes with the rogue's bytes unread).
func expectRefused(t *testing.T, conn net.Conn) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(guardTimeout))
	rest, err := io.ReadAll(conn)
	if len(rest) != 0 || (err != nil && !errors.Is(err, syscall.ECONNRESET)) {
		t.Fatalf("rogue connection: read %d more bytes, %v; want the connection closed", len(rest), err)
	}
}

// TestRogueClients connects clients without the token to the coordinator
// and to a data listener while the job assembles: each is refused and
// logged, and the job completes with the genuine ranks.
func TestRogueClients(t *testing.T) {
	j := newTestJob(t, 3, nil)
	j.start(0)
	j.start(2)
	line := j.logs.waitFor(t, "rank 2 of 3: listening for peers on ")
	dataAddr := line[strings.LastIndex(line, " ")+1:]
	impostor := newHandshaker(Config{Rank: 0, Size: 3, Coordinator: j.base.Coordinator, Token: []byte("not the token"),
		JobID: j.base.JobID, MaxFrame: DefaultMaxFrame, Logf: t.Logf})

	t.Run("coordinator/wrong token", func(t *testing.T) {
		s, err := impostor.joinCoordinator(j.ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = impostor.register(j.ctx, s, "127.0.0.1:1")
		if err == nil || !strings.Contains(err.Error(), "closed the connection") {
			t.Fatalf("registration with a wrong token: %v, want the coordinator to close the connection", err)
		}
		j.logs.waitFor(t, "coordinator: refused", "invalid proof")
	})
	t.Run("coordinator/garbage", func(t *testing.T) {
		conn := dialChallenged(t, j.base.Coordinator)
		if _, err := conn.Write([]byte(strings.Repeat("GET / HTTP/1.1\r\n", 8))); err != nil {
			t.Fatal(err)
		}
		expectRefused(t, conn)
		j.logs.waitFor(t, "coordinator: refused", "bad magic")
	})
	t.Run("data listener/wrong token", func(t *testing.T) {
		conn := dialRaw(t, dataAddr)
		_, err := impostor.dialPeerLocked(conn, 2)
		if err == nil || !strings.Contains(err.Error(), "refused the handshake") {
			t.Fatalf("peer handshake with a wrong token: %v, want a refusal", err)
		}
		j.logs.waitFor(t, "rank 2: refused connection", "invalid proof")
	})
	t.Run("data listener/other job", func(t *testing.T) {
		conn := dialChallenged(t, dataAddr)
		other := newHandshaker(Config{Token: j.base.Token, JobID: "another job"})
		if err := other.send(conn, FrameHello, 0, make([]byte, nonceSize+proofSize+8)); err != nil {
			t.Fatal(err)
		}
		expectRefused(t, conn)
		j.logs.waitFor(t, "rank 2: refused connection", "another job")
	})

	j.start(1)
	j.runHealthy()
}

// dialRaw connects to addr as a bare TCP client, closed when the test ends.
func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// dialChallenged is dialRaw past the challenge frame that the listener at
// addr sends first.
func dialChallenged(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn := dialRaw(t, addr)
	if _, _, err := ReadFrame(conn, nil, handshakeMaxFrame); err != nil {
		t.Fatalf("no challenge: %v", err)
	}
	return conn
}

// TestWrongTokenRank runs a rank configured with the wrong token: Connect
// fails, and the job completes once the genuine rank arrives.
func TestWrongTokenRank(t *testing.T) {
	j := newTestJob(t, 2, nil)
	j.start(0)
	cfg := j.base
	cfg.Rank, cfg.Token, cfg.Logf = 1, []byte("wrong"), t.Logf
	if c, err := Connect(j.ctx, cfg); err == nil {
		c.Close()
		t.Fatal("Connect with a wrong token succeeded")
	} else {
		t.Logf("impostor: %v", err)
	}
	j.logs.waitFor(t, "coordinator: refused", "invalid proof")
	j.start(1)
	j.runHealthy()
}

func TestConnectTimeout(t *testing.T) {
	j := newTestJob(t, 3, func(cfg *Config) { cfg.ConnectTimeout = 300 * time.Millisecond })
	cfg := j.base
	start := time.Now()
	c, err := connect(context.Background(), cfg, j.ln)
	if err == nil {
		c.Close()
		t.Fatal("Connect succeeded without the other ranks")
	}
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("Connect failed after %v with a ConnectTimeout of 300ms", elapsed)
	}
	if !strings.Contains(err.Error(), "ranks 1, 2") {
		t.Errorf("error %q does not name the missing ranks", err)
	}
}

func TestConfigValidation(t *testing.T) {
	good := Config{Size: 2, Coordinator: "127.0.0.1:1", Token: []byte("t")}
	for _, tc := range []struct {
		name string
		edit func(*Config)
	}{
		{"no ranks", func(c *Config) { c.Size = 0 }},
		{"rank out of range", func(c *Config) { c.Rank = 2 }},
		{"no coordinator", func(c *Config) { c.Coordinator = "" }},
		{"no token", func(c *Config) { c.Token = nil }},
		{"tiny MaxFrame", func(c *Config) { c.MaxFrame = 10 }},
	} {
		cfg := good
		tc.edit(&cfg)
		if c, err := Connect(context.Background(), cfg); err == nil {
			c.Close()
			t.Errorf("%s: Connect succeeded", tc.name)
		}
	}
}

// TestEarlyAndDirectReceive checks both receive paths of Alltoallv with
// reused buffers: messages that arrive before the call (copied into recv)
// and messages that arrive during it (read straight into recv).
func TestEarlyAndDirectReceive(t *testing.T) {
	const p, n = 3, 200 << 10
	payload := func(src, dst, round int) []byte {
		b := make([]byte, n-src-round)
		for i := range b {
			b[i] = byte(i*7 + src*31 + dst*17 + round)
		}
		return b
	}
	err := LaunchLoopback(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		recv := make([][]byte, p)
		for s := range recv {
			recv[s] = make([]byte, 0, n)
		}
		for round := range 6 {
			// Even rounds: rank 0 arrives late, so its peers' messages
			// are early. Odd rounds: rank 0 waits for the others.
			if (c.Rank() == 0) == (round%2 == 0) {
				time.Sleep(30 * time.Millisecond)
			}
			send := make([][]byte, p)
			for d := range send {
				send[d] = payload(c.Rank(), d, round)
			}
			starts := make([]*byte, p)
			for s := range recv {
				starts[s] = &recv[s][:1][0]
			}
			out, err := c.Alltoallv(ctx, "test.early", send, recv)
			if err != nil {
				return err
			}
			for s := range out {
				if !bytes.Equal(out[s], payload(s, c.Rank(), round)) {
					return fmt.Errorf("round %d: message from rank %d differs", round, s)
				}
				if &out[s][0] != starts[s] {
					return fmt.Errorf("round %d: message from rank %d not stored in the recv buffer", round, s)
				}
			}
			recv = out
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
