package allreduce

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// TestArrangeIsAPermutedReduce: on every listed network, an arranged
// Reduce (values kept in a random order of the caller's) delivers the same
// sums, bit for bit, as an unarranged one on the same values, with the
// same home sums and scalars, for three calls in a row (the maps are
// composed once, not again per call).
func TestArrangeIsAPermutedReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, tc := range testNetworks() {
		if tc.p > 16 {
			continue // the composition is of the first layer's maps; larger P adds nothing
		}
		for _, nw := range tc.networks {
			n := []int64{3, 1000, 20000}[rng.IntN(3)]
			d := randomDataset(rng, tc.p, n)
			outAt, inAt := make([][]int32, tc.p), make([][]int32, tc.p)
			for r := range tc.p {
				outAt[r], inAt[r] = randomPermutation(rng, len(d.outs[r])), randomPermutation(rng, len(d.ins[r]))
			}
			t.Run(fmt.Sprintf("P=%d/%s/n=%d", tc.p, nw, n), func(t *testing.T) {
				err := inproc.Run(context.Background(), tc.p, func(ctx context.Context, c comm.Comm) error {
					r := c.Rank()
					plain, err := nw.configure(ctx, c, d)
					if err != nil {
						return err
					}
					arranged, err := nw.configure(ctx, c, d)
					if err != nil {
						return err
					}
					if err := arranged.Arrange(outAt[r], inAt[r]); err != nil {
						return err
					}
					out := make([]float64, len(d.outs[r])) // d.vals[r] in the arranged order
					for t, q := range outAt[r] {
						out[q] = d.vals[r][t]
					}
					for call := range 3 {
						want, wantHome, wantScalars, errPlain := reduceRecorded(ctx, plain, d.vals[r], len(d.ins[r]), r)
						got, gotHome, gotScalars, errArranged := reduceRecorded(ctx, arranged, out, len(d.ins[r]), r)
						if errPlain != nil || errArranged != nil {
							return errors.Join(errPlain, errArranged)
						}
						for t, q := range inAt[r] {
							if !bitsEqual(want[t:t+1], got[q:q+1]) {
								return fmt.Errorf("call %d, rank %d: in-set element %d (index %d): arranged %v, plain %v",
									call, r, t, d.ins[r][t], got[q], want[t])
							}
						}
						if !bitsEqual(wantHome, gotHome) || !bitsEqual(wantScalars, gotScalars) {
							return fmt.Errorf("call %d, rank %d: home sums or scalars differ", call, r)
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// reduceRecorded runs ReduceScalars with two scalars and an apply that
// records the home sums and transforms them; it returns the in values,
// the home sums before the transform and the scalar sums.
func reduceRecorded(ctx context.Context, s Sparse, out []float64, nIn, rank int) (in, home, scalars []float64, err error) {
	in = make([]float64, nIn)
	scalars = []float64{float64(rank+1) / 3, 0}
	err = s.ReduceScalars(ctx, out, in, scalars, func(h []int64, sums []float64) {
		home = slices.Clone(sums)
		for t := range sums {
			scalars[1] += sums[t]
			sums[t] = transform(h[t], sums[t])
		}
	})
	return in, home, scalars, err
}

// randomPermutation is a random permutation of [0, n) as int32 positions.
func randomPermutation(rng *rand.Rand, n int) []int32 {
	at := make([]int32, n)
	for i, j := range rng.Perm(n) {
		at[i] = int32(j)
	}
	return at
}

// TestArrangeRejectsNonPermutations: a wrong length, a repeated or
// out-of-range position, or a second call is ErrInvalid, and a rejected
// call changes nothing.
func TestArrangeRejectsNonPermutations(t *testing.T) {
	in, out := []int64{1, 4, 6}, []int64{0, 1, 2, 5}
	ok3, ok4 := []int32{2, 0, 1}, []int32{3, 1, 0, 2}
	cases := []struct {
		name        string
		outAt, inAt []int32
	}{
		{"short out", []int32{0, 1, 2}, ok3},
		{"long in", ok4, []int32{0, 1, 2, 3}},
		{"repeated", []int32{0, 1, 1, 2}, ok3},
		{"negative", ok4, []int32{0, -1, 2}},
		{"past the end", ok4, []int32{0, 1, 3}},
	}
	for _, p := range []int{1, 2} {
		err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			s, err := New(ctx, c, KindDirect, nil, 8, in, out)
			if err != nil {
				return err
			}
			for _, tc := range cases {
				if err := s.Arrange(tc.outAt, tc.inAt); !errors.Is(err, ErrInvalid) {
					return fmt.Errorf("P=%d, %s: got %v, want ErrInvalid", p, tc.name, err)
				}
			}
			if err := s.Arrange(ok4, ok3); err != nil {
				return fmt.Errorf("P=%d: a valid Arrange after rejected ones: %w", p, err)
			}
			if err := s.Arrange(ok4, ok3); !errors.Is(err, ErrInvalid) {
				return fmt.Errorf("P=%d: a second Arrange: got %v, want ErrInvalid", p, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
