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
// nothing hangs).
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
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
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

// launchTimeout bounds every launch of the suite.
const launchTimeout = 5 * time.Second

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
}

// launchWithin runs launch and returns its error, failing the test if it does
// not return within launchTimeout.
func launchWithin(t *testing.T, launch Launcher, p int, fn rankFunc) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- launch(ctx, p, fn) }()
	timer := time.NewTimer(launchTimeout)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		t.Fatalf("job of %d ranks did not finish within %v: a rank hangs", p, launchTimeout)
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

// violations collects what ranks of a job that fails by design observed
// contrary to the contract. Safe for concurrent use.
type violations struct {
	mu   sync.Mutex
	list []string
}

func (v *violations) addf(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.list = append(v.list, fmt.Sprintf(format, args...))
}

func (v *violations) report(t *testing.T) {
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

func testRankAndSize(t *testing.T, launch Launcher, p int) {
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		if c.Size() != p {
			return fmt.Errorf("Size() = %d, want %d", c.Size(), p)
		}
		if c.Rank() < 0 || c.Rank() >= p {
			return fmt.Errorf("Rank() = %d, want one in [0, %d)", c.Rank(), p)
		}
		out, err := c.Allgatherv(ctx, "commtest.rank", binary.AppendUvarint(nil, uint64(c.Rank())), nil)
		if err != nil {
			return err
		}
		if len(out) != p {
			return fmt.Errorf("Allgatherv returned %d contributions, want %d", len(out), p)
		}
		for s, b := range out {
			rank, n := binary.Uvarint(b)
			if n != len(b) || rank != uint64(s) {
				return fmt.Errorf("contribution %d comes from a rank that calls itself %d: ranks are not distinct", s, rank)
			}
		}
		return nil
	})
}

func testAlltoallvVaried(t *testing.T, launch Launcher, p int) {
	pt := newPattern(maxVariedLen)
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		for round := range 6 {
			send := make([][]byte, p)
			for d := range send {
				send[d] = pt.window(variedLen(r, d, round), messageSeed(r, d, round))
			}
			recv, err := c.Alltoallv(ctx, "commtest.alltoallv.varied", send, nil)
			if err != nil {
				return err
			}
			if len(recv) != p {
				return fmt.Errorf("round %d: Alltoallv returned %d buffers, want %d", round, len(recv), p)
			}
			for s := range recv {
				want := pt.window(variedLen(s, r, round), messageSeed(s, r, round))
				if err := checkBytes(fmt.Sprintf("round %d: message from rank %d", round, s), recv[s], want); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func testAlltoallvLarge(t *testing.T, launch Launcher, p int) {
	largeLen := func(src, dst int) int { return 1<<20 + 7*src + dst }
	pt := newPattern(largeLen(p, p))
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		send := make([][]byte, p)
		for d := range send {
			send[d] = pt.window(largeLen(r, d), messageSeed(r, d, 0))
		}
		recv, err := c.Alltoallv(ctx, "commtest.alltoallv.large", send, nil)
		if err != nil {
			return err
		}
		for s := range recv {
			if err := checkBytes(fmt.Sprintf("message from rank %d", s), recv[s], pt.window(largeLen(s, r), messageSeed(s, r, 0))); err != nil {
				return err
			}
		}
		return nil
	})
}

func testAlltoallvRecvReuse(t *testing.T, launch Launcher, p int) {
	// Rounds shrink, empty, regrow within capacity, then outgrow it.
	roundLen := []int{3000, 100, 0, 2999, 6000, 6000, 10}
	reuseLen := func(src, dst, round int) int {
		if roundLen[round] == 0 {
			return 0
		}
		return roundLen[round] - (src+dst)%3
	}
	pt := newPattern(6000)
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		recv := make([][]byte, p)
		for s := range recv {
			recv[s] = make([]byte, 0, 4000)
		}
		for round := range roundLen {
			send := make([][]byte, p)
			for d := range send {
				send[d] = pt.window(reuseLen(r, d, round), messageSeed(r, d, round))
			}
			before := snapshotRecv(recv)
			out, err := c.Alltoallv(ctx, "commtest.alltoallv.reuse", send, recv)
			if err != nil {
				return err
			}
			for s := range out {
				if err := checkBytes(fmt.Sprintf("round %d: message from rank %d", round, s), out[s], pt.window(reuseLen(s, r, round), messageSeed(s, r, round))); err != nil {
					return err
				}
			}
			if err := before.checkReused(fmt.Sprintf("round %d", round), out); err != nil {
				return err
			}
			recv = out
		}
		return nil
	})
}

