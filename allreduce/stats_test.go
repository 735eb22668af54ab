package allreduce

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// TestLayerStats: the per-layer phases carry the traffic, each rank sends
// at most d−1 messages per layer and pass, and direct is one layer.
func TestLayerStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const p = 16
	d := randomDataset(rng, p, 3000)
	for _, nw := range []network{{KindKylix, "4x2x2"}, {KindDirect, ""}} {
		vols := make([][]LayerVolume, p)
		err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			r := c.Rank()
			s, err := nw.configure(ctx, c, d)
			if err != nil {
				return err
			}
			before := LayerStats(c.Stats(), s.Layers())
			in := make([]float64, len(d.ins[r]))
			if err := s.Reduce(ctx, d.vals[r], in, nil); err != nil {
				return err
			}
			after := LayerStats(c.Stats(), s.Layers())
			for i := range after {
				after[i] = after[i].Sub(before[i])
				if after[i].Config.Calls != 0 || after[i].Down.Calls != 1 || after[i].Up.Calls != 1 {
					return fmt.Errorf("layer %d: calls %+v", i+1, after[i])
				}
				deg := s.Degrees()[i]
				if after[i].Down.Messages > int64(deg-1) || after[i].Up.Messages > int64(deg-1) {
					return fmt.Errorf("layer %d of degree %d: %d down, %d up messages", i+1, deg, after[i].Down.Messages, after[i].Up.Messages)
				}
			}
			vols[r] = before
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if nw.kind == KindDirect && len(vols[0]) != 1 {
			t.Fatalf("direct has %d layers", len(vols[0]))
		}
		var total comm.PhaseCounters
		for r := range vols {
			for _, v := range vols[r] {
				total.Add(v.Total())
			}
		}
		if total.BytesSent != total.BytesRecv || total.BytesSent == 0 {
			t.Fatalf("%s: configuration sent %d bytes, received %d", nw, total.BytesSent, total.BytesRecv)
		}
	}
}
