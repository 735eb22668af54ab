package commtest

// The failure tests: a failing, panicking or cancelled rank, or ranks that
// disagree on a collective, fail every other rank's pending and later calls
// with comm.ErrAborted, and nothing hangs.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// warmUp makes a few collectives before a failure is injected, so that it
// happens mid-run. They must succeed, except that on a backend whose
// collectives are not all-or-nothing the last one may already see the abort
// of a rank that completed it and failed right away.
func warmUp(ctx context.Context, c comm.Comm, v *Problems) {
	const rounds = 3
	for round := range rounds {
		_, err := c.Allgatherv(ctx, "commtest.failure.warmup", []byte{byte(c.Rank()), byte(round)}, nil)
		if err != nil {
			if round < rounds-1 || !errors.Is(err, comm.ErrAborted) {
				v.Addf("rank %d: warm-up round %d before any failure: %v", c.Rank(), round, err)
			}
			return
		}
	}
}

// awaitAbort is what the surviving ranks of a failure test do: a collective
// that cannot complete, then a later one; both must fail with
// comm.ErrAborted. It returns the first error.
func awaitAbort(ctx context.Context, c comm.Comm, v *Problems) error {
	_, blocked := c.Allgatherv(ctx, "commtest.failure.blocked", []byte{byte(c.Rank())}, nil)
	if !errors.Is(blocked, comm.ErrAborted) {
		v.Addf("rank %d: Allgatherv waiting for a failed rank returned %v, want an error wrapping comm.ErrAborted", c.Rank(), blocked)
	}
	if err := barrierAfter(ctx, c, v, "commtest.failure.later", "the job failed", blocked); err != nil {
		return err
	}
	return errors.New("commtest: collectives kept succeeding after a rank failed")
}

// barrierAfter is a rank's last call in a job that failed (after says
// how): a Barrier that must fail with comm.ErrAborted. It returns err, or
// the Barrier's error if err is nil.
func barrierAfter(ctx context.Context, c comm.Comm, v *Problems, phase, after string, err error) error {
	later := c.Barrier(ctx, phase)
	if !errors.Is(later, comm.ErrAborted) {
		v.Addf("rank %d: Barrier after %s returned %v, want an error wrapping comm.ErrAborted", c.Rank(), after, later)
	}
	if err != nil {
		return err
	}
	return later
}

func testFailingRank(t *testing.T, launch Launcher, p int) {
	failing := p - 1
	testInjected(t, launch, p, failing, fmt.Sprintf("commtest: injected failure of rank %d", failing),
		"failed", "the failing rank's error", func(msg string) error { return errors.New(msg) })
}

func testPanickingRank(t *testing.T, launch Launcher, p int) {
	panicking := p / 2
	testInjected(t, launch, p, panicking, fmt.Sprintf("commtest: injected panic of rank %d", panicking),
		"panicked", "the panic value", func(msg string) error { panic(msg) })
}

// testInjected runs a job whose rank broken, after a warm-up, calls
// inject(injected) (returning its error or panicking) while the others wait
// for the abort: launch must fail with an error containing injected. did
// and what name the injection in the test's failures.
func testInjected(t *testing.T, launch Launcher, p, broken int, injected, did, what string, inject func(msg string) error) {
	t.Helper()
	var v Problems
	err := launchWithin(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		warmUp(ctx, c, &v)
		if c.Rank() == broken {
			return inject(injected)
		}
		return awaitAbort(ctx, c, &v)
	})
	v.Report(t)
	if err == nil {
		t.Fatalf("launch returned nil for a job whose rank %s", did)
	}
	if !strings.Contains(err.Error(), injected) {
		t.Errorf("launch error %q does not contain %s %q", err, what, injected)
	}
}

// testCancelWhileBlocked cancels every rank's context while ranks 1..p−1 wait
// in a Barrier that rank 0 only enters once its own context is done. The
// Barrier can therefore never complete, and every rank must see it fail,
// either with its context's error or with comm.ErrAborted.
func testCancelWhileBlocked(t *testing.T, launch Launcher, p int) {
	var v Problems
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
			v.Addf("rank %d: Barrier returned nil though rank 0 entered it only with a cancelled context", c.Rank())
		} else if !errors.Is(err, context.Canceled) && !errors.Is(err, comm.ErrAborted) {
			v.Addf("rank %d: cancelled Barrier returned %v, want an error wrapping context.Canceled or comm.ErrAborted", c.Rank(), err)
		}
		return barrierAfter(ctx, c, &v, "commtest.cancel.later", "a cancellation", err)
	})
	v.Report(t)
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
			var v Problems
			err := launchWithin(t, launch, p, func(ctx context.Context, c comm.Comm) error {
				warmUp(ctx, c, &v)
				err := m.call(ctx, c)
				if err == nil {
					v.Addf("rank %d: mismatched collective returned nil", c.Rank())
				}
				return barrierAfter(ctx, c, &v, "commtest.mismatch.later", "a mismatch", err)
			})
			v.Report(t)
			if err == nil {
				t.Fatal("launch returned nil for a job with mismatched collectives")
			}
		})
	}
}