func testAllgathervVaried(t *testing.T, launch Launcher, p int) {
	gatherLen := func(rank, round int) int {
		if round == 3 || (rank+round)%3 == 0 {
			return 0 // round 3: every contribution is empty
		}
		return 50*rank + 10*round + 1
	}
	pt := newPattern(gatherLen(p, 4))
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		var recv [][]byte
		for round := range 5 {
			mine := pt.window(gatherLen(r, round), messageSeed(r, r, round))
			before := snapshotRecv(recv)
			out, err := c.Allgatherv(ctx, "commtest.allgatherv", mine, recv)
			if err != nil {
				return err
			}
			if len(out) != p {
				return fmt.Errorf("round %d: Allgatherv returned %d contributions, want %d", round, len(out), p)
			}
			for s := range out {
				if err := checkBytes(fmt.Sprintf("round %d: contribution of rank %d", round, s), out[s], pt.window(gatherLen(s, round), messageSeed(s, s, round))); err != nil {
					return err
				}
			}
			if len(mine) > 0 && arrayStart(out[r]) == arrayStart(mine) {
				return fmt.Errorf("round %d: out[Rank()] is mine itself, want a copy", round)
			}
			if err := before.checkReused(fmt.Sprintf("round %d", round), out); err != nil {
				return err
			}
			recv = out
		}
		return nil
	})
}

var reductionOps = []comm.Op{comm.Sum, comm.Max, comm.Min}

// intContribution is element i of rank s's AllreduceInt64 contribution.
func intContribution(s, i int) int64 {
	v := int64((s+1)*(i+3)*7919) + int64(i%4)<<40
	if (s+i)%2 == 1 {
		v = -v
	}
	return v
}

func reduceInt(a, b int64, op comm.Op) int64 {
	switch op {
	case comm.Max:
		return max(a, b)
	case comm.Min:
		return min(a, b)
	}
	return a + b
}

func testAllreduceInt64(t *testing.T, launch Launcher, p int) {
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		for _, op := range reductionOps {
			for _, n := range []int{1, 5, 0, 1000} {
				vals := make([]int64, n)
				for i := range vals {
					vals[i] = intContribution(c.Rank(), i)
				}
				if err := c.AllreduceInt64(ctx, "commtest.allreduce.int64."+op.String(), vals, op); err != nil {
					return err
				}
				for i, got := range vals {
					want := intContribution(0, i)
					for s := 1; s < p; s++ {
						want = reduceInt(want, intContribution(s, i), op)
					}
					if got != want {
						return fmt.Errorf("%s of %d values: element %d = %d, want %d", op, n, i, got, want)
					}
				}
			}
		}
		return nil
	})
}

// floatContribution is element i of rank s's AllreduceFloat64 contribution:
// magnitudes spread over 2^±20 so that the rounding of a sum depends on the
// order in which the ranks are combined.
func floatContribution(s, i int) float64 {
	v := math.Ldexp(float64(1+(s*7+i*3)%13), (s*11+i*5)%41-20) + 0.1*float64(s)
	if (s+i)%3 == 1 {
		v = -v
	}
	return v
}

func reduceFloat(a, b float64, op comm.Op) float64 {
	switch op {
	case comm.Max:
		return math.Max(a, b)
	case comm.Min:
		return math.Min(a, b)
	}
	return a + b
}

