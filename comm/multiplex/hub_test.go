package multiplex

import (
	"context"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/commtest"
	"github.com/graphrun/graphrun/comm/inproc"
)

// multiplexLaunch runs a job of p ranks on (p+1)/2 in-process processes,
// placed unevenly and out of order (rank v on process (3v+1) mod procs, the
// first procs ranks filling every process), as graph500 runs the blocks of
// an over-decomposed 2D run.
func multiplexLaunch(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error {
	procs := (p + 1) / 2
	owner := make([]int, p)
	for v := range owner {
		owner[v] = (3*v + 1) % procs
	}
	return inproc.Run(ctx, procs, func(ctx context.Context, c comm.Comm) error {
		hub, err := New(c, owner)
		if err != nil {
			return err
		}
		return hub.Run(func(_ int, bc *Comm) error { return fn(ctx, bc) })
	})
}

// TestCommConformance: the ranks' Comm passes the transport
// conformance suite (data, copies, buffer reuse, counters, deterministic
// reductions, and the failure contract: failing, panicking, cancelled and
// disagreeing ranks abort the job without a hang).
func TestCommConformance(t *testing.T) {
	commtest.Run(t, multiplexLaunch, []int{1, 2, 3, 4, 7})
}

// TestCommNetworkStats: the network counters see only the traffic
// between ranks on different processes, and what an allgather sends
// once per process.
func TestCommNetworkStats(t *testing.T) {
	owner := []int{0, 0, 1} // ranks 0 and 1 on process 0, rank 2 on process 1
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		hub, err := New(c, owner)
		if err != nil {
			return err
		}
		return hub.Run(func(_ int, bc *Comm) error {
			if _, err := bc.Allgatherv(ctx, "x", []byte("abcd"), nil); err != nil {
				return err
			}
			logical, network := bc.Stats().Total(), bc.NetworkStats().Total()
			remote := int64(0)
			for w := range owner {
				if owner[w] != owner[bc.Rank()] {
					remote++
				}
			}
			// An allgather crosses to the other process once, whatever
			// the ranks there; it arrives from each remote rank.
			if logical.BytesSent != 8 || logical.Messages != 2 || network.BytesSent != 4 || network.Messages != 1 || network.BytesRecv != 4*remote {
				t.Errorf("rank %d: logical %+v, network %+v", bc.Rank(), logical, network)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}
