package frontier

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkCodecs measures every codec over frontiers of 2^20 bits at
// densities 1e-4, 1e-2 and 0.2: MB/s of raw bitmap, and the encoded size as
// a fraction of raw (ratio).
func BenchmarkCodecs(b *testing.B) {
	const words = 1 << 14
	for _, d := range []float64{1e-4, 1e-2, 0.2} {
		src := randomBitmap(rand.New(rand.NewPCG(17, 18)), words, d)
		for _, name := range Names() {
			c := mustNew(b, name)
			msg, err := c.Encode(nil, src)
			if err != nil {
				b.Fatal(err)
			}
			ratio := float64(len(msg)) / float64(8*words)
			dst := make(Bitmap, words)
			b.Run(fmt.Sprintf("encode/%s/d=%g", name, d), func(b *testing.B) {
				b.SetBytes(8 * words)
				buf := make([]byte, 0, len(msg))
				for b.Loop() {
					buf, _ = c.Encode(buf[:0], src)
				}
				b.ReportMetric(ratio, "ratio")
			})
			b.Run(fmt.Sprintf("decode/%s/d=%g", name, d), func(b *testing.B) {
				b.SetBytes(8 * words)
				for b.Loop() {
					if err := c.Decode(dst, msg); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(ratio, "ratio")
			})
		}
	}
}
