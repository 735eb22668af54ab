package units

import (
	"math"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{
		"256": 256, "1Ki": 1024, "1KiB": 1024, "16Mi": 16 << 20, "1Gi": 1 << 30, "1k": 1000, "1K": 1000,
		"1KB": 1000, "5MB": 5e6, "1.5Ki": 1536, "2.5e6": 2500000, " 4M ": 4e6, "1e3": 1000,
	} {
		got, err := ParseBytes(s, 1, 1<<40)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0", "1.5", "-1Ki", "2Gi", "x", "1Xi", "Ki", "0x10", "1_000", "inf", "NaN", "1KiKi", "1iB"} {
		if got, err := ParseBytes(s, 1, 1<<30); err == nil {
			t.Errorf("ParseBytes(%q) = %d, accepted", s, got)
		}
	}
}

func TestParseCount(t *testing.T) {
	for s, want := range map[string]int64{"1e4": 1e4, "25e5": 2500000, "1M": 1e6, "64Ki": 65536, "10k": 1e4, "7": 7} {
		got, err := ParseCount(s, 1, 1e12)
		if err != nil || got != want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"0", "1.5", "1e13", "1MB", "ten"} {
		if _, err := ParseCount(s, 1, 1e12); err == nil {
			t.Errorf("ParseCount(%q) accepted", s)
		}
	}
}

func TestParseRate(t *testing.T) {
	for s, want := range map[string]float64{
		"1.25G": 1.25e9, "1.25GB/s": 1.25e9, "125M": 125e6, "125MB/s": 125e6, "125MiB/s": 125 << 20,
		"10Gbit/s": 1.25e9, "100Mbit/s": 12.5e6, "1000": 1000, "12.5k": 12500, "1e9B/s": 1e9,
	} {
		got, err := ParseRate(s)
		if err != nil || math.Abs(got-want) > 1e-6*want {
			t.Errorf("ParseRate(%q) = %g, %v; want %g", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0", "-1G", "1e400", "G", "fast", "inf"} {
		if _, err := ParseRate(s); err == nil {
			t.Errorf("ParseRate(%q) accepted", s)
		}
	}
}

// TestFormatRoundTrip: what the formatters write, the parsers read back
// to the same value.
func TestFormatRoundTrip(t *testing.T) {
	for _, n := range []int64{1, 256, 1000, 1024, 1536, 65536, 16 << 20, 3 << 30} {
		if got, err := ParseBytes(FormatBytes(n), 1, 1<<40); err != nil || got != n {
			t.Errorf("FormatBytes(%d) = %q, reads back as %d, %v", n, FormatBytes(n), got, err)
		}
	}
	for _, v := range []float64{125e6, 1.25e9, 12.5e3, 500} {
		if got, err := ParseRate(FormatRate(v)); err != nil || got != v {
			t.Errorf("FormatRate(%g) = %q, reads back as %g, %v", v, FormatRate(v), got, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1Ki", "2.5e6", "10Gbit/s", "5MB", "1e400", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := ParseBytes(s, 1, 1<<40); err == nil && (n < 1 || n > 1<<40) {
			t.Errorf("ParseBytes(%q) = %d, outside the bounds", s, n)
		}
		if n, err := ParseCount(s, 0, 1e12); err == nil && (n < 0 || n > 1e12) {
			t.Errorf("ParseCount(%q) = %d, outside the bounds", s, n)
		}
		if v, err := ParseRate(s); err == nil && !(v > 0 && !math.IsInf(v, 0)) {
			t.Errorf("ParseRate(%q) = %g", s, v)
		}
	})
}
