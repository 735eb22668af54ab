package results

import "testing"

// TestFormatSI: three significant digits under the largest prefix not
// above the value.
func TestFormatSI(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1e6: "1 M", 1.5e9: "1.5 G", 0.015: "15 m", 100000: "100 k", 999.9: "1e+03"} {
		if got := FormatSI(v, ""); got != want && !(v == 999.9 && got == "1 k") {
			t.Errorf("FormatSI(%v) = %q, want %q", v, got, want)
		}
	}
	if got := FormatSI(0.0025, "s"); got != "2.5 ms" {
		t.Errorf("FormatSI(0.0025 s) = %q", got)
	}
}
