package comm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// elasticRank is a comm.Elastic over an in-process rank: Shrink and Grow
// record their arguments and return a new elasticRank with the next epoch.
type elasticRank struct {
	comm.Comm
	epoch   int
	pending int
	calls   []string
}

func (e *elasticRank) Epoch() int { return e.epoch }
func (e *elasticRank) Shrink(_ context.Context, cause error, epoch int) (comm.Elastic, error) {
	if cause == nil {
		return nil, comm.ErrNotElastic
	}
	e.calls = append(e.calls, "shrink")
	return &elasticRank{Comm: e.Comm, epoch: epoch}, nil
}
func (e *elasticRank) Grow(_ context.Context, joiners, epoch int) (comm.Elastic, error) {
	e.calls = append(e.calls, "grow")
	return &elasticRank{Comm: e.Comm, epoch: epoch}, nil
}
func (e *elasticRank) AcceptJoins(string) error { e.pending = 1; return nil }
func (e *elasticRank) PendingJoins() int        { return e.pending }
func (e *elasticRank) Abort(error)              { e.calls = append(e.calls, "abort") }
func (e *elasticRank) Close() error             { e.calls = append(e.calls, "close"); return nil }

// wrapper is a comm.Wrapper: a Comm forwarding to another over the same
// ranks.
type wrapper struct{ comm.Comm }

func (w wrapper) Unwrap() comm.Comm { return w.Comm }

// TestAsElastic: AsElastic finds an Elastic itself and under any number of
// Wrappers, and nothing in a plain in-process rank, a wrapper over one, a
// Sub (whose group is not its parent's job) or nil.
func TestAsElastic(t *testing.T) {
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		el := &elasticRank{Comm: c}
		for name, in := range map[string]comm.Comm{"bare": el, "wrapped": wrapper{el}, "wrapped twice": wrapper{wrapper{el}}} {
			e, ok := comm.AsElastic(in)
			if !ok || e != comm.Elastic(el) {
				t.Errorf("rank %d: AsElastic(%s) = %v, %v; want the elasticRank", c.Rank(), name, e, ok)
			}
		}
		sub, err := comm.NewSub(el, []int{0, 1})
		if err != nil {
			return err
		}
		for name, in := range map[string]comm.Comm{"in-process": c, "wrapped in-process": wrapper{c}, "sub": sub, "nil": nil} {
			if e, ok := comm.AsElastic(in); ok || e != nil {
				t.Errorf("rank %d: AsElastic(%s) = %v, %v; want nil, false", c.Rank(), name, e, ok)
			}
		}
		// Through the interface as a kernel uses it: a shrink, then a
		// growth, each returning the next Comm with its epoch.
		e, _ := comm.AsElastic(wrapper{el})
		if _, err := e.Shrink(ctx, nil, 1); !errors.Is(err, comm.ErrNotElastic) {
			t.Errorf("rank %d: Shrink without a cause: %v, want ErrNotElastic", c.Rank(), err)
		}
		shrunk, err := e.Shrink(ctx, errors.New("rank 1 lost"), 1)
		if err != nil {
			return err
		}
		grown, err := shrunk.Grow(ctx, 1, 2)
		if err != nil {
			return err
		}
		if shrunk.Epoch() != 1 || grown.Epoch() != 2 || grown.Rank() != c.Rank() {
			t.Errorf("rank %d: epochs %d, %d and rank %d after shrink and grow; want 1, 2 and %d", c.Rank(), shrunk.Epoch(), grown.Epoch(), grown.Rank(), c.Rank())
		}
		if len(el.calls) != 1 || el.calls[0] != "shrink" {
			t.Errorf("rank %d: calls %v, want [shrink]", c.Rank(), el.calls)
		}
		// The hooks' form: through the wrappers, and refusing a plain Comm.
		if _, err := comm.Shrink(ctx, wrapper{el}, errors.New("rank 1 lost"), 3); err != nil || el.calls[1] != "shrink" {
			t.Errorf("rank %d: comm.Shrink: %v, calls %v", c.Rank(), err, el.calls)
		}
		if g, err := comm.Grow(ctx, wrapper{el}, 1, 4); err != nil || g.(comm.Elastic).Epoch() != 4 || el.calls[2] != "grow" {
			t.Errorf("rank %d: comm.Grow: %v, calls %v", c.Rank(), err, el.calls)
		}
		if n := comm.PendingJoins(wrapper{el}); n != el.pending {
			t.Errorf("rank %d: comm.PendingJoins = %d, want %d", c.Rank(), n, el.pending)
		}
		cause := errors.New("rank 0 lost")
		if _, err := comm.Shrink(ctx, c, cause, 1); !errors.Is(err, comm.ErrNotElastic) || !errors.Is(err, cause) {
			t.Errorf("rank %d: comm.Shrink of an in-process rank: %v", c.Rank(), err)
		}
		if _, err := comm.Grow(ctx, c, 1, 1); err == nil || comm.PendingJoins(c) != 0 {
			t.Errorf("rank %d: comm.Grow of an in-process rank: %v", c.Rank(), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
