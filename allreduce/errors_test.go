package allreduce

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// runErrors runs fn on p ranks and returns each rank's error; fn's errors
// are the subject of the test, so Run itself must succeed.
func runErrors(t *testing.T, p int, fn func(ctx context.Context, c comm.Comm) error) []error {
	t.Helper()
	errs := make([]error, p)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := inproc.Run(ctx, p, func(ctx context.Context, c comm.Comm) error {
		errs[c.Rank()] = fn(ctx, c)
		return nil
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return errs
}

// TestInvalidArguments: a bad argument on any rank makes New and
// ConfigReduce fail on every rank with ErrInvalid, and nothing hangs.
func TestInvalidArguments(t *testing.T) {
	const p = 4
	good := []int64{1, 5, 9}
	cases := []struct {
		name    string
		kind    Kind
		degrees func(r int) []int
		n       func(r int) int64
		in, out func(r int) []int64
		want    string
	}{
		{"unsorted", KindKylix, fixed([]int{2, 2}), fixedN(10), badOn(1, []int64{5, 1}), fixedSet(good), "not sorted"},
		{"duplicate", KindKylix, fixed([]int{2, 2}), fixedN(10), fixedSet(good), badOn(2, []int64{1, 1}), "not sorted"},
		{"negative", KindDirect, fixed(nil), fixedN(10), badOn(3, []int64{-1}), fixedSet(good), "outside"},
		{"too large", KindBinary, fixed(nil), fixedN(10), fixedSet(good), badOn(0, []int64{10}), "outside"},
		{"n differs", KindKylix, fixed([]int{4}), func(r int) int64 { return 10 + int64(r) }, fixedSet(good), fixedSet(good), "disagree on n"},
		{"degrees differ", KindKylix, func(r int) []int {
			if r == 2 {
				return []int{4}
			}
			return []int{2, 2}
		}, fixedN(10), fixedSet(good), fixedSet(good), "disagree"},
		{"bad product", KindKylix, fixed([]int{2, 3}), fixedN(10), fixedSet(good), fixedSet(good), "multiply"},
		{"degrees for direct", KindDirect, fixed([]int{4}), fixedN(10), fixedSet(good), fixedSet(good), "takes no degrees"},
		{"unknown kind", Kind(7), fixed(nil), fixedN(10), fixedSet(good), fixedSet(good), "unknown kind"},
		{"negative n", KindDirect, fixed(nil), fixedN(-1), fixedSet(nil), fixedSet(nil), "vector length"},
	}
	for _, tc := range cases {
		for _, combined := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/configreduce=%v", tc.name, combined), func(t *testing.T) {
				errs := runErrors(t, p, func(ctx context.Context, c comm.Comm) error {
					r := c.Rank()
					in, out := tc.in(r), tc.out(r)
					if combined {
						return ConfigReduce(ctx, c, tc.kind, tc.degrees(r), tc.n(r), in, out,
							make([]float64, len(out)), make([]float64, len(in)), nil)
					}
					_, err := New(ctx, c, tc.kind, tc.degrees(r), tc.n(r), in, out)
					return err
				})
				matched := false
				for r, err := range errs {
					if !errors.Is(err, ErrInvalid) {
						t.Fatalf("rank %d: got %v, want an error wrapping ErrInvalid", r, err)
					}
					matched = matched || strings.Contains(err.Error(), tc.want)
				}
				if !matched {
					t.Fatalf("no rank's error mentions %q: %v", tc.want, errs)
				}
			})
		}
	}
	t.Run("value lengths", func(t *testing.T) {
		errs := runErrors(t, p, func(ctx context.Context, c comm.Comm) error {
			s, err := New(ctx, c, KindKylix, []int{2, 2}, 10, good, good)
			if err != nil {
				return err
			}
			return s.Reduce(ctx, make([]float64, 2), make([]float64, 3), nil)
		})
		for r, err := range errs {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("rank %d: got %v, want ErrInvalid", r, err)
			}
		}
		errs = runErrors(t, p, func(ctx context.Context, c comm.Comm) error {
			return ConfigReduce(ctx, c, KindKylix, []int{2, 2}, 10, good, good, make([]float64, 3), make([]float64, 1), nil)
		})
		for r, err := range errs {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ConfigReduce rank %d: got %v, want ErrInvalid", r, err)
			}
		}
	})
}

func fixed(d []int) func(int) []int        { return func(int) []int { return d } }
func fixedN(n int64) func(int) int64       { return func(int) int64 { return n } }
func fixedSet(s []int64) func(int) []int64 { return func(int) []int64 { return s } }
func badOn(rank int, bad []int64) func(int) []int64 {
	return func(r int) []int64 {
		if r == rank {
			return bad
		}
		return []int64{1, 5, 9}
	}
}

// corruptComm damages the messages it sends in one phase.
type corruptComm struct {
	comm.Comm
	phase  string
	damage func([]byte) []byte
}

func (c *corruptComm) Alltoallv(ctx context.Context, phase string, send, recv [][]byte) ([][]byte, error) {
	if phase == c.phase {
		bad := make([][]byte, len(send))
		for i, b := range send {
			if len(b) > 0 {
				bad[i] = c.damage(slices.Clone(b))
			}
		}
		send = bad
	}
	return c.Comm.Alltoallv(ctx, phase, send, recv)
}

// TestCorruptMessages: damaged messages in any pass make the receivers
// return ErrCorrupt rather than panic or deliver wrong sums.
func TestCorruptMessages(t *testing.T) {
	const p = 4
	rng := rand.New(rand.NewPCG(11, 12))
	d := randomDataset(rng, p, 500)
	for r := range p { // make sure every rank sends something in every layer
		d.ins[r] = drawSet(rng, setFull, d.n, nil)
		d.outs[r] = d.ins[r]
		d.vals[r] = randomValues(rng, len(d.outs[r]))
	}
	damages := map[string]func([]byte) []byte{
		"truncate": func(b []byte) []byte { return b[:len(b)-1] },
		"extend":   func(b []byte) []byte { return append(b, 0) },
		"garbage":  func(b []byte) []byte { return append([]byte{0xff, 0xff, 0xff}, b...) },
	}
	for _, phase := range []string{"allreduce.config.1", "allreduce.config.2", "allreduce.down.2", "allreduce.up.1", "allreduce.configreduce.1"} {
		for name, damage := range damages {
			t.Run(phase+"/"+name, func(t *testing.T) {
				var mu sync.Mutex
				var errs []error
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				_ = inproc.Run(ctx, p, func(ctx context.Context, c comm.Comm) error {
					r := c.Rank()
					cc := &corruptComm{Comm: c, phase: phase, damage: damage}
					in := make([]float64, len(d.ins[r]))
					var err error
					if strings.Contains(phase, "configreduce") {
						err = ConfigReduce(ctx, cc, KindKylix, []int{2, 2}, d.n, d.ins[r], d.outs[r], d.vals[r], in, nil)
					} else {
						var s Sparse
						s, err = New(ctx, cc, KindKylix, []int{2, 2}, d.n, d.ins[r], d.outs[r])
						if err == nil {
							err = s.Reduce(ctx, d.vals[r], in, nil)
						}
					}
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return err
				})
				found := false
				for _, err := range errs {
					found = found || errors.Is(err, ErrCorrupt)
				}
				if !found {
					t.Fatalf("no rank reported ErrCorrupt: %v", errs)
				}
			})
		}
	}
}
