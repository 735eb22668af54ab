package wah

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// corpus returns named bitmaps covering the shapes the codec must handle.
func corpus(rng *rand.Rand, short bool) map[string][]uint64 {
	c := map[string][]uint64{"empty": {}}
	densities := []float64{0, 1e-6, 1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1}
	lengths := []int{1, 2, 3, 31, 63, 64, 65, 1000, 1 << 14}
	if short {
		lengths = lengths[:8]
	}
	for _, words := range lengths {
		for _, p := range densities {
			c[fmt.Sprintf("words=%d/p=%g", words, p)] = randomBitmap(rng, words, p)
		}
		for _, l := range []int64{40, 700, 5000, 100000} {
			c[fmt.Sprintf("words=%d/runs≤%d", words, l)] = runBitmap(rng, words, l)
		}
	}
	for _, w := range []uint64{1, 1 << 63, 0x5555555555555555, 0xaaaaaaaaaaaaaaaa, 0x7fffffffffffffff, 0xfffffffffffffffe, 0x00000000ffffffff, 0x8000000080000000} {
		c[fmt.Sprintf("word=%#x", w)] = []uint64{w}
		rep := make([]uint64, 200)
		for i := range rep {
			rep[i] = w
		}
		c[fmt.Sprintf("repeat=%#x", w)] = rep
	}
	// Group-aligned patterns: alternate whole groups of zeros and ones, and
	// runs that start or end one bit before, at, or after a group boundary.
	for _, g := range []int64{31, 63} {
		alt := make([]uint64, 100)
		for i := int64(0); i+g <= 6400; i += 2 * g {
			setRange(alt, i, i+g)
		}
		c[fmt.Sprintf("alternate-groups-%d", g)] = alt
		for _, d := range []int64{-1, 0, 1} {
			b := make([]uint64, 100)
			for k := int64(1); k*g*7+d < 6400-3*g; k++ {
				lo := k*g*7 + d
				setRange(b, lo, lo+3*g+d)
			}
			c[fmt.Sprintf("boundary-%d%+d", g, d)] = b
			one := make([]uint64, 50)
			for k := int64(1); k*g+d < 3200; k++ {
				i := k*g + d
				one[i>>6] |= 1 << (uint64(i) & 63)
			}
			c[fmt.Sprintf("edge-bits-%d%+d", g, d)] = one
		}
	}
	// Long runs of each bit with a few stray bits.
	long := make([]uint64, 1<<12)
	setRange(long, 1000, 150000)
	setRange(long, 200000, 262143)
	long[100] = 1 << 7
	long[2500] = 1 << 60
	c["long-runs"] = long
	return c
}

// checkEncoding runs every read-side operation on enc and compares it with
// the dense bitmap b.
func checkEncoding(t *testing.T, enc []byte, b []uint64) {
	t.Helper()
	if err := Validate(enc); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if n, err := Bits(enc); err != nil || n != 64*int64(len(b)) {
		t.Fatalf("Bits = %d, %v; want %d", n, err, 64*len(b))
	}
	if n, err := Count(enc); err != nil || n != popcount(b) {
		t.Fatalf("Count = %d, %v; want %d", n, err, popcount(b))
	}
	got := make([]uint64, len(b))
	for i := range got {
		got[i] = 0x0123456789abcdef * uint64(i+1) // must be overwritten
	}
	if err := Decode(got, enc); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if !slices.Equal(got, b) {
		t.Fatalf("Decode differs from the input")
	}
	base := make([]uint64, len(b))
	for i := range base {
		base[i] = 0x0000ffff0f0f0001 << (i % 5)
	}
	want := denseOp(base, b, false)
	if err := DecodeOr(base, enc); err != nil {
		t.Fatalf("DecodeOr: %v", err)
	}
	if !slices.Equal(base, want) {
		t.Fatalf("DecodeOr differs from dense OR")
	}
	checkForEach(t, enc, b)
}