func testAllreduceFloat64(t *testing.T, launch Launcher, p int) {
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		for _, op := range reductionOps {
			const n = 300
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = floatContribution(c.Rank(), i)
			}
			if err := c.AllreduceFloat64(ctx, "commtest.allreduce.float64."+op.String(), vals, op); err != nil {
				return err
			}
			bits := make([]byte, 0, 8*n)
			for i, got := range vals {
				want := floatContribution(0, i)
				for s := 1; s < p; s++ {
					want = reduceFloat(want, floatContribution(s, i), op)
				}
				if math.Float64bits(got) != math.Float64bits(want) {
					return fmt.Errorf("%s: element %d = %v, want %v (ranks combined in rank order)", op, i, got, want)
				}
				bits = binary.LittleEndian.AppendUint64(bits, math.Float64bits(got))
			}
			all, err := c.Allgatherv(ctx, "commtest.allreduce.float64.compare", bits, nil)
			if err != nil {
				return err
			}
			for s := range all {
				if !bytes.Equal(all[s], bits) {
					return fmt.Errorf("%s: the result on rank %d differs from this rank's", op, s)
				}
			}
		}
		return nil
	})
}

func bcastLen(root int) int {
	if root == 1 {
		return 0
	}
	return 1000*root + 17
}

func testBcastEveryRoot(t *testing.T, launch Launcher, p int) {
	pt := newPattern(bcastLen(p))
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		for root := range p {
			want := pt.window(bcastLen(root), messageSeed(root, root, 7))
			data := []byte("ignored on every rank but the root")
			if c.Rank() == root {
				data = want
			}
			got, err := c.Bcast(ctx, "commtest.bcast", root, data)
			if err != nil {
				return err
			}
			if err := checkBytes(fmt.Sprintf("Bcast from root %d", root), got, want); err != nil {
				return err
			}
		}
		return nil
	})
}

func testBarrier(t *testing.T, launch Launcher, p int) {
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		for i := range 100 {
			if err := c.Barrier(ctx, "commtest.barrier"); err != nil {
				return fmt.Errorf("barrier %d: %w", i, err)
			}
		}
		return nil
	})
}

// testCopySemantics overwrites every send buffer as soon as its call returns
// and checks, after a barrier, that no receiver's data changed.
func testCopySemantics(t *testing.T, launch Launcher, p int) {
	pt := newPattern(maxVariedLen)
	scribble := func(b []byte) {
		for i := range b {
			b[i] = 0xEE
		}
	}
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		send := make([][]byte, p)
		for d := range send {
			send[d] = pt.ownedWindow(variedLen(r, d, 2), messageSeed(r, d, 2))
		}
		recv, err := c.Alltoallv(ctx, "commtest.copy.alltoallv", send, nil)
		if err != nil {
			return err
		}
		for _, b := range send {
			scribble(b)
		}

		mine := pt.ownedWindow(100+r, messageSeed(r, r, 3))
		gathered, err := c.Allgatherv(ctx, "commtest.copy.allgatherv", mine, nil)
		if err != nil {
			return err
		}
		scribble(mine)

		var data []byte
		if r == 0 {
			data = pt.ownedWindow(500, messageSeed(0, 0, 4))
		}
		broadcast, err := c.Bcast(ctx, "commtest.copy.bcast", 0, data)
		if err != nil {
			return err
		}
		scribble(data) // on the root, broadcast may be data itself

		if err := c.Barrier(ctx, "commtest.copy.barrier"); err != nil {
			return err
		}
		for s := range recv {
			if err := checkBytes(fmt.Sprintf("Alltoallv message from rank %d after its sender reused the buffer", s), recv[s], pt.window(variedLen(s, r, 2), messageSeed(s, r, 2))); err != nil {
				return err
			}
		}
		for s := range gathered {
			if err := checkBytes(fmt.Sprintf("Allgatherv contribution of rank %d after its sender reused the buffer", s), gathered[s], pt.window(100+s, messageSeed(s, s, 3))); err != nil {
				return err
			}
		}
		if r != 0 {
			if err := checkBytes("Bcast data after the root reused its buffer", broadcast, pt.window(500, messageSeed(0, 0, 4))); err != nil {
				return err
			}
		}
		return nil
	})
}

