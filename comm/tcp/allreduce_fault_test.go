package tcp_test

// Failure exposure (Zhang and Qiu §II, §V-B): a Kylix allreduce
// over TCP whose topology loses a rank mid-reduction returns an error on
// every survivor, naming the lost rank, instead of hanging.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/tcp"
)

func TestKylixAllreduceBrokenTopology(t *testing.T) {
	const p, n, victim = 4, 1000, 2
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	errLost := errors.New("injected loss of rank 2")
	start := time.Now()
	err := tcp.LaunchLoopback(ctx, p, func(ctx context.Context, c comm.Comm) error {
		var in, out []int64
		for i := int64(c.Rank()); i < n; i += 2 {
			out = append(out, i)
		}
		for i := int64(0); i < n; i += 3 {
			in = append(in, i)
		}
		s, err := allreduce.New(ctx, c, allreduce.KindKylix, []int{2, 2}, n, in, out)
		if err != nil {
			return err
		}
		vals := make([]float64, len(out))
		sums := make([]float64, len(in))
		for round := range 5 {
			if round == 3 && c.Rank() == victim {
				return errLost
			}
			if err := s.Reduce(ctx, vals, sums, nil); err != nil {
				if !errors.Is(err, comm.ErrAborted) || !strings.Contains(err.Error(), "rank 2") {
					t.Errorf("rank %d: Reduce returned %v, want an aborted error naming rank 2", c.Rank(), err)
				}
				return err
			}
		}
		return errors.New("the allreduce kept succeeding after rank 2 was lost")
	})
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("the survivors took %v to fail", elapsed)
	}
	if err == nil || !strings.Contains(err.Error(), errLost.Error()) {
		t.Fatalf("launch returned %v, want the lost rank's error", err)
	}
}
