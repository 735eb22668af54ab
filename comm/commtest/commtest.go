// Package commtest is the conformance suite of comm.Comm backends. Every
// backend (comm/inproc, TCP, MPI) runs the same tests through a Launcher:
//
//	func TestConformance(t *testing.T) { commtest.Run(t, inproc.Run, nil) }
//
// The suite checks the contract of package comm: the data every collective
// delivers, copy semantics and recv-buffer reuse, deterministic floating-point
// reduction, the per-phase counters, and the failure contract (a failing,
// panicking or cancelled rank, or ranks that disagree on a collective, make
// every other rank's pending and later calls fail with comm.ErrAborted, and
// nothing hangs). It implements no paper section: it pins down the
// transport contract (package comm) that the papers' algorithms are
// written against; the paper-mapped transport tests are comm/tcp's
// tcp_paper_test.go.
//
// # What a backend must do beyond package comm's documentation
//
//   - Count the logical volume of each collective, as documented in package
//     comm/inproc: traffic to the rank itself is never counted; messages are
//     non-empty payloads sent to other ranks; Allgatherv sends len(mine) to
//     each of the P−1 others; an Allreduce of n values sends and receives
//     8·n·(P−1) bytes in P−1 messages (none if n = 0); Bcast's root sends
//     len(data)·(P−1) and every other rank receives len(data); Barrier moves
//     no bytes. Only calls that complete are counted, one Call each.
//   - Treat a call made with a context that is already done like a call whose
//     context is cancelled while it waits: it fails and aborts the job.
//   - Detect ranks that disagree on a collective's operation, phase name,
//     Allreduce length or operator, or Bcast root: the mismatched call fails
//     on every rank and the job aborts.
//   - Make launch return a non-nil error whose text contains the error (or
//     the panic value) of the rank that failed first.
//
// # How the tests are written
//
// The tests use only the Launcher and the comm.Comm interface. A rank checks
// what it received against values it computes itself or obtains through the
// Comm, and reports a wrong result as its error, so the suite works whether
// the launcher runs ranks as goroutines or as processes. The failure tests,
// whose jobs fail by design, collect the ranks' observations in memory, so
// they need each rank function to run in the process that called Run, as
// when a launcher re-executes the test binary once per rank. Every launch is
// guarded by a timeout: a hung job fails its test rather than the binary.
package commtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// Launcher runs fn on p ranks of a new job, each with its own comm.Comm, and
// returns nil if every rank returns nil, otherwise a non-nil error that
// includes the error of the rank that failed first. inproc.Run is one.
type Launcher func(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error

// rankFunc is the function a Launcher runs on every rank.
type rankFunc = func(ctx context.Context, c comm.Comm) error

// launchTimeout bounds every launch of the suite: a job takes
// milliseconds; the bound tells a rank that hangs from a machine loaded by
// other work (with the race detector and two CPU hogs beside it, a launch
// of 7 TCP ranks took over 5 s).
const launchTimeout = time.Minute

// cancelDelay is how long the cancellation test lets ranks wait before it
// cancels their contexts. It only makes it likely that ranks are blocked
// inside the call when that happens; the outcome does not depend on it.
const cancelDelay = 20 * time.Millisecond

// Run runs the conformance suite as subtests of t, once per rank count in
// sizes (1, 2, 3, 4 and 7 if nil).
func Run(t *testing.T, launch Launcher, sizes []int) {
	t.Helper()
	if sizes == nil {
		sizes = []int{1, 2, 3, 4, 7}
	}
	for _, p := range sizes {
		t.Run(fmt.Sprintf("p=%d", p), func(t *testing.T) {
			if p < 1 {
				t.Fatalf("rank count %d: need at least 1", p)
			}
			for _, ct := range conformanceTests {
				t.Run(ct.name, func(t *testing.T) { ct.run(t, launch, p) })
			}
		})
	}
}

var conformanceTests = []struct {
	name string
	run  func(t *testing.T, launch Launcher, p int)
}{
	{"RankAndSize", testRankAndSize},
	{"AlltoallvVaried", testAlltoallvVaried},
	{"AlltoallvLarge", testAlltoallvLarge},
	{"AlltoallvRecvReuse", testAlltoallvRecvReuse},
	{"AllgathervVaried", testAllgathervVaried},
	{"AllreduceInt64", testAllreduceInt64},
	{"AllreduceFloat64", testAllreduceFloat64},
	{"BcastEveryRoot", testBcastEveryRoot},
	{"Barrier", testBarrier},
	{"CopySemantics", testCopySemantics},
	{"MixedSequence", testMixedSequence},
	{"Counters", testCounters},
	{"FailingRank", testFailingRank},
	{"PanickingRank", testPanickingRank},
	{"CancelWhileBlocked", testCancelWhileBlocked},
	{"Mismatch", testMismatch},
	{"SubGroups", testSubGroups},
	{"GroupNeighbours", testGroupNeighbours},
	{"GroupAsymmetric", testGroupAsymmetric},
	{"GroupVersusFull", testGroupVersusFull},
}

// launchWithin runs launch and returns its error, failing the test if it does
// not return within launchTimeout.
func launchWithin(t *testing.T, launch Launcher, p int, fn rankFunc) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return Within(t, launchTimeout, fmt.Sprintf("job of %d ranks", p), func() error { return launch(ctx, p, fn) })
}

// Within runs f and fails the test, naming what, if f does not return
// within d (a rank hangs): the guard of every test that could hang on a
// broken rendezvous.
func Within(t *testing.T, d time.Duration, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		t.Fatalf("%s did not finish within %v: a rank hangs", what, d)
		return nil
	}
}

