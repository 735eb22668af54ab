package launch

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

// TestRunnerRunsEveryInProcessRank: an in-process plan's Runner runs the
// work on each of its ranks, and its JobSize is 0.
func TestRunnerRunsEveryInProcessRank(t *testing.T) {
	p := Plan{Ranks: 3}
	var ran atomic.Int32
	err := p.Runner(&bytes.Buffer{})(context.Background(), func(_ context.Context, c comm.Comm) error {
		if c.Size() != 3 {
			t.Errorf("rank %d sees size %d", c.Rank(), c.Size())
		}
		ran.Add(1)
		return nil
	})
	if err != nil || ran.Load() != 3 || p.JobSize() != 0 {
		t.Fatalf("err %v, %d ranks ran, JobSize %d", err, ran.Load(), p.JobSize())
	}
	if tcp := (Plan{Job: Job{Transport: TCP, Size: 4}}); tcp.JobSize() != 4 {
		t.Fatalf("a TCP job of 4: JobSize %d", tcp.JobSize())
	}
	if tcp := (Plan{Job: Job{Transport: TCP, Size: 6, Replicas: 2}}); tcp.JobSize() != 3 {
		t.Fatalf("a TCP job of 6 processes, 2 replicas each: JobSize %d, want its 3 ranks", tcp.JobSize())
	}
}
