package bench

// The modelled network of the dense allreduce matrix (its LinkBandwidth): a link
// per rank on top of a real Comm (Kylix §IV's α–β cost of a message).

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// LinkComm models a cluster network on top of a real Comm: an Alltoallv
// that moves data lasts at least Latency plus max(bytes sent, bytes
// received)/Bandwidth (bytes/s) from its start, as on a full-duplex link
// of that bandwidth per rank. The other calls are not slowed down.
type LinkComm struct {
	comm.Comm
	Bandwidth float64
	Latency   time.Duration
}

// Alltoallv is the wrapped Comm's, then a wait until the modelled link
// would have moved the bytes.
func (l *LinkComm) Alltoallv(ctx context.Context, phase string, send, recv [][]byte) ([][]byte, error) {
	start := time.Now()
	out, err := l.Comm.Alltoallv(ctx, phase, send, recv)
	if err != nil {
		return out, err
	}
	me := l.Rank()
	var sent, got int
	for d, b := range send {
		if d != me {
			sent += len(b)
		}
	}
	for s, b := range out {
		if s != me {
			got += len(b)
		}
	}
	if sent+got == 0 {
		return out, nil
	}
	busy := l.Latency + time.Duration(float64(max(sent, got))/l.Bandwidth*1e9)
	deadline := start.Add(busy)
	// Timers wake up a millisecond late or worse on a loaded machine:
	// sleep on one only for the bulk of a long wait, yield for the rest.
	for wait := time.Until(deadline); wait > 0; wait = time.Until(deadline) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("bench: modelled link: %w", err)
		}
		if wait < 2*time.Millisecond {
			runtime.Gosched()
			continue
		}
		t := time.NewTimer(wait - time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return out, nil
}