// checkForEach compares ForEach on enc with the set bits of b, walking both
// in step.
func checkForEach(t *testing.T, enc []byte, b []uint64) {
	t.Helper()
	wi, w := -1, uint64(0) // next set bit of b: lowest bit of w, in word wi
	bad := int64(-1)
	err := ForEach(enc, func(i int64) {
		for w == 0 && wi < len(b) {
			if wi++; wi < len(b) {
				w = b[wi]
			}
		}
		if w == 0 || int64(wi)<<6|int64(bits.TrailingZeros64(w)) != i {
			if bad < 0 {
				bad = i
			}
			return
		}
		w &= w - 1
	})
	if err != nil {
		t.Fatalf("ForEach: %v", err)
	}
	if bad >= 0 {
		t.Fatalf("ForEach listed %d, not the next set bit", bad)
	}
	for ; w == 0 && wi+1 < len(b); wi++ {
		w = b[wi+1]
	}
	if w != 0 {
		t.Fatalf("ForEach stopped before bit %d", int64(wi)<<6|int64(bits.TrailingZeros64(w)))
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, b := range corpus(rng, testing.Short()) {
		for _, v := range variants {
			t.Run(name+"/"+v.name, func(t *testing.T) {
				prefix := []byte("prefix")
				enc := v.encode(slices.Clone(prefix), b)
				if !bytes.HasPrefix(enc, prefix) {
					t.Fatal("Encode did not append to dst")
				}
				enc = enc[len(prefix):]
				if wb, _ := WordBits(enc); wb != 8*v.wb {
					t.Fatalf("WordBits = %d, want %d", wb, 8*v.wb)
				}
				g := 8*v.wb - 1
				if max := (64*len(b))/g + 1; wordCount(enc) > max {
					t.Fatalf("%d words, more than one per group (%d)", wordCount(enc), max)
				}
				checkEncoding(t, enc, b)
			})
		}
	}
}

func TestExportedEncoders(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := randomBitmap(rng, 500, 0.01)
	if !bytes.Equal(Encode32(nil, b), encode[uint32](nil, b, maxRun32)) {
		t.Fatal("Encode32 is not the 32-bit encoder")
	}
	if !bytes.Equal(Encode64(nil, b), encode[uint64](nil, b, maxRun64)) {
		t.Fatal("Encode64 is not the 64-bit encoder")
	}
	if wb, _ := WordBits(Encode(nil, b)); wb != DefaultWordBits {
		t.Fatalf("Encode uses %d-bit words, DefaultWordBits is %d", wb, DefaultWordBits)
	}
	if maxRun[uint32]() != maxRun32 || maxRun[uint64]() != maxRun64 {
		t.Fatal("maxRun constants disagree with the word layout")
	}
}

// TestKnownEncodings pins the format: the 32-bit case is Lv et al.'s Table
// III with 32-bit words — a literal, a 0-fill and the active word.
func TestKnownEncodings(t *testing.T) {
	b := []uint64{1, 0}
	want32 := []byte{'W', 0x14, 0x80, 0x01, // magic, version 1 / 4-byte words, 128 bits
		0x01, 0x00, 0x00, 0x00, // literal: bits 0..30, bit 0 set
		0x03, 0x00, 0x00, 0x80, // 0-fill of 3 groups (bits 31..123)
		0x00, 0x00, 0x00, 0x00, // active word: bits 124..127
	}
	if got := Encode32(nil, b); !bytes.Equal(got, want32) {
		t.Fatalf("Encode32 = % x\nwant       % x", got, want32)
	}
	want64 := []byte{'W', 0x18, 0x80, 0x01,
		0x01, 0, 0, 0, 0, 0, 0, 0x00, // literal: bits 0..62
		0x01, 0, 0, 0, 0, 0, 0, 0x80, // 0-fill of 1 group (bits 63..125)
		0x00, 0, 0, 0, 0, 0, 0, 0x00, // active word: bits 126..127
	}
	if got := Encode64(nil, b); !bytes.Equal(got, want64) {
		t.Fatalf("Encode64 = % x\nwant       % x", got, want64)
	}
	ones := []uint64{^uint64(0), ^uint64(0)}
	want := []byte{'W', 0x14, 0x80, 0x01,
		0x04, 0x00, 0x00, 0xc0, // 1-fill of 4 groups (bits 0..123)
		0x0f, 0x00, 0x00, 0x00, // active word: 4 ones
	}
	if got := Encode32(nil, ones); !bytes.Equal(got, want) {
		t.Fatalf("Encode32(ones) = % x\nwant           % x", got, want)
	}
	if got := Encode32(nil, nil); !bytes.Equal(got, []byte{'W', 0x14, 0}) {
		t.Fatalf("Encode32(empty) = % x", got)
	}
}

func TestSizeBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, v := range variants[:2] {
		for _, words := range []int{0, 1, 1 << 14, 1 << 18} {
			for _, p := range []float64{0, 1} {
				b := randomBitmap(rng, words, p)
				enc := v.encode(nil, b)
				// One fill (none if empty) and at most one active word.
				if words := wordCount(enc); words > 2 || len(enc) > headerLen(uint64(64*len(b)))+2*v.wb {
					t.Errorf("%s: %d-word bitmap of density %g takes %d bytes (%d words)", v.name, len(b), p, len(enc), words)
				}
			}
		}
		// Sparse bitmaps: density 1e-4 over 2^20 bits in under 3% of raw.
		b := randomBitmap(rng, 1<<14, 1e-4)
		enc := v.encode(nil, b)
		raw := 8 * len(b)
		if 100*len(enc) >= 3*raw {
			t.Errorf("%s: density 1e-4 over 2^20 bits: %d bytes, %.2f%% of raw", v.name, len(enc), 100*float64(len(enc))/float64(raw))
		}
		// At most a fill and a literal per set bit, plus the ends.
		if max := 2*popcount(b) + 2; int64(wordCount(enc)) > max {
			t.Errorf("%s: %d words for %d set bits", v.name, wordCount(enc), popcount(b))
		}
	}
}

