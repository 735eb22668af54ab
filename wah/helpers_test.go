package wah

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// variant is one way of encoding: a word width and a fill counter limit.
// The exported encoders use the full counter; the others split runs after a
// few groups, so that small bitmaps exercise runs longer than the counter.
type variant struct {
	name   string
	wb     int
	maxRun uint64
}

func (v variant) encode(dst []byte, src []uint64) []byte {
	if v.wb == 4 {
		return encode[uint32](dst, src, v.maxRun)
	}
	return encode[uint64](dst, src, v.maxRun)
}

// merge runs And or Or with the variant's counter limit.
func (v variant) merge(dst, a, b []byte, and bool) ([]byte, error) {
	ha, err := parseHeader(a)
	if err != nil {
		return dst, err
	}
	hb, err := parseHeader(b)
	if err != nil {
		return dst, err
	}
	if v.wb == 4 {
		return merge[uint32](dst, ha.body, hb.body, ha.nbits, and, v.maxRun)
	}
	return merge[uint64](dst, ha.body, hb.body, ha.nbits, and, v.maxRun)
}

func (v variant) full() bool {
	return v.maxRun == maxRun32 || v.maxRun == maxRun64
}

var variants = []variant{
	{"w32", 4, maxRun32},
	{"w64", 8, maxRun64},
	{"w32run1", 4, 1},
	{"w32run3", 4, 3},
	{"w64run2", 8, 2},
}

// randomBitmap returns words·64 bits, each set with probability p, drawn
// with geometric gaps so that sparse bitmaps cost time proportional to
// their set bits.
func randomBitmap(rng *rand.Rand, words int, p float64) []uint64 {
	b := make([]uint64, words)
	n := int64(words) * 64
	switch {
	case p <= 0:
		return b
	case p >= 1:
		for i := range b {
			b[i] = ^uint64(0)
		}
		return b
	case p == 0.5:
		for i := range b {
			b[i] = rng.Uint64()
		}
		return b
	}
	l := math.Log1p(-p)
	for i := int64(-1); ; {
		gap := int64(math.Log(1-rng.Float64())/l) + 1
		if gap <= 0 || i+gap >= n {
			return b
		}
		i += gap
		b[i>>6] |= 1 << (uint64(i) & 63)
	}
}

// runBitmap returns a bitmap of alternating runs of zeros and ones, with run
// lengths drawn from [1, maxLen].
func runBitmap(rng *rand.Rand, words int, maxLen int64) []uint64 {
	b := make([]uint64, words)
	n := int64(words) * 64
	one := rng.IntN(2) == 1
	for i := int64(0); i < n; {
		l := min(1+rng.Int64N(maxLen), n-i)
		if one {
			setRange(b, i, i+l)
		}
		i += l
		one = !one
	}
	return b
}

// setRange sets bits [lo, hi).
func setRange(b []uint64, lo, hi int64) {
	for i := lo; i < hi; {
		if i&63 == 0 && hi-i >= 64 {
			b[i>>6] = ^uint64(0)
			i += 64
			continue
		}
		b[i>>6] |= 1 << (uint64(i) & 63)
		i++
	}
}

func popcount(b []uint64) int64 {
	var n int
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return int64(n)
}

func setBits(b []uint64) []int64 {
	out := make([]int64, 0, popcount(b))
	for i, w := range b {
		for ; w != 0; w &= w - 1 {
			out = append(out, int64(i)<<6|int64(bits.TrailingZeros64(w)))
		}
	}
	return out
}

func denseOp(a, b []uint64, and bool) []uint64 {
	out := make([]uint64, len(a))
	for i := range a {
		if and {
			out[i] = a[i] & b[i]
		} else {
			out[i] = a[i] | b[i]
		}
	}
	return out
}

// wordCount is the number of WAH words after the header of enc.
func wordCount(enc []byte) int {
	h, err := parseHeader(enc)
	if err != nil {
		return -1
	}
	return len(h.body) / h.wb
}

// headerLen is the header size of an encoding of n bits.
func headerLen(n uint64) int {
	return len(appendHeader(nil, 8, n))
}

// fromBytes turns arbitrary bytes into a dense bitmap, 8 little-endian bytes
// per word, the last word zero-padded.
func fromBytes(data []byte) []uint64 {
	b := make([]uint64, (len(data)+7)/8)
	for i, c := range data {
		b[i/8] |= uint64(c) << (8 * (i % 8))
	}
	return b
}
