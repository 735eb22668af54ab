package commtest

// The counters test: every phase's counters follow the conventions of the
// package doc, and the bytes sent over all ranks equal those received.

import (
	"context"
	"fmt"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

// testCounters checks every phase's counters against the conventions in the
// package doc, then that the bytes sent summed over all ranks equal the bytes
// received, per phase and in total.
func testCounters(t *testing.T, launch Launcher, p int) {
	pt := newPattern(maxVariedLen)
	mustLaunch(t, launch, p, func(ctx context.Context, c comm.Comm) error {
		before := c.Stats().Snapshot()
		expected, err := countedCalls(ctx, c, pt)
		if err != nil {
			return err
		}
		return checkCounters(ctx, c, before, expected)
	})
}

// expectation is the counters one phase of countedCalls should add.
type expectation struct {
	phase string
	want  comm.PhaseCounters
}

// countedCalls makes one call of every collective, each in a phase of its
// own, and returns the counters each phase should have added on this rank.
func countedCalls(ctx context.Context, c comm.Comm, pt pattern) ([]expectation, error) {
	p := c.Size()
	r, others := c.Rank(), int64(p-1)
	messagesTo := func(n int) int64 {
		if n == 0 {
			return 0
		}
		return others
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
		return nil, err
	}
	expect("commtest.counters.alltoallv", a2a)

	gatherLen := func(rank int) int { return 10 * (rank % 3) } // rank 0 contributes nothing
	if _, err := c.Allgatherv(ctx, "commtest.counters.allgatherv", pt.window(gatherLen(r), uint64(r)), nil); err != nil {
		return nil, err
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
			return nil, err
		}
		expect(phase, comm.PhaseCounters{Calls: 1, BytesSent: 8 * int64(n) * others, BytesRecv: 8 * int64(n) * others, Messages: messagesTo(n)})
	}
	if err := c.AllreduceFloat64(ctx, "commtest.counters.allreduce.float64", make([]float64, 3), comm.Max); err != nil {
		return nil, err
	}
	expect("commtest.counters.allreduce.float64", comm.PhaseCounters{Calls: 1, BytesSent: 24 * others, BytesRecv: 24 * others, Messages: others})

	for _, b := range []struct {
		phase string
		root  int
		n     int
	}{{"commtest.counters.bcast", p - 1, 100}, {"commtest.counters.bcast.empty", 0, 0}} {
		data := pt.window(b.n, 9)
		if _, err := c.Bcast(ctx, b.phase, b.root, data); err != nil {
			return nil, err
		}
		want := comm.PhaseCounters{Calls: 1, BytesRecv: int64(b.n)}
		if r == b.root {
			want = comm.PhaseCounters{Calls: 1, BytesSent: int64(b.n) * others, Messages: messagesTo(b.n)}
		}
		expect(b.phase, want)
	}

	for range 2 {
		if err := c.Barrier(ctx, "commtest.counters.barrier"); err != nil {
			return nil, err
		}
	}
	expect("commtest.counters.barrier", comm.PhaseCounters{Calls: 2})
	return expected, nil
}

// checkCounters checks the counters every phase added since before against
// the expected ones, then that the bytes sent summed over all ranks equal
// the bytes received, per phase and in total.
func checkCounters(ctx context.Context, c comm.Comm, before map[string]comm.PhaseCounters, expected []expectation) error {
	stats := c.Stats()
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
}
