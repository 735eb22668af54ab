package allreduce

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// Benchmark job: 64 ranks, 2^18 indices, in- and out-sets drawn
// independently from the power-law model of Kylix §IV (feature of
// frequency rank r present with probability 1 − exp(−λ₀/r)) at density 0.05.
const (
	benchRanks   = 64
	benchN       = 1 << 18
	benchDensity = 0.05
	// benchMinPacket scales the paper's minimum efficient packet to the
	// job: a rank holds ≈105 kB of out values, so direct packets are ≈1.6 kB,
	// well below 8 KiB, as the paper's 0.4 MB Twitter packets were below
	// its 5 MB minimum.
	benchMinPacket = 8 << 10
)

// powerLawJob draws the benchmark job: per rank, independent in- and
// out-sets, indices being frequency ranks mapped through a fixed random
// permutation.
func powerLawJob(p int, n int64, density float64, seed uint64) *dataset {
	rng := rand.New(rand.NewPCG(seed, 99))
	perm := make([]int64, n)
	for i := range perm {
		perm[i] = int64(i)
	}
	rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	lam := solveLambda(n, density)
	probs := make([]float64, n)
	for r := range probs {
		probs[r] = -math.Expm1(-lam * rate(float64(r+1)))
	}
	draw := func() []int64 {
		present := make([]bool, n)
		for r, pr := range probs {
			if rng.Float64() < pr {
				present[perm[r]] = true
			}
		}
		var s []int64
		for i, ok := range present {
			if ok {
				s = append(s, int64(i))
			}
		}
		return s
	}
	d := &dataset{p: p, n: n, ins: make([][]int64, p), outs: make([][]int64, p), vals: make([][]float64, p)}
	for r := range p {
		d.ins[r] = draw()
		d.outs[r] = draw()
		d.vals[r] = randomValues(rng, len(d.outs[r]))
	}
	return d
}

// onRanks runs fn on every rank of w and waits; a failing rank aborts w.
func onRanks(w *inproc.World, p int, fn func(c comm.Comm) error) error {
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r := range p {
		wg.Go(func() {
			if errs[r] = fn(w.Comm(r)); errs[r] != nil {
				w.Abort(r, errs[r])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkReduce64 runs Reduce on 64 in-process ranks for the direct, binary
// and kylix (auto degrees) networks and reports, per Reduce and summed over
// ranks, the messages and bytes sent to other ranks, in total and per layer
// and pass (the Kylix shape); the configuration's volume is logged.
func BenchmarkReduce64(b *testing.B) {
	d := powerLawJob(benchRanks, benchN, benchDensity, 1)
	ctx := context.Background()
	for _, kind := range []Kind{KindDirect, KindBinary, KindKylix} {
		b.Run(kind.String(), func(b *testing.B) {
			w, err := inproc.NewWorld(benchRanks)
			if err != nil {
				b.Fatal(err)
			}
			plans := make([]Sparse, benchRanks)
			ins := make([][]float64, benchRanks)
			err = onRanks(w, benchRanks, func(c comm.Comm) error {
				r := c.Rank()
				var deg []int
				var err error
				if kind == KindKylix {
					if deg, err = AutoDegrees(ctx, c, d.n, d.ins[r], d.outs[r], benchMinPacket); err != nil {
						return err
					}
				}
				plans[r], err = New(ctx, c, kind, deg, d.n, d.ins[r], d.outs[r])
				ins[r] = make([]float64, len(d.ins[r]))
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			layers := plans[0].Layers()
			before := sumLayers(w, benchRanks, layers)
			iters := b.N
			b.ResetTimer()
			err = onRanks(w, benchRanks, func(c comm.Comm) error {
				r := c.Rank()
				for range iters {
					if err := plans[r].Reduce(ctx, d.vals[r], ins[r], nil); err != nil {
						return err
					}
				}
				return nil
			})
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			after := sumLayers(w, benchRanks, layers)
			// Proposition 4.1's prediction of the bytes sent to other ranks
			// in layer i: P·B_{i−1}·(d_i − 1)/d_i.
			deg := plans[0].Degrees()
			model := PredictLayerBytes(benchN, benchDensity, deg)
			var msgs, bytes float64
			var table strings.Builder
			fmt.Fprintf(&table, "%s, P=%d, n=%d, density %.2f, per Reduce (all ranks):\n", plans[0].Name(), benchRanks, benchN, benchDensity)
			for i := range after {
				v := after[i].Sub(before[i])
				down := float64(v.Down.BytesSent) / float64(iters)
				up := float64(v.Up.BytesSent) / float64(iters)
				dm := float64(v.Down.Messages) / float64(iters)
				um := float64(v.Up.Messages) / float64(iters)
				msgs += dm + um
				bytes += down + up
				b.ReportMetric(down, fmt.Sprintf("L%d-down-B/op", i+1))
				b.ReportMetric(up, fmt.Sprintf("L%d-up-B/op", i+1))
				predicted := benchRanks * model[i] * float64(deg[i]-1) / float64(deg[i])
				fmt.Fprintf(&table, "  layer %d (degree %2d): down %4.0f msgs %8.0f B, up %4.0f msgs %8.0f B (model %8.0f B each); config %4d msgs %8d B\n",
					i+1, deg[i], dm, down, um, up, predicted, before[i].Config.Messages, before[i].Config.BytesSent)
			}
			b.ReportMetric(msgs, "msgs/op")
			b.ReportMetric(bytes, "bytes/op")
			b.Log(table.String())
		})
	}
}

// sumLayers sums the per-layer counters of every rank of w. It must only be
// called while no rank is running.
func sumLayers(w *inproc.World, p, layers int) []LayerVolume {
	total := make([]LayerVolume, layers)
	for r := range p {
		for i, v := range LayerStats(w.Comm(r).Stats(), layers) {
			total[i].Layer = v.Layer
			total[i].Add(v)
		}
	}
	return total
}
