package spmv

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

func TestCompactRecordsKeepLargestParentPerVertex(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for trial := 0; trial < 200; trial++ {
		n, senders := uint32(1+rng.IntN(5000)), uint32(1+rng.IntN(5000))
		var raw []byte
		want := map[uint32]uint32{}
		for i := rng.IntN(300); i > 0; i-- {
			u, p := rng.Uint32N(n), rng.Uint32N(senders)
			raw = binary.LittleEndian.AppendUint32(raw, u)
			raw = binary.LittleEndian.AppendUint32(raw, p)
			if q, ok := want[u]; !ok || p > q {
				want[u] = p
			}
		}
		enc, _ := CompactRecords(nil, raw, nil)
		got := map[uint32]uint32{}
		last := int64(-1)
		err := ForEachCompactRecord(enc, n, senders, func(u, p uint32) {
			if int64(u) <= last {
				t.Fatalf("vertices not increasing: %d after %d", u, last)
			}
			last = int64(u)
			got[u] = p
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d records decoded, want %d", len(got), len(want))
		}
		for u, p := range want {
			if got[u] != p {
				t.Fatalf("vertex %d: parent %d, want %d", u, got[u], p)
			}
		}
		if len(raw) > 0 && len(enc) >= len(raw) && len(want) == len(raw)/RecordSize {
			t.Logf("no gain on %d records (%d vs %d bytes)", len(want), len(enc), len(raw))
		}
	}
}

func TestCompactRecordsRejectCorruptInput(t *testing.T) {
	for _, msg := range [][]byte{
		{0x80},       // truncated varint
		{5},          // vertex without parent
		{200, 1},     // vertex out of range
		{1, 100},     // parent out of range
		{1, 1, 0, 1}, // repeated vertex
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1}, // overflowing varint
	} {
		if err := ForEachCompactRecord(msg, 100, 50, func(u, p uint32) {}); err == nil {
			t.Errorf("% x accepted", msg)
		}
	}
}

func FuzzCompactRecords(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4}, uint16(10), uint16(10))
	f.Add([]byte{0x80, 0x80, 0x01, 5}, uint16(1000), uint16(3))
	f.Fuzz(func(t *testing.T, msg []byte, n, senders uint16) {
		count := 0
		err := ForEachCompactRecord(msg, uint32(n), uint32(senders), func(u, p uint32) {
			if u >= uint32(n) || p >= uint32(senders) {
				t.Fatalf("record (%d, %d) out of range", u, p)
			}
			count++
		})
		if err == nil && count > len(msg) {
			t.Fatalf("%d records from %d bytes", count, len(msg))
		}
	})
}
