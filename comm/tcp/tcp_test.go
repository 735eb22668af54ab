package tcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/commtest"
	"github.com/graphrun/graphrun/comm/wire"
)

// guardTimeout bounds every test job: a hung job fails its test, not the binary.
const guardTimeout = 10 * time.Second

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

// checkBlamed checks that err wraps comm.ErrAborted and blames rank.
func checkBlamed(err error, rank int) error {
	var pe *PeerError
	switch {
	case err == nil:
		return errors.New("the call succeeded")
	case !errors.Is(err, comm.ErrAborted):
		return fmt.Errorf("error %q does not wrap comm.ErrAborted", err)
	case !errors.As(err, &pe) || pe.Rank != rank:
		return fmt.Errorf("error %q does not blame rank %d", err, rank)
	case !strings.Contains(err.Error(), fmt.Sprintf("rank %d", rank)):
		return fmt.Errorf("error %q does not name rank %d", err, rank)
	}
	return nil
}

// TestLostRank makes rank 2 of 3 leave mid-run in several ways; the other
// ranks' pending call and every later one must fail promptly, naming rank 2.
func TestLostRank(t *testing.T) {
	const peerTimeout = 300 * time.Millisecond
	for _, tc := range []struct {
		name  string
		leave func(ctx context.Context, c *Comm)
		bound time.Duration
		cause string
	}{
		{"Close", func(_ context.Context, c *Comm) { c.Close() }, time.Second, "closed its Comm"},
		{"crash", func(_ context.Context, c *Comm) {
			// What the kernel does when the process dies: close every
			// socket, without a goodbye.
			for _, p := range c.peers {
				if p != nil {
					p.conn.(*net.TCPConn).SetLinger(0)
					p.conn.Close()
				}
			}
		}, time.Second, "connection"},
		{"hang", func(ctx context.Context, c *Comm) {
			select {
			case <-ctx.Done():
			case <-time.After(guardTimeout):
			}
		}, peerTimeout + time.Second, "no progress"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
			defer cancel()
			var problems commtest.Problems
			report := problems.Addf
			err := launch(ctx, 3, func(ctx context.Context, cc comm.Comm) error {
				c := cc.(*Comm)
				for i := range 3 {
					if _, err := c.Allgatherv(ctx, "warmup", []byte{byte(i)}, nil); err != nil {
						return err
					}
				}
				if c.Rank() == 2 {
					tc.leave(ctx, c)
					return nil
				}
				start := time.Now()
				_, err := c.Allgatherv(ctx, "pending", []byte{1, 2, 3}, nil)
				if elapsed := time.Since(start); elapsed > tc.bound {
					report("rank %d: the pending call failed after %v, want less than %v", c.Rank(), elapsed, tc.bound)
				}
				if e := checkBlamed(err, 2); e != nil {
					report("rank %d: pending call: %v", c.Rank(), e)
				} else if !strings.Contains(err.Error(), tc.cause) {
					report("rank %d: pending call: error %q does not say %q", c.Rank(), err, tc.cause)
				}
				later := c.Barrier(ctx, "later")
				if e := checkBlamed(later, 2); e != nil {
					report("rank %d: later call: %v", c.Rank(), e)
				}
				return err
			}, launchOptions{peerTimeout: peerTimeout})
			problems.Report(t)
			if err == nil || !strings.Contains(err.Error(), "rank 2") {
				t.Errorf("launch returned %v, want an error naming rank 2", err)
			}
		})
	}
}

// TestCorruptFrame sends a frame with a bad checksum, then one larger than
// the receiver's limit: the receiver's next call fails, blaming the sender.
func TestCorruptFrame(t *testing.T) {
	for _, tc := range []struct {
		name string
		want error
		edit func(frame []byte)
	}{
		{"checksum", ErrChecksum, func(frame []byte) { frame[HeaderSize] ^= 1 }},
		{"too large", ErrFrameTooLarge, func(frame []byte) {
			frame[44], frame[45], frame[46], frame[47] = 0, 0, 0, 0x40 // Len = 1 GiB
			frame[55] = 0x40                                           // Total ≥ Len
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rank0 := sendForged(func(c *Comm) []byte {
				// An Alltoallv frame: a Barrier's would be refused for its
				// length alone.
				f := Frame{Type: FrameData, Kind: uint8(comm.CollectiveAlltoallv), Flags: FlagLast, Job: c.job, Seq: c.seq + 1, Phase: wire.PhaseHash("next"), Src: 1}
				frame := AppendFrame(nil, f, []byte("payload"))
				tc.edit(frame)
				return frame
			}, func(ctx context.Context, c *Comm) error { return c.Barrier(ctx, "next") })
			if err := checkBlamed(rank0, 1); err != nil {
				t.Fatal(err)
			}
			if !errors.Is(rank0, tc.want) {
				t.Fatalf("rank 0: %v, want an error wrapping %v", rank0, tc.want)
			}
		})
	}
}