// testMixedSequence runs many back-to-back collectives of every kind in a
// pseudo-random order that every rank derives from the same seed.
func testMixedSequence(t *testing.T, launch Launcher, p int) {
	const steps = 240
	mixedLen := func(src, dst, step int) int { return (src*5 + dst*3 + step*7) % 23 }
	pt := newPattern(64)
	phases := []string{
		"commtest.mixed.alltoallv", "commtest.mixed.allgatherv", "commtest.mixed.allreduce.int64",
		"commtest.mixed.allreduce.float64", "commtest.mixed.bcast", "commtest.mixed.barrier",
	}
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		rng := rand.New(rand.NewPCG(42, uint64(p)))
		before := c.Stats().Snapshot()
		calls := make(map[string]int64)
		var alltoallvRecv, allgathervRecv [][]byte
		for step := range steps {
			kind, root, op := rng.IntN(len(phases)), rng.IntN(p), reductionOps[rng.IntN(len(reductionOps))]
			phase := phases[kind]
			calls[phase]++
			var err error
			switch kind {
			case 0:
				send := make([][]byte, p)
				for d := range send {
					send[d] = pt.window(mixedLen(r, d, step), messageSeed(r, d, step))
				}
				alltoallvRecv, err = c.Alltoallv(ctx, phase, send, alltoallvRecv)
				for s := 0; err == nil && s < p; s++ {
					err = checkBytes(fmt.Sprintf("message from rank %d", s), alltoallvRecv[s], pt.window(mixedLen(s, r, step), messageSeed(s, r, step)))
				}
			case 1:
				allgathervRecv, err = c.Allgatherv(ctx, phase, pt.window(mixedLen(r, r, step), messageSeed(r, r, step)), allgathervRecv)
				for s := 0; err == nil && s < p; s++ {
					err = checkBytes(fmt.Sprintf("contribution of rank %d", s), allgathervRecv[s], pt.window(mixedLen(s, s, step), messageSeed(s, s, step)))
				}
			case 2:
				vals := []int64{intContribution(r, step), intContribution(r, step+1)}
				err = c.AllreduceInt64(ctx, phase, vals, op)
				for i := 0; err == nil && i < len(vals); i++ {
					want := intContribution(0, step+i)
					for s := 1; s < p; s++ {
						want = reduceInt(want, intContribution(s, step+i), op)
					}
					if vals[i] != want {
						err = fmt.Errorf("%s element %d = %d, want %d", op, i, vals[i], want)
					}
				}
			case 3:
				vals := []float64{floatContribution(r, step)}
				err = c.AllreduceFloat64(ctx, phase, vals, op)
				want := floatContribution(0, step)
				for s := 1; s < p; s++ {
					want = reduceFloat(want, floatContribution(s, step), op)
				}
				if err == nil && math.Float64bits(vals[0]) != math.Float64bits(want) {
					err = fmt.Errorf("%s = %v, want %v", op, vals[0], want)
				}
			case 4:
				want := pt.window(mixedLen(root, 0, step), messageSeed(root, 0, step))
				var data []byte
				if r == root {
					data = want
				}
				var got []byte
				got, err = c.Bcast(ctx, phase, root, data)
				if err == nil {
					err = checkBytes(fmt.Sprintf("Bcast from root %d", root), got, want)
				}
			case 5:
				err = c.Barrier(ctx, phase)
			}
			if err != nil {
				return fmt.Errorf("step %d (%s): %w", step, phase, err)
			}
		}
		for _, phase := range phases {
			got := c.Stats().Phase(phase).Sub(before[phase]).Calls
			if got != calls[phase] {
				return fmt.Errorf("phase %s counted %d calls, made %d", phase, got, calls[phase])
			}
		}
		return nil
	})
}

