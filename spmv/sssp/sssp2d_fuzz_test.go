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

// fuzzEngine2D is rank 0 of a 1×2 grid's engine of 100 vertices (pieces
// of 64 and 36): its decode reads what the fuzzer sends as from row peer
// k.
func fuzzEngine2D(f *testing.F) *SSSP2D {
	grid, err := partition.NewGrid(100, 1, 2)
	if err != nil {
		f.Fatal(err)
	}
	var eng *SSSP2D
	err = inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		src := graph.WeightedEdges{Edges: graph.EdgeSlice{{U: 0, V: 70}, {U: 1, V: 2}}, Weights: []float32{0.5, 0.25}}
		if c.Rank() == 1 {
			src = graph.WeightedEdges{}
		}
		blk, w, err := build2D(ctx, c, grid, src, 1)
		if err != nil {
			return err
		}
		e, err := New2D(ctx, c, blk, w, Config{Threads: 1})
		if c.Rank() == 0 {
			eng = e
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	return eng
}

// FuzzDecode2D feeds arbitrary bytes to the decoder of the 2D fold's
// requests (PhaseRelax), fixed and compact: it must never panic; a fixed
// message is accepted exactly when it is whole 12-byte records whose
// target is an owned vertex, whose distance is finite and not negative and
// whose parent is a vertex of the sender's processor column; whatever it
// accepts, in either form, is in range.
func FuzzDecode2D(f *testing.F) {
	e := fuzzEngine2D(f)
	req := func(t, p uint32, d float32) []byte {
		b := binary.LittleEndian.AppendUint32(nil, t)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(d))
		return binary.LittleEndian.AppendUint32(b, p)
	}
	f.Add(append(req(3, 5, 0.5), req(3, 6, 0.25)...), uint8(1), false)
	f.Add(req(63, 35, 0), uint8(1), false)
	f.Add(req(64, 0, 1), uint8(0), false)
	f.Add([]byte{3, 0, 0, 0, 63, 5, 1, 0, 0, 0, 7}, uint8(0), true)
	f.Add([]byte{1, 2, 3}, uint8(0), true)
	f.Fuzz(func(t *testing.T, msg []byte, from uint8, compact bool) {
		k := int(from % 2)
		cols := []uint32{64, 36}[k] // the vertices of processor column k
		e.s.cfg.Compact = compact
		got, err := e.decode(nil, k, msg)
		if !compact {
			ok := len(msg)%RequestSize == 0
			for i := 0; ok && i < len(msg); i += RequestSize {
				tg, bits, p := binary.LittleEndian.Uint32(msg[i:]), binary.LittleEndian.Uint32(msg[i+4:]), binary.LittleEndian.Uint32(msg[i+8:])
				ok = tg < 64 && p < cols && bits < 0x7f800000
			}
			if ok != (err == nil) {
				t.Fatalf("accepted %v, want %v (%d bytes): %v", err == nil, ok, len(msg), err)
			}
		}
		for _, q := range got {
			d := float64(q.dist)
			if err == nil && (q.target >= 64 || q.parent >= cols || !(d >= 0) || math.IsInf(d, 1)) {
				t.Fatalf("accepted request %+v out of range", q)
			}
		}
	})
}
