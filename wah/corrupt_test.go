package wah

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// validEncodings returns encodings, with their bitmaps, for corruption.
func validEncodings(rng *rand.Rand) (encs [][]byte, maps [][]uint64) {
	for _, words := range []int{1, 2, 17, 300} {
		for _, p := range []float64{0, 0.001, 0.05, 0.5, 0.99, 1} {
			b := randomBitmap(rng, words, p)
			for _, v := range variants {
				encs = append(encs, v.encode(nil, b))
				maps = append(maps, b)
			}
		}
		b := runBitmap(rng, words, 300)
		for _, v := range variants {
			encs = append(encs, v.encode(nil, b))
			maps = append(maps, b)
		}
	}
	return encs, maps
}

// exercise runs every entry point on enc and checks they agree with each
// other: whatever the input, nothing panics, and an encoding Decode accepts
// is one Validate accepts, with the same Count and set bits.
func exercise(t *testing.T, enc []byte, words int) (decoded []uint64, err error) {
	t.Helper()
	verr := Validate(enc)
	nbits, berr := Bits(enc)
	if berr != nil && verr == nil {
		t.Fatalf("Validate accepts what Bits rejects: %v", berr)
	}
	cnt, cerr := Count(enc)
	if (cerr == nil) != (verr == nil) {
		t.Fatalf("Count and Validate disagree: %v / %v", cerr, verr)
	}
	dst := make([]uint64, words)
	derr := Decode(dst, enc)
	or := make([]uint64, words)
	for i := range or {
		or[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	base := slices.Clone(or)
	oerr := DecodeOr(or, enc)
	if (derr == nil) != (oerr == nil) {
		t.Fatalf("Decode and DecodeOr disagree: %v / %v", derr, oerr)
	}
	if derr != nil {
		if !errors.Is(derr, ErrCorrupt) && !errors.Is(derr, ErrBitCount) {
			t.Fatalf("Decode error wraps no sentinel: %v", derr)
		}
		if verr == nil && nbits == 64*int64(words) {
			t.Fatalf("Validate accepts what Decode rejects: %v", derr)
		}
		return nil, derr
	}
	if verr != nil {
		t.Fatalf("Decode accepts what Validate rejects: %v", verr)
	}
	if !slices.Equal(or, denseOp(base, dst, false)) {
		t.Fatal("DecodeOr differs from Decode ORed in")
	}
	if cnt != popcount(dst) {
		t.Fatalf("Count %d, decoded bitmap has %d", cnt, popcount(dst))
	}
	var list []int64
	if err := ForEach(enc, func(i int64) { list = append(list, i) }); err != nil {
		t.Fatalf("ForEach: %v", err)
	}
	if !slices.Equal(list, setBits(dst)) {
		t.Fatal("ForEach differs from the decoded bitmap")
	}
	return dst, nil
}

func TestTruncated(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	encs, maps := validEncodings(rng)
	for k, enc := range encs {
		for n := range len(enc) {
			if _, err := exercise(t, enc[:n], len(maps[k])); err == nil {
				t.Fatalf("encoding %d truncated to %d of %d bytes decodes", k, n, len(enc))
			}
			if Validate(enc[:n]) == nil {
				t.Fatalf("encoding %d truncated to %d of %d bytes validates", k, n, len(enc))
			}
		}
		// Extra bytes are an error too.
		for _, tail := range [][]byte{{0}, {0, 0, 0, 0}, make([]byte, 8)} {
			if Validate(append(slices.Clone(enc), tail...)) == nil {
				t.Fatalf("encoding %d with %d extra bytes validates", k, len(tail))
			}
		}
	}
}

func TestByteFlips(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	encs, maps := validEncodings(rng)
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	for range rounds {
		k := rng.IntN(len(encs))
		enc := slices.Clone(encs[k])
		for range 1 + rng.IntN(3) {
			i := rng.IntN(len(enc))
			if rng.IntN(2) == 0 {
				enc[i] ^= 1 << rng.IntN(8)
			} else {
				enc[i] = byte(rng.Uint32())
			}
		}
		if dst, err := exercise(t, enc, len(maps[k])); err == nil {
			// A flip that still decodes must re-encode to the same bitmap.
			h, _ := parseHeader(enc)
			re := encode[uint64](nil, dst, maxRun64)
			if h.wb == 4 {
				re = encode[uint32](nil, dst, maxRun32)
			}
			got := make([]uint64, len(dst))
			if err := Decode(got, re); err != nil || !slices.Equal(got, dst) {
				t.Fatalf("re-encoding a decoded flip: %v", err)
			}
		}
	}
}

func TestWrongBitCount(t *testing.T) {
	for _, enc := range [][]byte{Encode32(nil, make([]uint64, 10)), Encode64(nil, make([]uint64, 10))} {
		for _, words := range []int{0, 1, 9, 11, 1000} {
			for _, f := range []func([]uint64, []byte) error{Decode, DecodeOr} {
				if err := f(make([]uint64, words), enc); !errors.Is(err, ErrBitCount) {
					t.Fatalf("decoding 640 bits into %d words: %v", words, err)
				}
			}
		}
	}
}

func TestMalformed(t *testing.T) {
	dst := make([]uint64, 4) // 256 bits: 8 groups of 31 + 8 bits, 4 groups of 63 + 4 bits
	w32 := func(words ...uint64) []byte {
		b := appendHeader(nil, 4, 256)
		for _, x := range words {
			b = appendWord[uint32](b, x)
		}
		return b
	}
	w64 := func(words ...uint64) []byte {
		b := appendHeader(nil, 8, 256)
		for _, x := range words {
			b = appendWord[uint64](b, x)
		}
		return b
	}
	good32 := w32(0x80000008, 0)
	good64 := w64(0x8000000000000004, 0)
	for _, good := range [][]byte{good32, good64} {
		if err := Decode(dst, good); err != nil {
			t.Fatalf("baseline % x: %v", good, err)
		}
	}
	cases := map[string][]byte{
		"empty":             {},
		"magic only":        {'W'},
		"bad magic":         append([]byte{'X'}, good32[1:]...),
		"bad version":       append([]byte{'W', 0x24}, good32[2:]...),
		"bad word size":     append([]byte{'W', 0x12}, good32[2:]...),
		"no bit count":      {'W', 0x14},
		"varint overflow":   {'W', 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"too many bits":     binaryHeader(8, MaxBits+1),
		"half word":         append(slices.Clone(good32), 1, 2),
		"zero fill 32":      w32(0x80000000, 0x80000008, 0),
		"zero fill 64":      w64(0x8000000000000000, 0x8000000000000004, 0),
		"fill overrun 32":   w32(0x80000009, 0),
		"fill overrun 64":   w64(0x8000000000000005, 0),
		"huge fill 32":      w32(0xbfffffff, 0),
		"huge fill 64":      w64(0xbfffffffffffffff, 0),
		"huge 1-fill 64":    w64(0xffffffffffffffff, 0),
		"split overrun":     w32(0x80000004, 0x80000004, 0x80000001, 0),
		"missing active 32": w32(0x80000008),
		"missing active 64": w64(0x8000000000000004),
		"missing group":     w32(0x80000007, 0),
		"extra word":        w32(0x80000008, 0, 0),
		"active high bits":  w32(0x80000008, 0x100),
		"active flag":       w32(0x80000008, 0x80000000),
		"active high 64":    w64(0x8000000000000004, 0x10),
		"only header":       binaryHeader(4, 256),
	}
	for name, enc := range cases {
		if _, err := exercise(t, enc, len(dst)); err == nil {
			t.Errorf("%s: % x decodes", name, enc)
		}
		if Validate(enc) == nil {
			t.Errorf("%s: % x validates", name, enc)
		}
		for _, op := range []func([]byte, []byte, []byte) ([]byte, error){And, Or} {
			if _, err := op(nil, enc, enc); err == nil {
				t.Errorf("%s: And/Or accept % x", name, enc)
			}
			if _, err := op(nil, good32, enc); err == nil {
				t.Errorf("%s: And/Or accept % x as second operand", name, enc)
			}
		}
	}
}

func binaryHeader(wb int, n uint64) []byte {
	return append([]byte{'W', 1<<4 | byte(wb)}, appendUvarint(n)...)
}

func appendUvarint(n uint64) []byte {
	var b []byte
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}

// TestNoAllocForClaims checks that a claimed size costs nothing: decoding,
// counting or walking encodings that claim the largest bitmaps allocates no
// more than the error message.
func TestNoAllocForClaims(t *testing.T) {
	claims := [][]byte{
		binaryHeader(8, MaxBits),
		append(binaryHeader(8, MaxBits), appendWord[uint64](nil, 0xffffffffffffffff)...),
		// A valid 1-fill over the whole bitmap, then a bad active word.
		appendWord[uint64](appendWord[uint64](binaryHeader(8, MaxBits), 0xc000000000000000|MaxBits/63), 0x10),
		append(binaryHeader(4, 1<<40), appendWord[uint32](nil, 0xffffffff)...),
		appendWord[uint32](appendWord[uint32](binaryHeader(4, 1<<40), 0xffffffff), 0xffffffff),
	}
	dst := make([]uint64, 16)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		for _, c := range claims {
			if Decode(dst, c) == nil || DecodeOr(dst, c) == nil || Validate(c) == nil {
				t.Fatalf("% x accepted", c)
			}
			if ForEach(c, func(int64) { t.Fatal("ForEach called fn on a corrupt encoding") }) == nil {
				t.Fatalf("ForEach accepted % x", c)
			}
			if _, err := And(nil, c, c); err == nil {
				t.Fatalf("And accepted % x", c)
			}
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 100; per > 8<<10 {
		t.Fatalf("%d bytes allocated per round of huge claims", per)
	}
}
