package graph

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// FuzzWeightRecords feeds arbitrary bytes to the decoder of routed weights
// (WeightPhase): it must never panic, must accept a message exactly when
// its 16-byte records name an edge of the rank's rows with a weight that is
// a number ≥ 0 (+Inf included: it lowers nothing), and must then leave
// each named entry at the smallest weight sent for it.
func FuzzWeightRecords(f *testing.F) {
	part := block1D(f, 128, 2)
	var g *CSR
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		edges := []Edge{{0, 1}, {0, 70}, {5, 6}, {63, 127}}
		if c.Rank() == 1 {
			edges = nil
		}
		h, err := BuildUndirected(ctx, c, part, edges, 1)
		if c.Rank() == 0 {
			g = h
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	rec := func(l uint32, w float32, v uint64) []byte {
		b := binary.LittleEndian.AppendUint32(nil, l)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(w))
		return binary.LittleEndian.AppendUint64(b, v)
	}
	f.Add(append(rec(0, 0.5, 70), rec(0, 0.25, 70)...))
	f.Add(rec(63, 0.125, 127))
	f.Add(rec(0, 0.5, 2))
	f.Add(rec(64, 0.5, 1))
	f.Add([]byte{7})
	f.Fuzz(func(t *testing.T, msg []byte) {
		r := &weightRouter{part: part, g: g, bits: make([]uint32, g.NumEdges()), threads: 1}
		inf := math.Float32bits(float32(math.Inf(1)))
		for i := range r.bits {
			r.bits[i] = inf
		}
		var err error
		if len(msg)%weightRecord == 0 {
			err = r.apply(msg)
		}
		ok := len(msg)%weightRecord == 0
		best := map[int64]uint32{}
		for i := 0; ok && i < len(msg); i += weightRecord {
			l := binary.LittleEndian.Uint32(msg[i:])
			w := binary.LittleEndian.Uint32(msg[i+4:])
			v := binary.LittleEndian.Uint64(msg[i+8:])
			if l >= 64 || v >= 128 || w > inf || !g.HasEdge(l, int64(v)) {
				ok = false
				break
			}
			j := g.EntryIndex(l, int64(v))
			if b, seen := best[j]; !seen || w < b {
				best[j] = w
			}
		}
		if len(msg)%weightRecord == 0 && ok != (err == nil) {
			t.Fatalf("accepted %v, want %v", err == nil, ok)
		}
		if !ok {
			return
		}
		for j, w := range best {
			if r.bits[j] != w {
				t.Fatalf("entry %d has weight bits %#x, want %#x", j, r.bits[j], w)
			}
		}
	})
}