// sendForged runs a two-rank job (frames of at most 1 MiB) in which rank 1,
// after a warm-up Barrier, writes forge's bytes to rank 0 as the first
// frame of the next call; then both ranks make that call, next. It returns
// rank 0's error.
func sendForged(forge func(c *Comm) []byte, next func(ctx context.Context, c *Comm) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	var rank0 error
	_ = launch(ctx, 2, func(ctx context.Context, cc comm.Comm) error {
		c := cc.(*Comm)
		if err := c.Barrier(ctx, "warmup"); err != nil {
			return err
		}
		if c.Rank() == 1 {
			p := c.peers[0]
			p.wmu.Lock()
			_, err := p.conn.Write(forge(c))
			p.wmu.Unlock()
			if err != nil {
				return err
			}
			return next(ctx, c)
		}
		rank0 = next(ctx, c)
		return rank0
	}, launchOptions{maxFrame: 1 << 20})
	return rank0
}

// TestCloseDuringCall closes a Comm from another goroutine while a call
// waits for a peer: the call fails at once with ErrClosed.
func TestCloseDuringCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	var got error
	_ = launch(ctx, 2, func(ctx context.Context, cc comm.Comm) error {
		c := cc.(*Comm)
		if c.Rank() == 1 {
			<-ctx.Done()
			return nil
		}
		timer := time.AfterFunc(50*time.Millisecond, func() { c.Close() })
		defer timer.Stop()
		got = c.Barrier(ctx, "blocked")
		return got
	}, launchOptions{})
	if !errors.Is(got, comm.ErrAborted) || !errors.Is(got, ErrClosed) {
		t.Fatalf("Barrier interrupted by Close: %v, want an error wrapping comm.ErrAborted and ErrClosed", got)
	}
}

