package bfs

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// FuzzGhostLevels feeds arbitrary bytes to both decoders of the validator's
// ghost-level messages (PhaseValidateGhosts), in every width: they must
// never panic, must accept a message exactly when its length is that of the
// expected values and no value exceeds the deepest level + 1, and must then
// store the little-endian values — one after the other, or at the set
// positions of the directory row. The positions come from the input too.
func FuzzGhostLevels(f *testing.F) {
	f.Add([]byte{1, 2, 3, 0}, uint8(1), uint16(4), uint32(3), uint64(0xf0f0))
	f.Add([]byte{1, 0, 2, 0}, uint8(2), uint16(2), uint32(300), uint64(0b101))
	f.Add([]byte{9, 0, 0, 0, 1, 0, 0, 0}, uint8(4), uint16(2), uint32(8), uint64(3))
	f.Add([]byte{}, uint8(1), uint16(0), uint32(0), uint64(0))
	f.Add([]byte{0xff}, uint8(1), uint16(1), uint32(254), uint64(1<<63))
	f.Fuzz(func(t *testing.T, msg []byte, wsel uint8, n uint16, maxVal uint32, pos uint64) {
		switch wsel % 3 {
		case 0:
			fuzzGhostWidth[uint8](t, msg, int(n), maxVal, pos)
		case 1:
			fuzzGhostWidth[uint16](t, msg, int(n), maxVal, pos)
		default:
			fuzzGhostWidth[uint32](t, msg, int(n), maxVal, pos)
		}
	})
}

func fuzzGhostWidth[G ghostValue](t *testing.T, msg []byte, n int, maxVal uint32, pos uint64) {
	var z G
	w := 1
	switch any(z).(type) {
	case uint16:
		w = 2
	case uint32:
		w = 4
	}
	want := make([]uint32, 0, len(msg)/w)
	ok := len(msg) == n*w
	for i := 0; ok && i < n; i++ {
		var v uint32
		for b := w - 1; b >= 0; b-- {
			v = v<<8 | uint32(msg[i*w+b])
		}
		if uint32(G(v)) != v || v > maxVal {
			ok = false
		}
		want = append(want, v)
	}

	dst := make([]G, n)
	err := decodeGhosts(dst, msg, maxVal)
	if (err == nil) != ok {
		t.Fatalf("decodeGhosts of %d bytes for %d values (max %d): error %v, want ok=%v", len(msg), n, maxVal, err, ok)
	}
	if err == nil {
		for i, v := range want {
			if uint32(dst[i]) != v {
				t.Fatalf("value %d decoded as %d, want %d", i, dst[i], v)
			}
		}
	}

	// Scatter along two words of positions (pos repeated with a shift), into
	// a range of 100 vertices.
	row := frontier.Bitmap{pos, pos<<7 | pos>>57}
	const span = 100
	var slots []int
	for x := 0; x < 128; x++ {
		if row.Test(int64(x)) {
			slots = append(slots, x)
		}
	}
	fits := n <= len(slots) && (n == 0 || slots[n-1] < span)
	cur := ghostCursor{left: row[0]}
	scattered := make([]G, span)
	err = decodeScatter(scattered, row, &cur, msg, n, maxVal)
	if (err == nil) != (ok && fits) {
		t.Fatalf("decodeScatter of %d bytes for %d values into %d slots: error %v, want ok=%v", len(msg), n, len(slots), err, ok && fits)
	}
	if err == nil {
		for i, v := range want {
			if uint32(scattered[slots[i]]) != v {
				t.Fatalf("value %d scattered as %d at %d, want %d", i, scattered[slots[i]], slots[i], v)
			}
		}
	}
}

// FuzzParentRecords feeds arbitrary bytes, as the message of any row peer,
// to the 2D validator's decoder of parent records (PhaseValidateParents) on
// rank 0 of a 2x2 grid: it must never panic, must reject a length that is
// not a multiple of 8 and any record whose vertex or column is out of
// range, and must accept (as violations or not) every record in range.
func FuzzParentRecords(f *testing.F) {
	g, _ := mutationGraph()
	var (
		v    *Validator2D
		grid partition.Grid
	)
	csrtest.OnGrid(f, g, 2, 2, 1, func(ctx context.Context, cm comm.Comm, blk *graph.Block2D, gr partition.Grid, _ []graph.Edge) error {
		val, err := NewValidator2D(ctx, cm, blk, Validator2DConfig{Threads: 2})
		if cm.Rank() == 0 {
			v, grid = val, gr
		}
		return err
	})
	rowVals, colVals := ghostsOf[uint8](&v.rowVals), ghostsOf[uint8](&v.colVals)
	f.Add([]byte{0, 0, 0, 0, 1, 0, 0, 0}, uint8(0))
	f.Add([]byte{5, 0, 0, 0, 200, 0, 0, 0, 7, 0, 0, 0, 3, 0, 0, 0}, uint8(1))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, uint8(1))
	f.Add([]byte{1, 2, 3}, uint8(0))
	f.Fuzz(func(t *testing.T, msg []byte, src uint8) {
		s := int(src) % grid.C
		recv := make([][]byte, grid.C)
		recv[s] = msg
		inRange := len(msg)%8 == 0
		count := grid.Part.Count(grid.Rank(0, s))
		for i := 0; inRange && i+8 <= len(msg); i += 8 {
			x, pc := binary.LittleEndian.Uint32(msg[i:]), binary.LittleEndian.Uint32(msg[i+4:])
			inRange = int(x) < count && int64(pc) < grid.ColSpan() && grid.ColGlobal(0, pc) < grid.Part.N
		}
		for t := range v.results {
			v.results[t].bad.reset()
		}
		err := checkParentRecords(v, recv, 0, rowVals, colVals)
		if (err == nil) != inRange {
			t.Fatalf("%d bytes from row peer %d: error %v, want in range %v", len(msg), s, err, inRange)
		}
	})
}
