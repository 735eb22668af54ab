package wah

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Throughput is in bytes of dense bitmap per second (b.SetBytes is the raw
// size); the "ratio" metric is the encoded size over the raw size.
// benchCase is a bitmap size and the density of its set bits.
type benchCase struct {
	bits    int
	density float64
}

var benchCases = []benchCase{
	{1 << 20, 1e-4}, {1 << 20, 1e-2}, {1 << 20, 0.1}, {1 << 20, 0.5},
	{1 << 24, 1e-4}, {1 << 24, 1e-2}, {1 << 24, 0.1}, {1 << 24, 0.5},
}

var benchWidths = []struct {
	name string
	enc  func([]byte, []uint64) []byte
}{{"w32", Encode32}, {"w64", Encode64}}

func BenchmarkEncode(b *testing.B) {
	for _, c := range benchCases {
		src := randomBitmap(rand.New(rand.NewPCG(uint64(c.bits), 1)), c.bits/64, c.density)
		for _, w := range benchWidths {
			b.Run(fmt.Sprintf("%s/bits=2^%d/p=%g", w.name, log2(c.bits), c.density), func(b *testing.B) {
				dst := w.enc(nil, src)
				b.SetBytes(int64(8 * len(src)))
				for b.Loop() {
					dst = w.enc(dst[:0], src)
				}
				b.ReportMetric(float64(len(dst))/float64(8*len(src)), "ratio")
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) { benchmarkDecoder(b, benchCases, Decode) }

func BenchmarkDecodeOr(b *testing.B) { benchmarkDecoder(b, benchCases[:4], DecodeOr) }

// benchmarkDecoder times decode over the encoding of every case, in every
// width.
func benchmarkDecoder(b *testing.B, cases []benchCase, decode func(dst []uint64, src []byte) error) {
	for _, c := range cases {
		src := randomBitmap(rand.New(rand.NewPCG(uint64(c.bits), 1)), c.bits/64, c.density)
		for _, w := range benchWidths {
			b.Run(fmt.Sprintf("%s/bits=2^%d/p=%g", w.name, log2(c.bits), c.density), func(b *testing.B) {
				enc := w.enc(nil, src)
				dst := make([]uint64, len(src))
				b.SetBytes(int64(8 * len(src)))
				for b.Loop() {
					if err := decode(dst, enc); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkOr(b *testing.B) {
	for _, c := range benchCases[:4] {
		rng := rand.New(rand.NewPCG(uint64(c.bits), 2))
		x := randomBitmap(rng, c.bits/64, c.density)
		y := randomBitmap(rng, c.bits/64, c.density)
		for _, w := range benchWidths {
			b.Run(fmt.Sprintf("%s/bits=2^%d/p=%g", w.name, log2(c.bits), c.density), func(b *testing.B) {
				ex, ey := w.enc(nil, x), w.enc(nil, y)
				dst, _ := Or(nil, ex, ey)
				b.SetBytes(int64(8 * len(x)))
				for b.Loop() {
					dst, _ = Or(dst[:0], ex, ey)
				}
			})
		}
	}
}

func log2(n int) int {
	k := 0
	for ; n > 1; n >>= 1 {
		k++
	}
	return k
}