// testCounters checks every phase's counters against the conventions in the
// package doc, then that the bytes sent summed over all ranks equal the bytes
// received, per phase and in total.
func testCounters(t *testing.T, launch Launcher, p int) {
	pt := newPattern(maxVariedLen)
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		r, others := c.Rank(), int64(p-1)
		messagesTo := func(n int) int64 {
			if n == 0 {
				return 0
			}
			return others
		}
		stats := c.Stats()
		before := stats.Snapshot()
		type expectation struct {
			phase string
			want  comm.PhaseCounters
		}
		var expected []expectation
		expect := func(phase string, want comm.PhaseCounters) {
			expected = append(expected, expectation{phase, want})
		}

		send := make([][]byte, p)
		a2a := comm.PhaseCounters{Calls: 1}
		for d := range send {
			send[d] = pt.window(variedLen(r, d, 1), messageSeed(r, d, 1))
			if d != r {
				a2a.BytesSent += int64(len(send[d]))
				a2a.BytesRecv += int64(variedLen(d, r, 1))
				if len(send[d]) > 0 {
					a2a.Messages++
				}
			}
		}
		if _, err := c.Alltoallv(ctx, "commtest.counters.alltoallv", send, nil); err != nil {
			return err
		}
		expect("commtest.counters.alltoallv", a2a)

		gatherLen := func(rank int) int { return 10 * (rank % 3) } // rank 0 contributes nothing
		if _, err := c.Allgatherv(ctx, "commtest.counters.allgatherv", pt.window(gatherLen(r), uint64(r)), nil); err != nil {
			return err
		}
		gathered := int64(0)
		for s := range p {
			if s != r {
				gathered += int64(gatherLen(s))
			}
		}
		expect("commtest.counters.allgatherv", comm.PhaseCounters{
			Calls: 1, BytesSent: int64(gatherLen(r)) * others, BytesRecv: gathered, Messages: messagesTo(gatherLen(r)),
		})

		for _, n := range []int{5, 0} {
			phase := fmt.Sprintf("commtest.counters.allreduce.int64.len%d", n)
			if err := c.AllreduceInt64(ctx, phase, make([]int64, n), comm.Sum); err != nil {
				return err
			}
			expect(phase, comm.PhaseCounters{Calls: 1, BytesSent: 8 * int64(n) * others, BytesRecv: 8 * int64(n) * others, Messages: messagesTo(n)})
		}
		if err := c.AllreduceFloat64(ctx, "commtest.counters.allreduce.float64", make([]float64, 3), comm.Max); err != nil {
			return err
		}
		expect("commtest.counters.allreduce.float64", comm.PhaseCounters{Calls: 1, BytesSent: 24 * others, BytesRecv: 24 * others, Messages: others})

		for _, b := range []struct {
			phase string
			root  int
			n     int
		}{{"commtest.counters.bcast", p - 1, 100}, {"commtest.counters.bcast.empty", 0, 0}} {
			data := pt.window(b.n, 9)
			if _, err := c.Bcast(ctx, b.phase, b.root, data); err != nil {
				return err
			}
			want := comm.PhaseCounters{Calls: 1, BytesRecv: int64(b.n)}
			if r == b.root {
				want = comm.PhaseCounters{Calls: 1, BytesSent: int64(b.n) * others, Messages: messagesTo(b.n)}
			}
			expect(b.phase, want)
		}

		for range 2 {
			if err := c.Barrier(ctx, "commtest.counters.barrier"); err != nil {
				return err
			}
		}
		expect("commtest.counters.barrier", comm.PhaseCounters{Calls: 2})

		// balance[2i], balance[2i+1]: bytes sent and received in phase i, then
		// the totals over every phase this rank ever used.
		balance := make([]int64, 0, 2*len(expected)+2)
		for _, e := range expected {
			got := stats.Phase(e.phase).Sub(before[e.phase])
			if got != e.want {
				return fmt.Errorf("phase %s: counters %+v, want %+v", e.phase, got, e.want)
			}
			balance = append(balance, got.BytesSent, got.BytesRecv)
		}
		total := stats.Total()
		balance = append(balance, total.BytesSent, total.BytesRecv)
		if err := c.AllreduceInt64(ctx, "commtest.counters.balance", balance, comm.Sum); err != nil {
			return err
		}
		for i, e := range expected {
			if balance[2*i] != balance[2*i+1] {
				return fmt.Errorf("phase %s: all ranks sent %d bytes but received %d", e.phase, balance[2*i], balance[2*i+1])
			}
		}
		if n := len(balance); balance[n-2] != balance[n-1] {
			return fmt.Errorf("in total all ranks sent %d bytes but received %d", balance[n-2], balance[n-1])
		}
		return nil
	})
}