// mustLaunch runs a job that must succeed.
func mustLaunch(t *testing.T, launch Launcher, p int, fn rankFunc) {
	t.Helper()
	if err := launchWithin(t, launch, p, fn); err != nil {
		t.Fatalf("job of %d ranks failed: %v", p, err)
	}
}

// SmallJob is a short healthy workload for a transport's own tests of a
// job's life: an Allgatherv of every rank's id, checked, and a Barrier.
func SmallJob(ctx context.Context, c comm.Comm) error {
	out, err := c.Allgatherv(ctx, "commtest.small.gather", []byte{byte(c.Rank())}, nil)
	if err != nil {
		return err
	}
	for s, b := range out {
		if !bytes.Equal(b, []byte{byte(s)}) {
			return fmt.Errorf("contribution of rank %d is %v", s, b)
		}
	}
	return c.Barrier(ctx, "commtest.small.barrier")
}

// Problems collects what the ranks of a test find wrong, from any
// goroutine, for the test to report once they are done: in the suite, what
// the ranks of a job that fails by design observe contrary to the
// contract; in the transports' own tests, whatever they check on the ranks.
type Problems struct {
	mu   sync.Mutex
	list []string
}

// Addf records one problem.
func (v *Problems) Addf(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.list = append(v.list, fmt.Sprintf(format, args...))
}

// Report reports every problem as an error of t.
func (v *Problems) Report(t *testing.T) {
	t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, msg := range v.list {
		t.Error(msg)
	}
}

// patternSpan is the number of distinct windows of a pattern.
const patternSpan = 4093

// pattern is deterministic pseudo-random data. Payloads are windows of it, so
// a receiver can rebuild the payload it expects from (length, seed) alone.
type pattern []byte

// newPattern returns a pattern whose windows can be up to maxLen bytes long.
func newPattern(maxLen int) pattern {
	pt := make(pattern, maxLen+patternSpan+8)
	x := uint64(0x9E3779B97F4A7C15)
	for i := 0; i+8 <= len(pt); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(pt[i:], x)
	}
	return pt[:maxLen+patternSpan]
}

// window returns the n-byte payload for seed. Its capacity is n, so a backend
// that appends to it cannot overwrite other payloads.
func (pt pattern) window(n int, seed uint64) []byte {
	off := int(seed % patternSpan)
	return pt[off : off+n : off+n]
}

// ownedWindow is window copied into a buffer of its own.
func (pt pattern) ownedWindow(n int, seed uint64) []byte {
	return bytes.Clone(pt.window(n, seed))
}

// messageSeed identifies the payload rank src sends to rank dst in a round.
func messageSeed(src, dst, round int) uint64 {
	return uint64(src)*1_000_003 + uint64(dst)*10_007 + uint64(round)*101
}

// checkEach checks that got holds one noun (message, contribution) from
// each of the p ranks, the one from rank s being want(s); prefix starts
// the errors.
func checkEach(prefix, noun string, got [][]byte, p int, want func(s int) []byte) error {
	if len(got) != p {
		return fmt.Errorf("%s%d %ss, want one from each of %d ranks", prefix, len(got), noun, p)
	}
	for s := range got {
		if err := checkBytes(fmt.Sprintf("%s%s from rank %d", prefix, noun, s), got[s], want(s)); err != nil {
			return err
		}
	}
	return nil
}

// checkBytes returns an error describing how got differs from want.
func checkBytes(what string, got, want []byte) error {
	if bytes.Equal(got, want) {
		return nil
	}
	if len(got) != len(want) {
		return fmt.Errorf("%s: got %d bytes, want %d", what, len(got), len(want))
	}
	i := 0
	for got[i] == want[i] {
		i++
	}
	return fmt.Errorf("%s: byte %d of %d is %#x, want %#x", what, i, len(want), got[i], want[i])
}

// arrayStart identifies the backing array of b (nil if it has no capacity).
func arrayStart(b []byte) *byte {
	if cap(b) == 0 {
		return nil
	}
	return &b[:1][0]
}

// recvSnapshot records the recv buffers handed to a call, to check afterwards
// that the call reused every buffer that was large enough.
type recvSnapshot struct {
	caps   []int
	starts []*byte
}

func snapshotRecv(recv [][]byte) recvSnapshot {
	s := recvSnapshot{caps: make([]int, len(recv)), starts: make([]*byte, len(recv))}
	for i, b := range recv {
		s.caps[i] = cap(b)
		s.starts[i] = arrayStart(b)
	}
	return s
}

func (s recvSnapshot) checkReused(what string, out [][]byte) error {
	for i, b := range out {
		if i >= len(s.caps) || len(b) == 0 || s.caps[i] < len(b) {
			continue
		}
		if arrayStart(b) != s.starts[i] {
			return fmt.Errorf("%s: recv[%d] had capacity %d for %d bytes but a new buffer was returned", what, i, s.caps[i], len(b))
		}
	}
	return nil
}

// variedLen is the length of the round's Alltoallv message from src to dst:
// empty, tiny, small and a few KiB, every kind occurring between every pair
// (including a rank and itself) over five consecutive rounds.
func variedLen(src, dst, round int) int {
	switch (src + 2*dst + 3*round) % 5 {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return 7 + src
	case 3:
		return 1000 + 13*dst
	default:
		return 4096 + 3*round
	}
}

const maxVariedLen = 4096 + 3*64
