package wah

// Tests named for what Lv et al. (Compression and Sieve, 2012) §IV, Alg. 2
// and Table III and Wu, Otoo and Shoshani (ACM TODS 31(1), 2006) specify of
// the word-aligned hybrid code; both are cited in full in the package doc.

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// words32 returns the word section of a 32-bit encoding.
func words32(t *testing.T, enc []byte) []uint32 {
	t.Helper()
	h, err := parseHeader(enc)
	if err != nil {
		t.Fatal(err)
	}
	if h.wb != 4 {
		t.Fatalf("encoding has %d-byte words, want 4", h.wb)
	}
	w := make([]uint32, len(h.body)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(h.body[4*i:])
	}
	return w
}

// TestLiteralAndFillWords_TableIII checks the three kinds of WAH word of Wu
// et al. and Lv et al. §IV (Table III, there with 4-bit words) in 32-bit
// words: a literal word has its top bit clear and carries one group of 31
// bitmap bits; a fill word has its top bit set, the fill bit next, and the
// length of the run in groups below; the last bits, fewer than a group, go
// into the active word. The 320-bit bitmap below is groups 0 (bits 0 and
// 5), 1–5 (zeros), 6–7 (ones), 8 (its last bit), 9 (zeros) and the 10
// remaining bits (the last one set).
func TestLiteralAndFillWords_TableIII(t *testing.T) {
	b := make([]uint64, 5) // 320 bits: 10 groups of 31 and 10 bits
	b[0] |= 1 | 1<<5
	setRange(b, 6*31, 8*31)
	b[(8*31+30)/64] |= 1 << ((8*31 + 30) % 64)
	b[4] |= 1 << 63
	want := []uint32{
		0x00000021, // literal: group 0, bits 0 and 5
		0x80000005, // 0-fill of 5 groups
		0xc0000002, // 1-fill of 2 groups
		0x40000000, // literal: group 8, its last (31st) bit
		0x80000001, // 0-fill of 1 group
		0x00000200, // active word: bits 310..319, the last one set
	}
	enc := Encode32(nil, b)
	got := words32(t, enc)
	if !slices.Equal(got, want) {
		t.Fatalf("words %#x, want %#x", got, want)
	}
	for i, w := range got[:len(got)-1] {
		literal := w>>31 == 0
		if literal != (i == 0 || i == 3) {
			t.Errorf("word %d (%#x): literal %v", i, w, literal)
		}
	}
	back := make([]uint64, len(b))
	if err := Decode(back, enc); err != nil || !slices.Equal(back, b) {
		t.Fatalf("Decode: %v, %x, want %x", err, back, b)
	}
}

// TestRunOfZerosIsOneFillWord_SecIV checks the compression Lv et al. §IV
// rely on: a run of zero groups, however long, is one fill word. A 2^22-bit
// bitmap with only its first and last bits set encodes, in either word
// size, as a literal, one 0-fill covering every group in between and the
// active word.
func TestRunOfZerosIsOneFillWord_SecIV(t *testing.T) {
	const nbits = 1 << 22
	b := make([]uint64, nbits/64)
	b[0], b[len(b)-1] = 1, 1<<63
	for _, v := range variants[:2] {
		enc := v.encode(nil, b)
		h, err := parseHeader(enc)
		if err != nil {
			t.Fatal(err)
		}
		g := uint64(8*v.wb - 1)
		if n := len(h.body) / v.wb; n != 3 {
			t.Fatalf("%s: %d words, want a literal, a fill and the active word", v.name, n)
		}
		fill := uint64(binary.LittleEndian.Uint32(h.body[v.wb:]))
		if v.wb == 8 {
			fill = binary.LittleEndian.Uint64(h.body[v.wb:])
		}
		top := uint64(1) << (g)
		if fill&top == 0 || fill&(top>>1) != 0 || fill&(top>>1-1) != nbits/g-1 {
			t.Fatalf("%s: middle word %#x, want a 0-fill of %d groups", v.name, fill, nbits/g-1)
		}
	}
}

// TestDecodeEncodeIsIdentity_Alg2 checks Lv et al. Alg. 2 lines 7 and 9:
// Uncompress(Compress(f)) = f, for both word sizes, on bitmaps from empty
// to dense, of runs and of patterns aligned with the groups; DecodeOr ORs
// the same bitmap into what is there.
func TestDecodeEncodeIsIdentity_Alg2(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 1))
	for name, b := range corpus(rng, true) {
		for _, v := range variants[:2] {
			enc := v.encode(nil, b)
			got := make([]uint64, len(b))
			for i := range got {
				got[i] = rng.Uint64() // Decode must overwrite
			}
			if err := Decode(got, enc); err != nil || !slices.Equal(got, b) {
				t.Fatalf("%s/%s: Decode(Encode(b)) = b is false (err %v)", name, v.name, err)
			}
			or := randomBitmap(rng, len(b), 0.1)
			want := slices.Clone(or)
			for i := range want {
				want[i] |= b[i]
			}
			if err := DecodeOr(or, enc); err != nil || !slices.Equal(or, want) {
				t.Fatalf("%s/%s: DecodeOr(x, Encode(b)) = x|b is false (err %v)", name, v.name, err)
			}
		}
	}
}

// TestSparseSizeFollowsSetBits_SecIV checks why WAH suits BFS frontiers
// (Lv et al. §IV, Wu et al.): a sparse bitmap costs about a fill and a
// literal per set bit, whatever its length. For k set bits more than two
// groups apart, the encoding has between 2k−1 and 2k+2 words, the same
// for a bitmap 16 times longer, and doubling k doubles it.
func TestSparseSizeFollowsSetBits_SecIV(t *testing.T) {
	for _, v := range variants[:2] {
		for _, nbits := range []int64{1 << 18, 1 << 22} {
			prev := 0
			for _, k := range []int64{16, 32, 64, 128, 256, 512, 1024} {
				b := make([]uint64, nbits/64)
				stride := nbits / k
				for i := range k {
					p := i*stride + stride/2
					b[p/64] |= 1 << (p % 64)
				}
				n := wordCount(v.encode(nil, b))
				what := fmt.Sprintf("%s: %d set bits in %d", v.name, k, nbits)
				if int64(n) < 2*k-1 || int64(n) > 2*k+2 {
					t.Errorf("%s: %d words, want 2k−1..2k+2", what, n)
				}
				if prev > 0 && (n < 2*prev-4 || n > 2*prev+4) {
					t.Errorf("%s: %d words, %d for half the bits", what, n, prev)
				}
				prev = n
			}
		}
	}
}