// warmUp makes a few collectives before a failure is injected, so that it
// happens mid-run. They must succeed, except that on a backend whose
// collectives are not all-or-nothing the last one may already see the abort
// of a rank that completed it and failed right away.
func warmUp(ctx context.Context, c comm.Comm, v *violations) {
	const rounds = 3
	for round := range rounds {
		_, err := c.Allgatherv(ctx, "commtest.failure.warmup", []byte{byte(c.Rank()), byte(round)}, nil)
		if err != nil {
			if round < rounds-1 || !errors.Is(err, comm.ErrAborted) {
				v.addf("rank %d: warm-up round %d before any failure: %v", c.Rank(), round, err)
			}
			return
		}
	}
}

// awaitAbort is what the surviving ranks of a failure test do: a collective
// that cannot complete, then a later one; both must fail with
// comm.ErrAborted. It returns the first error.
func awaitAbort(ctx context.Context, c comm.Comm, v *violations) error {
	_, blocked := c.Allgatherv(ctx, "commtest.failure.blocked", []byte{byte(c.Rank())}, nil)
	if !errors.Is(blocked, comm.ErrAborted) {
		v.addf("rank %d: Allgatherv waiting for a failed rank returned %v, want an error wrapping comm.ErrAborted", c.Rank(), blocked)
	}
	later := c.Barrier(ctx, "commtest.failure.later")
	if !errors.Is(later, comm.ErrAborted) {
		v.addf("rank %d: Barrier after the job failed returned %v, want an error wrapping comm.ErrAborted", c.Rank(), later)
	}
	if blocked != nil {
		return blocked
	}
	if later != nil {
		return later
	}
	return errors.New("commtest: collectives kept succeeding after a rank failed")
}

func testFailingRank(t *testing.T, launch Launcher, p int) {
	failing := p - 1
	injected := fmt.Sprintf("commtest: injected failure of rank %d", failing)
	var v violations
	err := launchWithin(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		warmUp(ctx, c, &v)
		if c.Rank() == failing {
			return errors.New(injected)
		}
		return awaitAbort(ctx, c, &v)
	})
	v.report(t)
	if err == nil {
		t.Fatal("launch returned nil for a job whose rank failed")
	}
	if !strings.Contains(err.Error(), injected) {
		t.Errorf("launch error %q does not contain the failing rank's error %q", err, injected)
	}
}

func testPanickingRank(t *testing.T, launch Launcher, p int) {
	panicking := p / 2
	injected := fmt.Sprintf("commtest: injected panic of rank %d", panicking)
	var v violations
	err := launchWithin(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		warmUp(ctx, c, &v)
		if c.Rank() == panicking {
			panic(injected)
		}
		return awaitAbort(ctx, c, &v)
	})
	v.report(t)
	if err == nil {
		t.Fatal("launch returned nil for a job whose rank panicked")
	}
	if !strings.Contains(err.Error(), injected) {
		t.Errorf("launch error %q does not contain the panic value %q", err, injected)
	}
}

