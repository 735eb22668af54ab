package allreduce

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// TestReduceScalars: ReduceScalars delivers the same vector as Reduce, bit
// for bit, and the scalar sums over all ranks, identical on every rank —
// including scalars that apply writes at home — on every listed network,
// and sends exactly as many up messages per layer as a group has pairs
// (the running sums make every up message non-empty) and no other call.
func TestReduceScalars(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, tc := range testNetworks() {
		for _, nw := range tc.networks {
			n := []int64{3, 1000, 20000}[rng.IntN(3)]
			d := randomDataset(rng, tc.p, n)
			const ns = 3
			// Rank r contributes (r+1)/7, a random value and, at home, the
			// sum of its home sums.
			own := make([][]float64, tc.p)
			for r := range own {
				own[r] = []float64{float64(r+1) / 7, rng.Float64()*2 - 1, 0}
			}
			got := make([][]float64, tc.p)
			homeSums := make([]float64, tc.p)
			t.Run(fmt.Sprintf("P=%d/%s/n=%d", tc.p, nw, n), func(t *testing.T) {
				err := inproc.Run(context.Background(), tc.p, func(ctx context.Context, c comm.Comm) error {
					r := c.Rank()
					s, err := nw.configure(ctx, c, d)
					if err != nil {
						return err
					}
					want := make([]float64, len(d.ins[r]))
					if err := s.Reduce(ctx, d.vals[r], want, nil); err != nil {
						return err
					}
					scalars := append([]float64(nil), own[r][:2]...)
					scalars = append(scalars, math.NaN()) // apply overwrites it
					in := make([]float64, len(d.ins[r]))
					callsBefore := c.Stats().Snapshot()
					before := LayerStats(c.Stats(), s.Layers())
					err = s.ReduceScalars(ctx, d.vals[r], in, scalars, func(_ []int64, sums []float64) {
						var h float64
						for _, x := range sums {
							h += x
						}
						homeSums[r] = h
						scalars[2] = h
					})
					if err != nil {
						return err
					}
					if !bitsEqual(in, want) {
						return fmt.Errorf("rank %d: ReduceScalars' vector differs from Reduce's", r)
					}
					got[r] = scalars
					after := LayerStats(c.Stats(), s.Layers())
					for i, dg := range s.Degrees() {
						v := after[i].Sub(before[i])
						if v.Up.Messages != int64(dg-1) || v.Up.Calls != 1 || v.Down.Calls != 1 {
							return fmt.Errorf("rank %d layer %d of degree %d: %d up messages in %d calls", r, i+1, dg, v.Up.Messages, v.Up.Calls)
						}
					}
					var calls int64
					for phase, pc := range c.Stats().Snapshot() {
						calls += pc.Sub(callsBefore[phase]).Calls
					}
					if want := int64(2 * s.Layers()); calls != want {
						return fmt.Errorf("rank %d: %d collective calls, want %d (one per layer and pass)", r, calls, want)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				for r := range got {
					for j := range ns {
						if math.Float64bits(got[r][j]) != math.Float64bits(got[0][j]) {
							t.Fatalf("rank %d scalar %d: %v, rank 0 has %v", r, j, got[r][j], got[0][j])
						}
					}
				}
				var want [ns]float64
				var abs [ns]float64
				for r := range own {
					for j, x := range []float64{own[r][0], own[r][1], homeSums[r]} {
						want[j] += x
						abs[j] += math.Abs(x)
					}
				}
				for j := range ns {
					if math.Abs(got[0][j]-want[j]) > 1e-12*(abs[j]+1) {
						t.Fatalf("scalar %d: %v, want %v", j, got[0][j], want[j])
					}
				}
			})
		}
	}
}
