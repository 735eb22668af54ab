package sssp

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// fuzzEngine is rank 0 of a 2-rank engine of 128 vertices (64 each); its
// apply decodes what the fuzzer sends as from rank src.
func fuzzEngine(f *testing.F) *SSSP {
	part, err := partition.NewBlock1D(128, 2)
	if err != nil {
		f.Fatal(err)
	}
	var eng *SSSP
	err = inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		src := graph.WeightedEdges{Edges: graph.EdgeSlice{{U: 0, V: 70}, {U: 1, V: 2}}, Weights: []float32{0.5, 0.25}}
		if c.Rank() == 1 {
			src = graph.WeightedEdges{}
		}
		g, w, err := buildWeighted(ctx, c, part, src, 1)
		if err != nil {
			return err
		}
		s, err := New(ctx, c, g, w, part, Config{Threads: 1})
		if c.Rank() == 0 {
			eng = s
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	return eng
}

// FuzzApplyRequests feeds arbitrary bytes to the decoder of relaxation
// requests (PhaseRelax): it must never panic, must accept a message exactly
// when it is whole 12-byte records whose target and parent are in range
// and whose distance is finite with its sign bit clear (−0 is refused as
// a negative), and must then leave every
// target at the smallest distance sent to it.
func FuzzApplyRequests(f *testing.F) {
	s := fuzzEngine(f)
	req := func(t, p uint32, d float32) []byte {
		b := binary.LittleEndian.AppendUint32(nil, t)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(d))
		return binary.LittleEndian.AppendUint32(b, p)
	}
	f.Add(append(req(3, 5, 0.5), req(3, 6, 0.25)...), uint8(1))
	f.Add(req(63, 63, 0), uint8(0))
	f.Add(req(64, 0, 1), uint8(1))
	f.Add(req(1, 1, float32(math.NaN())), uint8(1))
	f.Add([]byte{1, 2, 3}, uint8(0))
	f.Fuzz(func(t *testing.T, msg []byte, src uint8) {
		from := int(src % 2)
		s.Prepare()
		err := s.applyAll(from, msg, false)
		ok := len(msg)%RequestSize == 0
		best := map[uint32]float32{}
		for i := 0; ok && i < len(msg); i += RequestSize {
			tg := binary.LittleEndian.Uint32(msg[i:])
			bits := binary.LittleEndian.Uint32(msg[i+4:])
			d := math.Float32frombits(bits)
			p := binary.LittleEndian.Uint32(msg[i+8:])
			if tg >= 64 || p >= 64 || bits>>31 != 0 || math.IsNaN(float64(d)) || math.IsInf(float64(d), 0) {
				ok = false
				break
			}
			if b, seen := best[tg]; !seen || d < b {
				best[tg] = d
			}
		}
		if ok != (err == nil) {
			t.Fatalf("accepted %v, want %v (%d bytes)", err == nil, ok, len(msg))
		}
		if !ok {
			return
		}
		for tg, d := range best {
			if s.dist[tg] != d || s.parent[tg] < int64(64*from) || s.parent[tg] >= int64(64*from+64) {
				t.Fatalf("vertex %d: distance %v parent %d, want %v from rank %d", tg, s.dist[tg], s.parent[tg], d, from)
			}
		}
	})
}