// TestFillSplit checks runs longer than the fill counter: with a counter of
// m groups, a run of n groups takes ⌈n/m⌉ fill words, full ones first.
func TestFillSplit(t *testing.T) {
	for _, v := range variants[2:] {
		g := 8*v.wb - 1
		for _, words := range []int{1, 7, 64, 1000} {
			for _, fill := range []uint64{0, ^uint64(0)} {
				b := make([]uint64, words)
				for i := range b {
					b[i] = fill
				}
				enc := v.encode(nil, b)
				groups := uint64(64 * words / g)
				want := int((groups + v.maxRun - 1) / v.maxRun)
				if 64*words%g != 0 {
					want++
				}
				if got := wordCount(enc); got != want {
					t.Errorf("%s: %d words of %#x: %d WAH words, want %d", v.name, words, fill, got, want)
				}
				checkEncoding(t, enc, b)
				h, _ := parseHeader(enc)
				for i := 0; uint64(i) < groups/v.maxRun; i++ {
					var x uint64
					if v.wb == 4 {
						x = load[uint32](h.body, i)
					} else {
						x = load[uint64](h.body, i)
					}
					if x&(uint64(1)<<(g-1)-1) != v.maxRun {
						t.Fatalf("%s: fill word %d is %#x, want a full counter", v.name, i, x)
					}
				}
			}
		}
	}
}

