package bench

import (
	"math"
	"testing"
)

func TestFormats(t *testing.T) {
	for n, want := range map[int]string{10: "10^1", 10000000: "10^7", 5: "5", 2500: "2500"} {
		if got := FormatCount(n); got != want {
			t.Errorf("FormatCount(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int]string{10000: "1e4", 10000000: "1e7", 2500000: "25e5", 100: "1e2", 10: "10", 7: "7", 1234: "1234"} {
		if got := FormatElements(n); got != want {
			t.Errorf("FormatElements(%d) = %q, want %q", n, got, want)
		}
	}
	for v, want := range map[float64]string{0.02344: "0.0234", 1.124: "1.12", 350.2: "350", 1454: "1450", 5123: "5120", 999.7: "1000", 2.4e6: "2.4e+06"} {
		if got := ThreeDigits(v); got != want {
			t.Errorf("ThreeDigits(%v) = %q, want %q", v, got, want)
		}
	}
	for n, want := range map[int]string{1: "1 B", 1000: "1000 B", 1024: "1 KiB", 1536: "1536 B", 16 << 20: "16 MiB", 1 << 30: "1 GiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
	for v, want := range map[int64]string{67108864: "67.1 M", 999: "999", 2500: "2.5 k", 4294967296: "4.29 G"} {
		if got := SICount(v); got != want {
			t.Errorf("SICount(%d) = %q, want %q", v, got, want)
		}
	}
	// 2·⌈lg p⌉ ÷ (2(p−1)/p): BENCHMARKS.md's link-model column.
	for p, want := range map[int]float64{2: 2, 4: 8.0 / 3, 8: 24.0 / 7, 16: 64.0 / 15, 3: 3, 1: 1} {
		if got := ModelTreeOverChunked(p); math.Abs(got-want) > 1e-12 {
			t.Errorf("ModelTreeOverChunked(%d) = %v, want %v", p, got, want)
		}
	}
}
