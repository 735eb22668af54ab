package tcp

// Replication (Kylix §V): every logical rank run as several processes
// holding the same data.

import (
	"bytes"
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/commtest"
)

// TestConformanceReplicated runs the suite with every logical rank run by
// two processes (Kylix §V-A).
func TestConformanceReplicated(t *testing.T) {
	sizes := []int{1, 2, 3, 4}
	if testing.Short() || raceEnabled {
		sizes = []int{1, 3}
	}
	launcher := func(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error {
		return LaunchLoopbackReplicated(ctx, p, 2, fn)
	}
	commtest.Run(t, launcher, sizes)
}

// TestReplicaLoss kills (closes without a goodbye, as the kernel does for a
// killed process) one replica of a 4×2 job mid-run: the job completes with
// the right results. Then both replicas of one rank: every survivor fails
// within bounded time, naming that logical rank.
func TestReplicaLoss(t *testing.T) {
	const p, s = 4, 2
	crash := func(c *Comm) {
		for _, peer := range c.peers {
			if peer != nil {
				peer.conn.(*net.TCPConn).SetLinger(0)
				peer.conn.Close()
			}
		}
	}
	for _, tc := range []struct {
		name    string
		victims []int // processes
	}{{"one replica", []int{6}}, {"whole group", []int{2, 6}}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
			defer cancel()
			var problems commtest.Problems
			report := problems.Addf
			lost := len(tc.victims) == s
			start := time.Now()
			err := launch(ctx, p, func(ctx context.Context, cc comm.Comm) error {
				c := cc.(*Comm)
				for round := range 40 {
					if round == 10 && slices.Contains(tc.victims, c.Process()) {
						crash(c)
						return nil
					}
					vals := []float64{float64(c.Rank() + round)}
					if err := c.AllreduceFloat64(ctx, "sum", vals, comm.Sum); err != nil {
						if !lost {
							report("process %d: round %d: %v", c.Process(), round, err)
						} else if e := checkBlamed(err, 2); e != nil {
							report("process %d: %v", c.Process(), e)
						}
						return err
					}
					if want := float64(0+1+2+3) + 4*float64(round); vals[0] != want {
						report("process %d: round %d: sum %v, want %v", c.Process(), round, vals[0], want)
					}
					send := make([][]byte, p)
					for d := range send {
						send[d] = bytes.Repeat([]byte{byte(c.Rank()), byte(d)}, 1000*round)
					}
					recv, err := c.Alltoallv(ctx, "a2a", send, nil)
					if err != nil {
						if !lost {
							report("process %d: round %d: %v", c.Process(), round, err)
						}
						return err
					}
					for src := range recv {
						if want := bytes.Repeat([]byte{byte(src), byte(c.Rank())}, 1000*round); !bytes.Equal(recv[src], want) {
							report("process %d: round %d: wrong message from rank %d", c.Process(), round, src)
						}
					}
				}
				if lost {
					report("process %d: finished although both replicas of rank 2 were lost", c.Process())
				}
				if st := c.ReplicaStats(); st.ExtraBytesSent == 0 {
					report("process %d: no extra copies counted: %+v", c.Process(), st)
				}
				return nil
			}, launchOptions{replicas: s, peerTimeout: 2 * time.Second})
			// A few peer timeouts; the rest is room for a loaded machine
			// and the race detector, which slows every byte copied.
			bound := guardTimeout - time.Second
			if elapsed := time.Since(start); elapsed > bound {
				t.Errorf("job took %v", elapsed)
			}
			problems.Report(t)
			if lost && (err == nil || !strings.Contains(err.Error(), "rank 2")) {
				t.Errorf("launch returned %v, want an error naming rank 2", err)
			}
			if !lost && err != nil {
				t.Errorf("launch: %v", err)
			}
		})
	}
}