// TestHugeRuns builds encodings with runs no dense test bitmap could hold and
// checks that the compressed-domain operations handle them in O(words).
func TestHugeRuns(t *testing.T) {
	// 32 bits: two full 1-fills (the counter holds 2^30−1 groups) then a 0-fill.
	n32 := uint64(3 * maxRun32 * 31)
	enc32 := appendHeader(nil, 4, n32)
	for _, x := range []uint64{0xc0000000 | maxRun32, 0xc0000000 | maxRun32, 0x80000000 | maxRun32} {
		enc32 = appendWord[uint32](enc32, x)
	}
	// 64 bits: the largest bitmap, all ones, one fill and the active word.
	g := uint64(63)
	enc64 := appendHeader(nil, 8, MaxBits)
	enc64 = appendWord[uint64](enc64, 0xc000000000000000|MaxBits/g)
	enc64 = appendWord[uint64](enc64, 1<<(MaxBits%g)-1)
	for _, c := range []struct {
		enc         []byte
		bits, count int64
	}{{enc32, int64(n32), 2 * maxRun32 * 31}, {enc64, MaxBits, MaxBits}} {
		if err := Validate(c.enc); err != nil {
			t.Fatal(err)
		}
		if n, _ := Bits(c.enc); n != c.bits {
			t.Fatalf("Bits = %d, want %d", n, c.bits)
		}
		if n, _ := Count(c.enc); n != c.count {
			t.Fatalf("Count = %d, want %d", n, c.count)
		}
		and, err := And(nil, c.enc, c.enc)
		if err != nil || !bytes.Equal(and, c.enc) {
			t.Fatalf("And(x, x) = % x, %v; want % x", and, err, c.enc)
		}
		if err := Decode(make([]uint64, 4), c.enc); !errors.Is(err, ErrBitCount) {
			t.Fatalf("Decode into 4 words: %v, want ErrBitCount", err)
		}
	}
	// Merging runs longer than the counter splits the output the same way.
	a := appendHeader(nil, 4, 4*maxRun32*31)
	a = appendWord[uint32](a, 0x80000000|maxRun32)
	a = appendWord[uint32](a, 0xc0000000|maxRun32)
	a = appendWord[uint32](a, 0xc0000000|maxRun32)
	a = appendWord[uint32](a, 0x80000000|maxRun32)
	b := appendHeader(nil, 4, 4*maxRun32*31)
	b = appendWord[uint32](b, 0x80000000|1)
	for _, n := range []uint64{maxRun32 - 1, maxRun32, maxRun32, maxRun32 - 1} {
		b = appendWord[uint32](b, 0xc0000000|n) // not canonical: Or repacks it
	}
	b = appendWord[uint32](b, 0x80000000|1)
	or, err := Or(nil, a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := appendHeader(nil, 4, 4*maxRun32*31)
	want = appendWord[uint32](want, 0x80000000|1)
	for _, n := range []uint64{maxRun32, maxRun32, maxRun32, maxRun32 - 2} {
		want = appendWord[uint32](want, 0xc0000000|n)
	}
	want = appendWord[uint32](want, 0x80000000|1)
	if !bytes.Equal(or, want) {
		t.Fatalf("Or = % x\nwant % x", or, want)
	}
	if n, _ := Count(or); n != (4*maxRun32-2)*31 {
		t.Fatalf("Count(Or) = %d", n)
	}
}

func TestAndOr(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	c := corpus(rng, true)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range c {
			if !yield(k) {
				return
			}
		}
	})
	for _, v := range variants {
		for i, na := range names {
			a := c[na]
			// Pair each bitmap with a few others of the same length.
			for j := 1; j <= 3; j++ {
				nb := names[(i+j*7)%len(names)]
				b := c[nb]
				if len(b) != len(a) {
					b = randomBitmap(rng, len(a), []float64{0, 0.001, 0.3, 1}[j])
				}
				ea, eb := v.encode(nil, a), v.encode(nil, b)
				for _, and := range []bool{true, false} {
					want := denseOp(a, b, and)
					got, err := v.merge([]byte("x"), ea, eb, and)
					if err != nil {
						t.Fatalf("%s %s and=%v %s: %v", v.name, na, and, nb, err)
					}
					got = got[1:]
					checkEncoding(t, got, want)
					// The merged encoding is canonical: the one Encode gives.
					if enc := v.encode(nil, want); !bytes.Equal(got, enc) {
						t.Fatalf("%s %s and=%v %s: merged encoding is not canonical", v.name, na, and, nb)
					}
					if v.full() {
						op := Or
						if and {
							op = And
						}
						exp, err := op(nil, ea, eb)
						if err != nil || !bytes.Equal(exp, got) {
							t.Fatalf("exported op disagrees: %v", err)
						}
					}
				}
			}
		}
	}
}

func TestAndOrMismatch(t *testing.T) {
	b := make([]uint64, 10)
	for _, c := range [][2][]byte{
		{Encode32(nil, b), Encode64(nil, b)},
		{Encode64(nil, b), Encode64(nil, b[:9])},
	} {
		for _, op := range []func([]byte, []byte, []byte) ([]byte, error){And, Or} {
			dst := []byte("keep")
			got, err := op(dst, c[0], c[1])
			if !errors.Is(err, ErrMismatch) || string(got) != "keep" {
				t.Fatalf("got %q, %v; want ErrMismatch and dst unchanged", got, err)
			}
		}
	}
	good := Encode64(nil, b)
	bad := slices.Clone(good)
	bad = bad[:len(bad)-1]
	for _, op := range []func([]byte, []byte, []byte) ([]byte, error){And, Or} {
		if _, err := op(nil, good, bad); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated operand: %v", err)
		}
	}
}

func TestAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	b := randomBitmap(rng, 1<<12, 0.01)
	c := randomBitmap(rng, 1<<12, 0.2)
	for _, enc := range []func([]byte, []uint64) []byte{Encode, Encode32, Encode64} {
		ea := enc(nil, b)
		eb := enc(nil, c)
		buf := make([]byte, 0, 2*len(ea)+2*len(eb))
		dst := make([]uint64, len(b))
		for name, f := range map[string]func(){
			"Encode":   func() { buf = enc(buf[:0], b) },
			"Decode":   func() { _ = Decode(dst, ea) },
			"DecodeOr": func() { _ = DecodeOr(dst, eb) },
			"Count":    func() { _, _ = Count(ea) },
			"ForEach":  func() { _ = ForEach(ea, func(int64) {}) },
			"And":      func() { buf, _ = And(buf[:0], ea, eb) },
			"Or":       func() { buf, _ = Or(buf[:0], ea, eb) },
		} {
			if n := testing.AllocsPerRun(10, f); n != 0 {
				t.Errorf("%s: %v allocations per run", name, n)
			}
		}
	}
}
