package inproc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/commtest"
)

// guard bounds every test that could hang on a broken rendezvous.
const guard = 5 * time.Second

func TestConformance(t *testing.T) {
	commtest.Run(t, Run, nil)
}

// within runs f and fails the test if it does not return within guard.
func within(t *testing.T, f func() error) error {
	t.Helper()
	return commtest.Within(t, guard, "the test's ranks", f)
}

// driveRanks runs fn on every rank of w on goroutines of its own, without
// Run, and returns each rank's error.
func driveRanks(t *testing.T, w *World, fn func(c comm.Comm) error) []error {
	t.Helper()
	errs := make([]error, w.size)
	within(t, func() error {
		var wg sync.WaitGroup
		for r := range w.size {
			wg.Go(func() { errs[r] = fn(w.Comm(r)) })
		}
		wg.Wait()
		return nil
	})
	return errs
}

// waitForArrivals waits until n ranks wait at the current barrier generation.
func waitForArrivals(t *testing.T, w *World, n int) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for {
		w.mu.Lock()
		arrived := w.arrived
		w.mu.Unlock()
		if arrived == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d ranks at the barrier after %v, want %d", arrived, guard, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestNewWorldRejectsEmptyWorld(t *testing.T) {
	for _, p := range []int{0, -1} {
		if _, err := NewWorld(p); err == nil {
			t.Errorf("NewWorld(%d) succeeded", p)
		}
		called := false
		err := Run(context.Background(), p, func(context.Context, comm.Comm) error { called = true; return nil })
		if err == nil || called {
			t.Errorf("Run with %d ranks: error %v, fn called %v; want an error and no call", p, err, called)
		}
	}
}

func TestCommPanicsOnRankOutOfRange(t *testing.T) {
	w, err := NewWorld(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, rank := range []int{-1, 2} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Comm(%d) of a 2-rank world did not panic", rank)
				}
			}()
			w.Comm(rank)
		}()
	}
}

