package allreduce

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestConfigRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for range 200 {
		n := 1 + rng.Int64N(1<<40)
		if rng.IntN(2) == 0 {
			n = 1 + rng.Int64N(100)
		}
		out := randomSorted(rng, n, rng.IntN(50))
		in := randomSorted(rng, n, rng.IntN(50))
		msg := appendConfig([]byte{7}, out, in)[1:]
		if len(out) == 0 && len(in) == 0 && len(msg) != 0 {
			t.Fatalf("empty parts give %d bytes", len(msg))
		}
		gotOut, gotIn, rest, err := decodeConfig(msg, n)
		if err != nil || !slices.Equal(gotOut, out) || !slices.Equal(gotIn, in) || len(rest) != 0 {
			t.Fatalf("round trip of %v %v: %v %v %v %v", out, in, gotOut, gotIn, rest, err)
		}
		// Every strict non-empty prefix is an error, never a panic.
		for l := 1; l < len(msg); l++ {
			if _, _, _, err := decodeConfig(msg[:l], n); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("prefix %d of %d: %v", l, len(msg), err)
			}
		}
	}
}

func randomSorted(rng *rand.Rand, n int64, m int) []int64 {
	seen := map[int64]bool{}
	var s []int64
	for range m {
		x := rng.Int64N(n)
		if !seen[x] {
			seen[x] = true
			s = append(s, x)
		}
	}
	slices.Sort(s)
	return s
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name string
		msg  []byte
		n    int64
	}{
		{"count beyond data", []byte{5, 1, 1}, 100},
		{"count beyond n", []byte{3, 0, 1, 1, 0}, 2},
		{"repeat", []byte{2, 4, 0, 0}, 100},
		{"out of range", []byte{1, 100, 0}, 100},
		{"overflow", append([]byte{2, 1}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0), math.MaxInt64},
		{"bad varint", []byte{0x80}, 100},
		{"missing in part", []byte{1, 3}, 100},
		{"long varint", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 100},
	}
	for _, tc := range cases {
		if _, _, _, err := decodeConfig(tc.msg, tc.n); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", tc.name, err)
		}
	}
	if err := checkValues(make([]byte, 15), 2); !errors.Is(err, ErrCorrupt) {
		t.Errorf("short values: %v", err)
	}
	if err := checkValues(make([]byte, 16), 2); err != nil {
		t.Errorf("exact values: %v", err)
	}
}

func TestValuesRoundTrip(t *testing.T) {
	vals := []float64{1.5, -0, math.Inf(-1), math.SmallestNonzeroFloat64, 3}
	buf := appendValues(nil, vals, []int32{4, 0, 3, 2})
	want := []float64{3, 1.5, math.SmallestNonzeroFloat64, math.Inf(-1)}
	for t2, w := range want {
		if value(buf, t2) != w {
			t.Fatalf("value %d = %v, want %v", t2, value(buf, t2), w)
		}
	}
}

// FuzzDecodeConfig: arbitrary bytes never panic, and whatever decodes is a
// valid pair of index sets that re-encodes to the same message.
func FuzzDecodeConfig(f *testing.F) {
	f.Add(appendConfig(nil, []int64{0, 3, 9}, []int64{2}), int64(10))
	f.Add([]byte{0, 0}, int64(1))
	f.Add([]byte{0xff, 0xff, 1}, int64(1<<40))
	f.Fuzz(func(t *testing.T, msg []byte, n int64) {
		if n < 0 {
			n = -(n + 1)
		}
		out, in, rest, err := decodeConfig(msg, n)
		if err != nil {
			return
		}
		if err := validateSets(in, out, n); err != nil {
			t.Fatalf("decoded invalid sets: %v", err)
		}
		if len(out)+len(in) == 0 {
			return
		}
		// Re-encoding gives the same sets back (varints may have been
		// non-canonical in msg, so compare the sets, not the bytes).
		re := append(appendConfig(nil, out, in), rest...)
		out2, in2, rest2, err := decodeConfig(re, n)
		if err != nil || !slices.Equal(out2, out) || !slices.Equal(in2, in) || !slices.Equal(rest2, rest) {
			t.Fatalf("re-encoding: %v %v %v %v", out2, in2, rest2, err)
		}
	})
}

// BenchmarkValues encodes 64 K values picked by position, then adds them
// into a vector by position: the sparse allreduce's per-value work on
// both sides of a message (appendValues, accumulate).
func BenchmarkValues(b *testing.B) {
	const n, m = 1 << 18, 1 << 16
	rng := rand.New(rand.NewPCG(5, 6))
	vals, next := make([]float64, n), make([]float64, n)
	pos := make([]int32, m)
	for i := range vals {
		vals[i] = rng.Float64()
	}
	for i := range pos {
		pos[i] = int32(rng.IntN(n))
	}
	slices.Sort(pos)
	buf := make([]byte, 0, 8*m)
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(8 * m)
		for b.Loop() {
			buf = appendValues(buf[:0], vals, pos)
		}
	})
	buf = appendValues(buf[:0], vals, pos)
	b.Run("add", func(b *testing.B) {
		b.SetBytes(8 * m)
		for b.Loop() {
			addValues(next, pos, buf)
		}
	})
}
