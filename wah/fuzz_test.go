package wah

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to every reader. Nothing may panic; an
// input Decode accepts must agree with Validate, Count and ForEach, and must
// survive re-encoding.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add(Encode32(nil, []uint64{1, 0}))
	f.Add(Encode64(nil, []uint64{^uint64(0), 5, 0, 0, 1 << 63}))
	f.Add(encode[uint32](nil, make([]uint64, 16), 2))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, words := range []int{0, 1, 2, 5, 16, 100} {
			dst, err := exercise(t, data, words)
			if err != nil {
				continue
			}
			h, _ := parseHeader(data)
			for _, v := range variants {
				if v.wb != h.wb {
					continue
				}
				re := v.encode(nil, dst)
				got := make([]uint64, words)
				if err := Decode(got, re); err != nil || !slices.Equal(got, dst) {
					t.Fatalf("%s: re-encoding the decoded bitmap: %v", v.name, err)
				}
			}
		}
		if Validate(data) != nil {
			return
		}
		n, _ := Bits(data)
		if n > 1<<16 {
			return
		}
		c, _ := Count(data)
		var list []int64
		if err := ForEach(data, func(i int64) { list = append(list, i) }); err != nil {
			t.Fatalf("ForEach rejects a valid encoding: %v", err)
		}
		if int64(len(list)) != c || !slices.IsSorted(list) || (len(list) > 0 && (list[0] < 0 || list[len(list)-1] >= n)) {
			t.Fatalf("ForEach listed %d bits (Count %d) of %d", len(list), c, n)
		}
		// x AND x and x OR x are x, in canonical form: the form Encode
		// gives, and a fixed point of the merge.
		for _, op := range []func([]byte, []byte, []byte) ([]byte, error){And, Or} {
			y, err := op(nil, data, data)
			if err != nil {
				t.Fatalf("And/Or reject a valid encoding: %v", err)
			}
			if m, _ := Count(y); m != c {
				t.Fatalf("x op x has %d bits, x has %d", m, c)
			}
			z, err := op(nil, y, y)
			if err != nil || !bytes.Equal(y, z) {
				t.Fatalf("merging a merged encoding changed it: %v", err)
			}
			if n%64 == 0 {
				dst := make([]uint64, n/64)
				if err := Decode(dst, data); err != nil {
					t.Fatal(err)
				}
				if h, _ := parseHeader(data); h.wb == 4 {
					if !bytes.Equal(y, Encode32(nil, dst)) {
						t.Fatal("merge is not the canonical 32-bit encoding")
					}
				} else if !bytes.Equal(y, Encode64(nil, dst)) {
					t.Fatal("merge is not the canonical 64-bit encoding")
				}
			}
		}
	})
}

// FuzzRoundTrip encodes arbitrary bitmaps with every variant and checks all
// operations against the dense bitmap. With rle set, the bytes are run
// lengths of alternating zeros and ones, which reaches long runs and run ends
// at every offset from a group boundary.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{}, false)
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, false)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x80}, false)
	f.Add([]byte{31, 31, 62, 1, 200, 63, 126}, true)
	f.Fuzz(checkRoundTrip)
}

// checkRoundTrip is the body of FuzzRoundTrip.
func checkRoundTrip(t *testing.T, data []byte, rle bool) {
	var b []uint64
	if rle {
		// Runs of up to 8128 bits, 2^14 bits in all.
		var n int64
		for k, c := range data {
			if n+int64(c)*int64(c)/8 > 1<<14 {
				data = data[:k]
				break
			}
			n += int64(c) * int64(c) / 8
		}
		b = make([]uint64, (n+63)/64)
		one := false
		i := int64(0)
		for _, c := range data {
			l := int64(c) * int64(c) / 8
			if one {
				setRange(b, i, i+l)
			}
			i += l
			one = !one
		}
	} else {
		// Up to 128 words: every group alignment for both widths, cheap
		// enough per run.
		b = fromBytes(data[:min(len(data), 1024)])
	}
	// A second operand: b shifted by a few bits, with a different
	// pattern in its first word.
	c := make([]uint64, len(b))
	for i := range c {
		c[i] = b[i] << 3
		if i > 0 {
			c[i] |= b[i-1] >> 61
		}
	}
	if len(c) > 0 {
		c[0] ^= 0xf0f0f0f0f0f0f0f0
	}
	for _, v := range variants {
		ea := v.encode(nil, b)
		checkEncoding(t, ea, b)
		eb := v.encode(nil, c)
		for _, and := range []bool{true, false} {
			got, err := v.merge(nil, ea, eb, and)
			if err != nil {
				t.Fatalf("%s: %v", v.name, err)
			}
			want := denseOp(b, c, and)
			if !bytes.Equal(got, v.encode(nil, want)) {
				t.Fatalf("%s and=%v: merge differs from encoding the dense result", v.name, and)
			}
			checkEncoding(t, got, want)
		}
	}
}