// TestCloseRacesFailedReturn closes a Comm from another goroutine just as
// the rank's function returns its error, so that Close's goodbyes and the
// launcher's Abort and wait run at once. Under -race it catches (in about one
// of 2000 launches, hence the loop) Close adding to the WaitGroup the launcher
// waits on, which once failed CI in TestCloseDuringCall.
func TestCloseRacesFailedReturn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	for range 50 {
		err := launch(ctx, 2, func(ctx context.Context, cc comm.Comm) error {
			c := cc.(*Comm)
			// Both ranks connected first: else rank 1 may still be
			// registering when rank 0's failure cancels the job, and its
			// own error may come first.
			if err := c.Barrier(ctx, "connected"); err != nil {
				return err
			}
			if c.Rank() == 1 {
				<-ctx.Done()
				return nil
			}
			go c.Close()
			return c.Barrier(ctx, "closing")
		}, launchOptions{})
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("launch: %v, want rank 0's ErrClosed", err)
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

// BenchmarkAlltoallv measures Alltoallv over loopback TCP, every rank a
// goroutine of this process, sending size bytes to every other rank and
// reusing its receive buffers. MB/s is the aggregate payload moved between
// ranks per second: P·(P−1)·size bytes per call.
func BenchmarkAlltoallv(b *testing.B) {
	for _, p := range []int{2, 4} {
		for _, size := range []int{64 << 10, 1 << 20, 16 << 20} {
			b.Run(fmt.Sprintf("ranks=%d/size=%dKiB", p, size>>10), func(b *testing.B) {
				b.SetBytes(int64(p * (p - 1) * size))
				benchLoopback(b, p, func(c comm.Comm) func(ctx context.Context) error {
					block := bytes.Repeat([]byte{byte(c.Rank())}, size)
					send := make([][]byte, p)
					recv := make([][]byte, p)
					for d := range send {
						send[d] = block
						recv[d] = make([]byte, 0, size)
					}
					return func(ctx context.Context) error {
						out, err := c.Alltoallv(ctx, "bench.alltoallv", send, recv)
						recv = out
						return err
					}
				})
			})
		}
	}
}

// BenchmarkAllreduceFloat64 measures a sum of n float64s over 4 loopback
// TCP ranks: the termination check of every BFS level (n = 1) and a
// PageRank-sized vector.
func BenchmarkAllreduceFloat64(b *testing.B) {
	for _, n := range []int{1, 4096} {
		b.Run(fmt.Sprintf("ranks=4/len=%d", n), func(b *testing.B) {
			benchLoopback(b, 4, func(c comm.Comm) func(ctx context.Context) error {
				vals := make([]float64, n)
				return func(ctx context.Context) error {
					for i := range vals {
						vals[i] = float64(i + c.Rank())
					}
					return c.AllreduceFloat64(ctx, "bench.allreduce", vals, comm.Sum)
				}
			})
		})
	}
}

// benchLoopback runs b.N calls of the collective that setup returns for
// each of p loopback TCP ranks, timing them on rank 0 between two
// barriers.
func benchLoopback(b *testing.B, p int, setup func(c comm.Comm) func(ctx context.Context) error) {
	err := LaunchLoopback(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		call := setup(c)
		if err := c.Barrier(ctx, "bench.start"); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			if err := call(ctx); err != nil {
				return err
			}
		}
		if err := c.Barrier(ctx, "bench.stop"); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.StopTimer()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// TestConformanceReplicated runs the suite with every logical rank run by
// two processes (paper 000 §V-A).
func TestConformanceReplicated(t *testing.T) {
	sizes := []int{1, 2, 3, 4}
	if testing.Short() || raceEnabled {
		sizes = []int{1, 3}
	}
	launcher := func(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error {
		return LaunchLoopbackReplicated(ctx, p, 2, fn)
	}
	commtest.Run(t, launcher, sizes)
}

// TestReplicaLoss kills (closes without a goodbye, as the kernel does for a
// killed process) one replica of a 4×2 job mid-run: the job completes with
// the right results. Then both replicas of one rank: every survivor fails
// within bounded time, naming that logical rank.
func TestReplicaLoss(t *testing.T) {
	const p, s = 4, 2
	crash := func(c *Comm) {
		for _, peer := range c.peers {
			if peer != nil {
				peer.conn.(*net.TCPConn).SetLinger(0)
				peer.conn.Close()
			}
		}
	}
	for _, tc := range []struct {
		name    string
		victims []int // processes
	}{{"one replica", []int{6}}, {"whole group", []int{2, 6}}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
			defer cancel()
			var problems commtest.Problems
			report := problems.Addf
			lost := len(tc.victims) == s
			start := time.Now()
			err := launch(ctx, p, func(ctx context.Context, cc comm.Comm) error {
				c := cc.(*Comm)
				for round := range 40 {
					if round == 10 && slices.Contains(tc.victims, c.Process()) {
						crash(c)
						return nil
					}
					vals := []float64{float64(c.Rank() + round)}
					if err := c.AllreduceFloat64(ctx, "sum", vals, comm.Sum); err != nil {
						if !lost {
							report("process %d: round %d: %v", c.Process(), round, err)
						} else if e := checkBlamed(err, 2); e != nil {
							report("process %d: %v", c.Process(), e)
						}
						return err
					}
					if want := float64(0+1+2+3) + 4*float64(round); vals[0] != want {
						report("process %d: round %d: sum %v, want %v", c.Process(), round, vals[0], want)
					}
					send := make([][]byte, p)
					for d := range send {
						send[d] = bytes.Repeat([]byte{byte(c.Rank()), byte(d)}, 1000*round)
					}
					recv, err := c.Alltoallv(ctx, "a2a", send, nil)
					if err != nil {
						if !lost {
							report("process %d: round %d: %v", c.Process(), round, err)
						}
						return err
					}
					for src := range recv {
						if want := bytes.Repeat([]byte{byte(src), byte(c.Rank())}, 1000*round); !bytes.Equal(recv[src], want) {
							report("process %d: round %d: wrong message from rank %d", c.Process(), round, src)
						}
					}
				}
				if lost {
					report("process %d: finished although both replicas of rank 2 were lost", c.Process())
				}
				if st := c.ReplicaStats(); st.ExtraBytesSent == 0 {
					report("process %d: no extra copies counted: %+v", c.Process(), st)
				}
				return nil
			}, launchOptions{replicas: s, peerTimeout: 2 * time.Second})
			if elapsed := time.Since(start); elapsed > 6*time.Second {
				t.Errorf("job took %v", elapsed)
			}
			problems.Report(t)
			if lost && (err == nil || !strings.Contains(err.Error(), "rank 2")) {
				t.Errorf("launch returned %v, want an error naming rank 2", err)
			}
			if !lost && err != nil {
				t.Errorf("launch: %v", err)
			}
		})
	}
}