func TestManualWorldAndAbort(t *testing.T) {
	w, err := NewWorld(3)
	if err != nil {
		t.Fatal(err)
	}
	errs := driveRanks(t, w, func(c comm.Comm) error {
		out, err := c.Allgatherv(context.Background(), "manual", []byte{byte(10 + c.Rank())}, nil)
		if err != nil {
			return err
		}
		for s, b := range out {
			if len(b) != 1 || b[0] != byte(10+s) {
				return fmt.Errorf("contribution %d = %v", s, b)
			}
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}

	boom := errors.New("disk on fire")
	w.Abort(1, boom)
	w.Abort(0, errors.New("second abort is ignored"))
	errs = driveRanks(t, w, func(c comm.Comm) error { return c.Barrier(context.Background(), "after") })
	for r, err := range errs {
		if !errors.Is(err, comm.ErrAborted) || !strings.Contains(err.Error(), "rank 1 failed: disk on fire") {
			t.Errorf("rank %d after Abort: %v, want comm.ErrAborted naming rank 1 and its error", r, err)
		}
		if strings.Contains(fmt.Sprint(err), "second abort") {
			t.Errorf("rank %d: a second Abort replaced the first: %v", r, err)
		}
	}
}

func TestAbortWakesPendingCalls(t *testing.T) {
	w, err := NewWorld(3)
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Go(func() { errs[r] = w.Comm(r).Barrier(context.Background(), "pending") })
	}
	waitForArrivals(t, w, 2)
	w.Abort(2, errors.New("rank 2 crashed"))
	within(t, func() error { wg.Wait(); return nil })
	for r, err := range errs {
		if !errors.Is(err, comm.ErrAborted) || !strings.Contains(err.Error(), "rank 2 crashed") {
			t.Errorf("pending Barrier on rank %d: %v, want comm.ErrAborted naming the cause", r, err)
		}
	}
	if err := w.Comm(2).Barrier(context.Background(), "pending"); !errors.Is(err, comm.ErrAborted) {
		t.Errorf("late Barrier on rank 2: %v, want comm.ErrAborted", err)
	}
}

func TestRecvBufferReuseKeepsCapacity(t *testing.T) {
	const p, size = 3, 1000
	err := Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		send := make([][]byte, p)
		for d := range send {
			send[d] = make([]byte, size-10*d)
		}
		recv := make([][]byte, p)
		for s := range recv {
			recv[s] = make([]byte, 0, size)
		}
		starts := make([]*byte, p)
		for s := range recv {
			starts[s] = &recv[s][:1][0]
		}
		var gathered [][]byte
		var gatheredStarts []*byte
		for round := range 10 {
			out, err := c.Alltoallv(ctx, "reuse", send, recv)
			if err != nil {
				return err
			}
			for s := range out {
				if &out[s][:1][0] != starts[s] || cap(out[s]) != size {
					return fmt.Errorf("round %d: recv[%d] was reallocated", round, s)
				}
			}
			recv = out

			gathered, err = c.Allgatherv(ctx, "reuse.gather", send[0], gathered)
			if err != nil {
				return err
			}
			if round == 0 {
				for _, b := range gathered {
					gatheredStarts = append(gatheredStarts, &b[:1][0])
				}
			}
			for s, b := range gathered {
				if &b[:1][0] != gatheredStarts[s] {
					return fmt.Errorf("round %d: Allgatherv recv[%d] was reallocated", round, s)
				}
			}
		}
		// A recv of the wrong length is ignored rather than misused.
		out, err := c.Alltoallv(ctx, "reuse.short", send, recv[:1])
		if err != nil {
			return err
		}
		if len(out) != p {
			return fmt.Errorf("Alltoallv with a short recv returned %d buffers, want %d", len(out), p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestBarrierWaitsForEveryRank(t *testing.T) {
	const p, rounds = 5, 50
	var entered [rounds]atomic.Int32
	err := Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		for round := range rounds {
			entered[round].Add(1)
			if err := c.Barrier(ctx, "barrier"); err != nil {
				return err
			}
			if n := entered[round].Load(); n != p {
				return fmt.Errorf("round %d: left the barrier when %d of %d ranks had entered", round, n, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAllreduceFloat64CombinesInRankOrder(t *testing.T) {
	// (1e16 + 1) rounds back to 1e16, so rank order gives 0 where other
	// orders give 1.
	contribution := []float64{1e16, 1, -1e16}
	err := Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		vals := []float64{contribution[c.Rank()]}
		if err := c.AllreduceFloat64(ctx, "sum", vals, comm.Sum); err != nil {
			return err
		}
		if vals[0] != 0 {
			return fmt.Errorf("sum = %v, want 0 from combining ranks 0, 1, 2 in order", vals[0])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunReportsFailingRankFirst(t *testing.T) {
	boom := errors.New("boom")
	var mu sync.Mutex
	rankErrs := make(map[int]error)
	err := within(t, func() error {
		return Run(context.Background(), 4, func(ctx context.Context, c comm.Comm) error {
			if c.Rank() == 2 {
				return boom
			}
			err := c.Barrier(ctx, "wait")
			mu.Lock()
			rankErrs[c.Rank()] = err
			mu.Unlock()
			return err
		})
	})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "rank 2: boom") {
		t.Errorf("Run error %q, want one starting with \"rank 2: boom\" and wrapping it", err)
	}
	if !strings.Contains(err.Error(), "ranks 0, 1, 3 aborted") {
		t.Errorf("Run error %q does not list the aborted ranks", err)
	}
	for r, rankErr := range rankErrs {
		if !errors.Is(rankErr, comm.ErrAborted) || !strings.Contains(rankErr.Error(), "rank 2 failed: boom") {
			t.Errorf("rank %d: %v, want comm.ErrAborted naming rank 2 and its error", r, rankErr)
		}
	}
}

func TestRunJoinsIndependentFailures(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	err := within(t, func() error {
		return Run(context.Background(), 4, func(ctx context.Context, c comm.Comm) error {
			switch c.Rank() {
			case 1:
				return first
			case 3:
				return second
			}
			return nil
		})
	})
	if !errors.Is(err, first) || !errors.Is(err, second) {
		t.Errorf("Run error %q does not wrap both failures", err)
	}
}

func TestRunRecoversPanic(t *testing.T) {
	err := within(t, func() error {
		return Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
			if c.Rank() == 1 {
				var m map[string]int
				m["nil map"] = 1
			}
			return c.Barrier(ctx, "wait")
		})
	})
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Run error %v, want a *PanicError", err)
	}
	if !strings.HasPrefix(err.Error(), "rank 1: panic: assignment to entry in nil map") {
		t.Errorf("Run error %q, want it to start with rank 1's panic", err)
	}
	if !strings.HasPrefix(pe.Stack, "github.com/graphrun/graphrun/comm/inproc.TestRunRecoversPanic") {
		t.Errorf("panic stack does not start at the panicking function:\n%s", pe.Stack)
	}
	if strings.Contains(pe.Stack, "runRank") || strings.Count(pe.Stack, "\n") > 2*comm.MaxPanicFrames {
		t.Errorf("panic stack is not short:\n%s", pe.Stack)
	}

	cause := errors.New("panicked with an error")
	err = within(t, func() error {
		return Run(context.Background(), 2, func(context.Context, comm.Comm) error { panic(cause) })
	})
	if !errors.Is(err, cause) {
		t.Errorf("Run error %v does not wrap the panic's error value", err)
	}
}

func TestRunReportsGoexit(t *testing.T) {
	err := within(t, func() error {
		return Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
			if c.Rank() == 0 {
				runtime.Goexit()
			}
			return c.Barrier(ctx, "wait")
		})
	})
	if err == nil || !strings.Contains(err.Error(), "rank 0: rank function exited through runtime.Goexit") {
		t.Errorf("Run error %v, want one naming rank 0's Goexit", err)
	}
}

func TestCancelledCallReportsContextError(t *testing.T) {
	w, err := NewWorld(2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelledErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		cancelledErr = w.Comm(0).Barrier(ctx, "cancel")
	}()
	waitForArrivals(t, w, 1)
	cancel()
	within(t, func() error { <-done; return nil })
	if !errors.Is(cancelledErr, context.Canceled) || errors.Is(cancelledErr, comm.ErrAborted) {
		t.Errorf("cancelled Barrier: %v, want context.Canceled, not comm.ErrAborted", cancelledErr)
	}
	peerErr := w.Comm(1).Barrier(context.Background(), "cancel")
	if !errors.Is(peerErr, comm.ErrAborted) || !strings.Contains(peerErr.Error(), `rank 0 failed: Barrier("cancel"): context canceled`) {
		t.Errorf("peer Barrier: %v, want comm.ErrAborted naming rank 0's cancelled call", peerErr)
	}
}

func TestRunWithCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := within(t, func() error {
		return Run(ctx, 3, func(ctx context.Context, c comm.Comm) error { return c.Barrier(ctx, "never") })
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestMismatchNamesBothCalls(t *testing.T) {
	var mu sync.Mutex
	rankErrs := make(map[int]error)
	err := within(t, func() error {
		return Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
			n := 3
			if c.Rank() == 2 {
				n = 2
			}
			err := c.AllreduceInt64(ctx, "x", make([]int64, n), comm.Sum)
			mu.Lock()
			rankErrs[c.Rank()] = err
			mu.Unlock()
			return err
		})
	})
	const want = `collective mismatch: rank 0 called AllreduceInt64("x", len=3, op=sum) but rank 2 called AllreduceInt64("x", len=2, op=sum)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run error %v, want one containing %q", err, want)
	}
	if len(rankErrs) != 3 {
		t.Fatalf("%d ranks reported, want 3", len(rankErrs))
	}
	for r, rankErr := range rankErrs {
		if !errors.Is(rankErr, comm.ErrAborted) || !strings.Contains(rankErr.Error(), want) {
			t.Errorf("rank %d: %v, want comm.ErrAborted describing the mismatch", r, rankErr)
		}
	}
}

func TestSwallowedErrorStillFailsRun(t *testing.T) {
	err := within(t, func() error {
		return Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
			_ = c.Barrier(ctx, fmt.Sprintf("phase-of-rank-%d", c.Rank()))
			return nil
		})
	})
	if !errors.Is(err, comm.ErrAborted) {
		t.Errorf("Run error %v, want comm.ErrAborted although every rank returned nil", err)
	}
}

func TestInvalidArgumentsAbort(t *testing.T) {
	cases := []struct {
		name   string
		call   func(ctx context.Context, c comm.Comm) error
		reason string
	}{
		{"AlltoallvSendLength", func(ctx context.Context, c comm.Comm) error {
			_, err := c.Alltoallv(ctx, "bad", make([][]byte, c.Size()+1), nil)
			return err
		}, "len(send) = 4, want Size() = 3"},
		{"BcastRoot", func(ctx context.Context, c comm.Comm) error {
			_, err := c.Bcast(ctx, "bad", 3, nil)
			return err
		}, "root 3 out of range [0, 3)"},
		{"AllreduceOp", func(ctx context.Context, c comm.Comm) error {
			return c.AllreduceInt64(ctx, "bad", []int64{1}, comm.Op(9))
		}, "unknown reduction operator op(9)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var peerErr error
			err := within(t, func() error {
				return Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
					if c.Rank() == 1 {
						return tc.call(ctx, c)
					}
					if c.Rank() == 0 {
						peerErr = c.Barrier(ctx, "peer")
						return peerErr
					}
					return c.Barrier(ctx, "peer")
				})
			})
			if err == nil || !strings.HasPrefix(err.Error(), "rank 1: ") || !strings.Contains(err.Error(), tc.reason) || errors.Is(err, comm.ErrAborted) {
				t.Errorf("Run error %v, want rank 1's %q (not comm.ErrAborted) first", err, tc.reason)
			}
			if !errors.Is(peerErr, comm.ErrAborted) {
				t.Errorf("peer: %v, want comm.ErrAborted", peerErr)
			}
		})
	}
}

func TestRankReturningEarlyAbortsWaiters(t *testing.T) {
	t.Run("BeforeOthersArrive", func(t *testing.T) {
		returned := make(chan struct{})
		err := within(t, func() error {
			return Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
				if c.Rank() == 0 {
					defer close(returned)
					return nil
				}
				<-returned
				return c.Barrier(ctx, "skipped by rank 0")
			})
		})
		if !errors.Is(err, comm.ErrAborted) || !strings.Contains(err.Error(), "rank 0 returned") {
			t.Errorf("Run error %v, want comm.ErrAborted naming rank 0's early return", err)
		}
	})
	t.Run("WhileOthersWait", func(t *testing.T) {
		w, err := NewWorld(3)
		if err != nil {
			t.Fatal(err)
		}
		errs := make([]error, 3)
		var wg sync.WaitGroup
		for r := 1; r < 3; r++ {
			wg.Go(func() { w.runRank(context.Background(), r, barrierOnce, &errs[r]) })
		}
		waitForArrivals(t, w, 2)
		w.runRank(context.Background(), 0, func(context.Context, comm.Comm) error { return nil }, &errs[0])
		within(t, func() error { wg.Wait(); return nil })
		for r := 1; r < 3; r++ {
			if !errors.Is(errs[r], comm.ErrAborted) || !strings.Contains(errs[r].Error(), "rank 0 returned") {
				t.Errorf("rank %d: %v, want comm.ErrAborted naming rank 0's early return", r, errs[r])
			}
		}
	})
}

func barrierOnce(ctx context.Context, c comm.Comm) error { return c.Barrier(ctx, "once") }

func TestConcurrentCallsOnOneRankFail(t *testing.T) {
	w, err := NewWorld(2)
	if err != nil {
		t.Fatal(err)
	}
	c := w.Comm(0)
	firstErr := make(chan error, 1)
	go func() { firstErr <- c.Barrier(context.Background(), "first") }()
	waitForArrivals(t, w, 1)
	if err := c.Barrier(context.Background(), "second"); err == nil || !strings.Contains(err.Error(), "another call is in progress") {
		t.Errorf("concurrent call: %v, want an error naming the call in progress", err)
	}
	if err := within(t, func() error { return <-firstErr }); !errors.Is(err, comm.ErrAborted) {
		t.Errorf("first call: %v, want comm.ErrAborted", err)
	}
}

func TestCountersAreLogicalVolumes(t *testing.T) {
	const p = 3
	err := Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		send := [][]byte{make([]byte, 10), make([]byte, 20), make([]byte, 30)}
		if _, err := c.Alltoallv(ctx, "a2a", send, nil); err != nil {
			return err
		}
		if err := c.AllreduceInt64(ctx, "sum", make([]int64, 4), comm.Sum); err != nil {
			return err
		}
		r := int64(c.Rank())
		wantA2A := comm.PhaseCounters{
			Calls:     1,
			BytesSent: 60 - 10*(r+1),
			BytesRecv: 10 * (r + 1) * (p - 1),
			Messages:  p - 1,
		}
		if got := c.Stats().Phase("a2a"); got != wantA2A {
			return fmt.Errorf("a2a counters %+v, want %+v", got, wantA2A)
		}
		wantSum := comm.PhaseCounters{Calls: 1, BytesSent: 64, BytesRecv: 64, Messages: 2}
		if got := c.Stats().Phase("sum"); got != wantSum {
			return fmt.Errorf("allreduce counters %+v, want %+v", got, wantSum)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkAlltoallv measures 4 ranks exchanging 1 MiB with every peer; the
// bytes per operation are the bytes that cross between ranks.
func BenchmarkAlltoallv(b *testing.B) {
	const p, perPeer = 4, 1 << 20
	b.SetBytes(p * (p - 1) * perPeer)
	b.ReportAllocs()
	benchRanks(b, p, func(c comm.Comm) func() error {
		send := make([][]byte, p)
		for d := range send {
			send[d] = make([]byte, perPeer)
		}
		var recv [][]byte
		return func() (err error) {
			recv, err = c.Alltoallv(context.Background(), "bench", send, recv)
			return err
		}
	})
}

// BenchmarkBarrier measures the cost of one rendezvous of 4 ranks.
func BenchmarkBarrier(b *testing.B) {
	benchRanks(b, 4, func(c comm.Comm) func() error {
		return func() error { return c.Barrier(context.Background(), "bench") }
	})
}

// benchRanks times b.N calls of every rank's call, the p ranks of a World
// calling at once; prepare makes a rank's call (and its buffers) before the
// timer starts.
func benchRanks(b *testing.B, p int, prepare func(c comm.Comm) func() error) {
	w, err := NewWorld(p)
	if err != nil {
		b.Fatal(err)
	}
	errs := make([]error, p)
	var ready, wg sync.WaitGroup
	ready.Add(p)
	start := make(chan struct{})
	for r := range p {
		wg.Go(func() {
			call := prepare(w.Comm(r))
			ready.Done()
			<-start
			for range b.N {
				if errs[r] = call(); errs[r] != nil {
					return
				}
			}
		})
	}
	ready.Wait()
	b.ResetTimer()
	close(start)
	wg.Wait()
	b.StopTimer()
	for r, err := range errs {
		if err != nil {
			b.Fatalf("rank %d: %v", r, err)
		}
	}
}

// TestRunCancelsBusyRanksOnAbort: a rank in the middle of local work (not in
// a collective) learns of another rank's failure through its context.
func TestRunCancelsBusyRanksOnAbort(t *testing.T) {
	boom := errors.New("boom")
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
			if c.Rank() == 2 {
				return boom
			}
			select { // "local work" that only stops when cancelled
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Second):
				return errors.New("never cancelled")
			}
		})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, boom) {
			t.Fatalf("got %v, want the failing rank's error first", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("busy ranks were not cancelled within 5 s")
	}
}

func TestMaxRanks(t *testing.T) {
	if _, err := NewWorld(MaxRanks); err != nil {
		t.Fatalf("NewWorld(MaxRanks): %v", err)
	}
	if _, err := NewWorld(MaxRanks + 1); err == nil {
		t.Fatal("NewWorld(MaxRanks+1) succeeded")
	}
	if err := Run(context.Background(), 5000, func(context.Context, comm.Comm) error { return nil }); err == nil {
		t.Fatal("Run of 5000 ranks succeeded")
	}
}
