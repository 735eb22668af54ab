package tcp

// Elastic recovery's topology update (paper 002 §II, §V): survivors of a
// lost rank build a Comm over themselves; losing the coordinator or two
// ranks fails in bounded time with an error naming the problem.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// crash cuts c's connections without a goodbye, as a killed process would.
func crash(c *Comm) {
	for _, p := range c.peers {
		if p != nil {
			_ = p.conn.Close()
		}
	}
	_ = c.Close()
}

// runShrinkJob connects p ranks over loopback; the ranks in victims crash
// before round 3 of a loop of allreduces, and the survivors Shrink and sum
// their old ranks on the new Comm. It returns each rank's error and sum.
func runShrinkJob(t *testing.T, p int, victims ...int) ([]error, []int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	token := make([]byte, 32)
	_, _ = rand.Read(token)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make([]error, p)
	sums := make([]int64, p)
	var wg sync.WaitGroup
	for r := range p {
		var cl net.Listener
		if r == 0 {
			cl = ln
		}
		cfg := Config{Rank: r, Size: p, Coordinator: addr, Token: token, JobID: "shrink-test", PeerTimeout: time.Second}
		wg.Go(func() {
			sums[r], errs[r] = shrinkRank(ctx, cfg, cl, victims)
		})
	}
	wg.Wait()
	return errs, sums
}

// wrapped is a comm.Wrapper over a Comm, standing for the wrappers
// (network models, counters) kernels may be handed.
type wrapped struct{ comm.Comm }

func (w wrapped) Unwrap() comm.Comm { return w.Comm }

func shrinkRank(ctx context.Context, cfg Config, cl net.Listener, victims []int) (int64, error) {
	c, err := connect(ctx, cfg, cl)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	for round := range 6 {
		if round == 3 {
			for _, v := range victims {
				if v == c.Rank() {
					crash(c)
					return -1, nil
				}
			}
		}
		vals := []int64{1}
		if err = c.AllreduceInt64(ctx, "test", vals, comm.Sum); err != nil {
			break
		}
	}
	if err != nil && slices.Contains(victims, c.Rank()) {
		// A victim that saw another victim's crash first (its last
		// message may be lost in the reset) is lost all the same.
		crash(c)
		return -1, nil
	}
	if err == nil {
		return 0, errors.New("no failure seen")
	}
	old := c.Rank()
	// Through comm.Elastic, as kernels see it, under a wrapper.
	e, ok := comm.AsElastic(wrapped{c})
	if !ok || e != comm.Elastic(c) {
		return 0, fmt.Errorf("comm.AsElastic of a wrapped *tcp.Comm: %v, %v", e, ok)
	}
	nc, err := e.Shrink(ctx, err, 1)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	vals := []int64{int64(old)}
	if err := nc.AllreduceInt64(ctx, "after", vals, comm.Sum); err != nil {
		return 0, fmt.Errorf("on the shrunk Comm: %w", err)
	}
	if nc.Size() != cfg.Size-1 {
		return 0, fmt.Errorf("shrunk Comm of %d ranks, want %d", nc.Size(), cfg.Size-1)
	}
	return vals[0], nil
}

func TestShrinkAfterLosingOneRank(t *testing.T) {
	errs, sums := runShrinkJob(t, 4, 2)
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		} else if r != 2 && sums[r] != 0+1+3 {
			t.Errorf("rank %d: sum of the survivors' old ranks %d, want 4", r, sums[r])
		}
	}
}

func TestShrinkLosingRankZeroFails(t *testing.T) {
	start := time.Now()
	errs, _ := runShrinkJob(t, 3, 0)
	for r := 1; r < 3; r++ {
		if !errors.Is(errs[r], ErrNotElastic) || !strings.Contains(errs[r].Error(), "rank 0, the coordinator") {
			t.Errorf("rank %d: %v, want ErrNotElastic naming rank 0", r, errs[r])
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestShrinkLosingTwoRanksFails(t *testing.T) {
	start := time.Now()
	errs, _ := runShrinkJob(t, 4, 2, 3)
	for r := range 2 {
		if errs[r] == nil || !strings.Contains(errs[r].Error(), "recovering from the loss of rank") {
			t.Errorf("rank %d: %v, want a failed recovery", r, errs[r])
		}
	}
	if !strings.Contains(errs[0].Error(), "missing rank") {
		t.Errorf("rank 0: %v, want the coordinator to name the missing rank", errs[0])
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %v", d)
	}
}