// testCancelWhileBlocked cancels every rank's context while ranks 1..p−1 wait
// in a Barrier that rank 0 only enters once its own context is done. The
// Barrier can therefore never complete, and every rank must see it fail,
// either with its context's error or with comm.ErrAborted.
func testCancelWhileBlocked(t *testing.T, launch Launcher, p int) {
	var v violations
	err := launchWithin(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		callCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		timer := time.AfterFunc(cancelDelay, cancel)
		defer timer.Stop()
		if c.Rank() == 0 {
			<-callCtx.Done()
		}
		err := c.Barrier(callCtx, "commtest.cancel.blocked")
		if err == nil {
			v.addf("rank %d: Barrier returned nil though rank 0 entered it only with a cancelled context", c.Rank())
		} else if !errors.Is(err, context.Canceled) && !errors.Is(err, comm.ErrAborted) {
			v.addf("rank %d: cancelled Barrier returned %v, want an error wrapping context.Canceled or comm.ErrAborted", c.Rank(), err)
		}
		later := c.Barrier(ctx, "commtest.cancel.later")
		if !errors.Is(later, comm.ErrAborted) {
			v.addf("rank %d: Barrier after a cancellation returned %v, want an error wrapping comm.ErrAborted", c.Rank(), later)
		}
		if err != nil {
			return err
		}
		return later
	})
	v.report(t)
	if err == nil {
		t.Fatal("launch returned nil for a job whose calls were cancelled")
	}
}

func testMismatch(t *testing.T, launch Launcher, p int) {
	if p == 1 {
		t.Skip("a single rank cannot disagree with itself")
	}
	mismatches := []struct {
		name string
		call func(ctx context.Context, c comm.Comm) error
	}{
		{"Kind", func(ctx context.Context, c comm.Comm) error {
			if c.Rank()%2 == 0 {
				return c.Barrier(ctx, "commtest.mismatch.kind")
			}
			_, err := c.Allgatherv(ctx, "commtest.mismatch.kind", []byte{1}, nil)
			return err
		}},
		{"Phase", func(ctx context.Context, c comm.Comm) error {
			if c.Rank() == 0 {
				return c.Barrier(ctx, "commtest.mismatch.phase.a")
			}
			return c.Barrier(ctx, "commtest.mismatch.phase.b")
		}},
		{"AllreduceLength", func(ctx context.Context, c comm.Comm) error {
			n := 3
			if c.Rank() == 0 {
				n = 2
			}
			return c.AllreduceInt64(ctx, "commtest.mismatch.length", make([]int64, n), comm.Sum)
		}},
		{"AllreduceOp", func(ctx context.Context, c comm.Comm) error {
			op := comm.Max
			if c.Rank() == 0 {
				op = comm.Sum
			}
			return c.AllreduceFloat64(ctx, "commtest.mismatch.op", make([]float64, 2), op)
		}},
		{"BcastRoot", func(ctx context.Context, c comm.Comm) error {
			root := 1
			if c.Rank() == 0 {
				root = 0
			}
			_, err := c.Bcast(ctx, "commtest.mismatch.root", root, []byte("data"))
			return err
		}},
	}
	for _, m := range mismatches {
		t.Run(m.name, func(t *testing.T) {
			var v violations
			err := launchWithin(t, launch, p, func(ctx context.Context, c comm.Comm) error {
				warmUp(ctx, c, &v)
				err := m.call(ctx, c)
				if err == nil {
					v.addf("rank %d: mismatched collective returned nil", c.Rank())
				}
				later := c.Barrier(ctx, "commtest.mismatch.later")
				if !errors.Is(later, comm.ErrAborted) {
					v.addf("rank %d: Barrier after a mismatch returned %v, want an error wrapping comm.ErrAborted", c.Rank(), later)
				}
				if err != nil {
					return err
				}
				return later
			})
			v.report(t)
			if err == nil {
				t.Fatal("launch returned nil for a job with mismatched collectives")
			}
		})
	}
}
