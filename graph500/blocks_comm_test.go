package graph500

import (
	"context"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/commtest"
	"github.com/graphrun/graphrun/comm/inproc"
)

// blockLaunch runs p block-ranks on (p+1)/2 in-process ranks, placed
// unevenly and out of order (block v on rank (3v+1) mod procs, the first
// procs blocks filling every rank), as runBlocks runs the blocks of an
// over-decomposed 2D run.
func blockLaunch(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error {
	procs := (p + 1) / 2
	owner := make([]int, p)
	for v := range owner {
		owner[v] = (3*v + 1) % procs
	}
	return inproc.Run(ctx, procs, func(ctx context.Context, c comm.Comm) error {
		hub, err := newBlockHub(c, owner)
		if err != nil {
			return err
		}
		return hub.runLocal(func(_ int, bc *blockComm) error { return fn(ctx, bc) })
	})
}

// TestBlockCommConformance: the block-ranks' Comm passes the transport
// conformance suite (data, copies, buffer reuse, counters, deterministic
// reductions, and the failure contract: failing, panicking, cancelled and
// disagreeing ranks abort the job without a hang).
func TestBlockCommConformance(t *testing.T) {
	commtest.Run(t, blockLaunch, []int{1, 2, 3, 4, 7})
}

// TestBlockCommNetworkStats: the network counters see only the traffic
// between block-ranks of different processes, and what an allgather sends
// once per process.
func TestBlockCommNetworkStats(t *testing.T) {
	owner := []int{0, 0, 1} // blocks 0 and 1 on rank 0, block 2 on rank 1
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		hub, err := newBlockHub(c, owner)
		if err != nil {
			return err
		}
		return hub.runLocal(func(_ int, bc *blockComm) error {
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
			// the blocks there; it arrives from each remote block.
			if logical.BytesSent != 8 || logical.Messages != 2 || network.BytesSent != 4 || network.Messages != 1 || network.BytesRecv != 4*remote {
				t.Errorf("block %d: logical %+v, network %+v", bc.Rank(), logical, network)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}
