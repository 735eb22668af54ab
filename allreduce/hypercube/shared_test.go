package hypercube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// taskVec is the vector task t of rank r commits: small integers, so sums
// are exact in any order.
func taskVec(r, t, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64((r*31+t*17+i*7)%101 - 50)
	}
	return v
}

// sharedWant is the sum over every task of every rank (rank r has tasks(r)).
func sharedWant(p, n int, tasks func(r int) int) []float64 {
	want := make([]float64, n)
	for r := range p {
		for t := range tasks(r) {
			Sum(want, taskVec(r, t, n))
		}
	}
	return want
}

// TestSharedManyTasks: many tasks per rank (a different number on each
// rank) commit concurrently; Get is called by every task, some before and
// some after the result is ready.
func TestSharedManyTasks(t *testing.T) {
	for _, tc := range []struct {
		p, n int
		alg  Algorithm
		opts ManagerOptions
	}{
		{1, 10, AlgChunked, ManagerOptions{}},
		{3, 1000, AlgChunked, ManagerOptions{Workers: 1}},
		{5, 50_000, AlgChunked, ManagerOptions{Workers: 3, Pieces: 4}},
		{6, 20_000, AlgTree, ManagerOptions{Workers: 2}},
		{7, 3000, AlgButterfly, ManagerOptions{}},
		{4, 3000, AlgHypercube, ManagerOptions{Pieces: 1}},
	} {
		tasks := func(r int) int { return 2 + r%3*3 }
		want := sharedWant(tc.p, tc.n, tasks)
		err := inproc.Run(context.Background(), tc.p, func(ctx context.Context, c comm.Comm) error {
			opts := tc.opts
			opts.Algorithm = tc.alg
			m, err := NewManager(ctx, c, opts)
			if err != nil {
				return err
			}
			defer m.Close()
			v, err := Init(m, "weights", tasks(c.Rank()), Sum[float64])
			if err != nil {
				return err
			}
			results := make([][]float64, tasks(c.Rank()))
			errs := make([]error, len(results))
			var wg sync.WaitGroup
			for task := range results {
				wg.Go(func() {
					if task%2 == 0 { // Get before committing: blocks until everyone has
						committed := make(chan error, 1)
						go func() { committed <- v.Commit(taskVec(c.Rank(), task, tc.n)) }()
						results[task], errs[task] = v.Get(ctx)
						errs[task] = errors.Join(errs[task], <-committed)
						return
					}
					if err := v.Commit(taskVec(c.Rank(), task, tc.n)); err != nil {
						errs[task] = err
						return
					}
					results[task], errs[task] = v.Get(ctx)
				})
			}
			wg.Wait()
			// Get after completion returns at once, the same slice.
			select {
			case <-v.Done():
			default:
				return errors.New("Done not closed after Get returned")
			}
			again, err := v.Get(ctx)
			if err != nil {
				return err
			}
			for task, res := range results {
				if errs[task] != nil {
					return fmt.Errorf("task %d: %w", task, errs[task])
				}
				if !slices.Equal(res, want) {
					return fmt.Errorf("task %d: wrong result", task)
				}
				if &res[0] != &again[0] {
					return fmt.Errorf("task %d got a different slice than a later Get", task)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s on %d ranks, n = %d, %+v: %v", tc.alg, tc.p, tc.n, tc.opts, err)
		}
	}
}

// TestSharedOrder: several variables, committed in another order than they
// were created (and one of another element type), all reduce correctly; a
// key is reused once done.
func TestSharedOrder(t *testing.T) {
	const p = 4
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		m, err := NewManager(ctx, c, ManagerOptions{Workers: 2})
		if err != nil {
			return err
		}
		defer m.Close()
		a, err := Init(m, "a", 2, Sum[float64])
		if err != nil {
			return err
		}
		b, err := Init(m, "b", 1, Max[int64])
		if err != nil {
			return err
		}
		cc, err := Init(m, "c", 3, Min[float64])
		if err != nil {
			return err
		}
		r := c.Rank()
		// c and b first: their local reductions finish before a's, but the
		// global reductions still go a, b, c on every rank.
		for task := range 3 {
			if err := cc.Commit([]float64{float64(r*10 + task)}); err != nil {
				return err
			}
		}
		if err := b.Commit([]int64{int64(r), int64(-r)}); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
		for task := range 2 {
			if err := a.Commit([]float64{1, float64(task)}); err != nil {
				return err
			}
		}
		got, err := a.Get(ctx)
		if err != nil || !slices.Equal(got, []float64{2 * p, p}) {
			return fmt.Errorf("a = %v, %v", got, err)
		}
		gotB, err := b.Get(ctx)
		if err != nil || !slices.Equal(gotB, []int64{p - 1, 0}) {
			return fmt.Errorf("b = %v, %v", gotB, err)
		}
		gotC, err := cc.Get(ctx)
		if err != nil || !slices.Equal(gotC, []float64{0}) {
			return fmt.Errorf("c = %v, %v", gotC, err)
		}
		a2, err := Init(m, "a", 1, Sum[float64])
		if err != nil {
			return err
		}
		if err := a2.Commit([]float64{float64(r)}); err != nil {
			return err
		}
		got, err = a2.Get(ctx)
		if err != nil || got[0] != p*(p-1)/2 {
			return fmt.Errorf("a reused = %v, %v", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSharedErrors: argument errors, too many commits, disagreements that
// fail one variable on every rank (the manager goes on), a task that never
// commits (Get with a deadline returns), Close.
func TestSharedErrors(t *testing.T) {
	const p = 3
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		if _, err := NewManager(ctx, c, ManagerOptions{Algorithm: Algorithm(9)}); !errors.Is(err, ErrInvalid) {
			return fmt.Errorf("unknown algorithm: %v", err)
		}
		m, err := NewManager(ctx, c, ManagerOptions{})
		if err != nil {
			return err
		}
		for _, bad := range []func() error{
			func() error { _, err := Init(m, "", 1, Sum[float64]); return err },
			func() error { _, err := Init(m, "x", 0, Sum[float64]); return err },
			func() error { _, err := Init[float64](m, "x", 1, nil); return err },
		} {
			if err := bad(); !errors.Is(err, ErrInvalid) {
				return fmt.Errorf("bad Init: %v", err)
			}
		}
		r := c.Rank()
		// Lengths differ between the tasks of rank 1.
		v1, err := Init(m, "lengths-in-rank", 2, Sum[float64])
		if err != nil {
			return err
		}
		if _, err := Init(m, "lengths-in-rank", 1, Sum[float64]); !errors.Is(err, ErrInvalid) {
			return fmt.Errorf("duplicate pending key: %v", err)
		}
		v1.Commit(make([]float64, 5))
		v1.Commit(make([]float64, 5+r%2))
		if err := v1.Commit(make([]float64, 5)); !errors.Is(err, ErrInvalid) {
			return fmt.Errorf("third commit of two tasks: %v", err)
		}
		if _, err := v1.Get(ctx); !errors.Is(err, ErrInvalid) {
			return fmt.Errorf("lengths differing in a rank: %v", err)
		}
		// Lengths differ between ranks.
		v2, _ := Init(m, "lengths-across-ranks", 1, Sum[float64])
		v2.Commit(make([]float64, 4+r))
		if _, err := v2.Get(ctx); !errors.Is(err, ErrInvalid) {
			return fmt.Errorf("lengths differing across ranks: %v", err)
		}
		// Keys differ.
		v3, _ := Init(m, fmt.Sprint("key", r), 1, Sum[float64])
		v3.Commit(make([]float64, 4))
		if _, err := v3.Get(ctx); !errors.Is(err, ErrInvalid) {
			return fmt.Errorf("keys differing: %v", err)
		}
		// The manager still works.
		v4, _ := Init(m, "fine", 1, Sum[float64])
		v4.Commit([]float64{1})
		if got, err := v4.Get(ctx); err != nil || got[0] != p {
			return fmt.Errorf("after the failures: %v, %v", got, err)
		}
		// A task that never commits: Get with a deadline returns; Close
		// fails the variable.
		v5, _ := Init(m, "never", 2, Sum[float64])
		v5.Commit([]float64{1})
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		if _, err := v5.Get(short); !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("Get with a deadline: %v", err)
		}
		if err := m.Close(); err != nil {
			return err
		}
		if _, err := v5.Get(ctx); !errors.Is(err, ErrClosed) {
			return fmt.Errorf("Get after Close: %v", err)
		}
		if _, err := Init(m, "late", 1, Sum[float64]); !errors.Is(err, ErrClosed) {
			return fmt.Errorf("Init after Close: %v", err)
		}
		return m.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSharedFailure: one rank's manager stops in the middle of a global
// reduction (its context ends while it reduces a received message); every
// rank's Get returns an error.
func TestSharedFailure(t *testing.T) {
	const p = 4
	for _, pieces := range []int{1, 3} {
		errs := runErrs(p, func(ctx context.Context, c comm.Comm) error {
			mctx, cancel := context.WithCancel(ctx)
			defer cancel()
			m, err := NewManager(mctx, c, ManagerOptions{Algorithm: AlgTree, Workers: 1, Pieces: pieces})
			if err != nil {
				return err
			}
			defer m.Close()
			calls := 0
			op := func(acc, x []float64) {
				// Only the global reduction calls op (one task per rank).
				if calls++; c.Rank() == 0 && calls == 2 {
					cancel()
				}
				Sum(acc, x)
			}
			v, err := Init(m, "v", 1, op)
			if err != nil {
				return err
			}
			v.Commit(make([]float64, 4*blockElems))
			_, err = v.Get(ctx)
			return err
		})
		for r, err := range errs {
			if err == nil {
				t.Errorf("pieces %d: rank %d: no error", pieces, r)
			}
		}
		if !errors.Is(errs[0], context.Canceled) {
			t.Errorf("pieces %d: rank 0: %v, want the cancellation", pieces, errs[0])
		}
	}
}
