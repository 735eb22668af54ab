package results

import (
	"math"
	"testing"
)

// The expected strings were printed by glibc's printf("%g") and printf("%.11g").
var cFormatTable = []struct {
	x      float64
	g, g11 string
}{
	{0, "0", "0"},
	{math.Copysign(0, -1), "-0", "-0"},
	{3, "3", "3"},
	{0.000123456, "0.000123456", "0.000123456"},
	{1234567, "1.23457e+06", "1234567"},
	{100000, "100000", "100000"},
	{1e-05, "1e-05", "1e-05"},
	{0.0001, "0.0001", "0.0001"},
	{1.234e-05, "1.234e-05", "1.234e-05"},
	{123456, "123456", "123456"},
	{999999.5, "1e+06", "999999.5"}, // an exact tie rounds to even, then X = 6 ≥ P
	{999999.4, "999999", "999999.4"},
	{9999995, "1e+07", "9999995"},
	{1e100, "1e+100", "1e+100"},
	{1.5e7, "1.5e+07", "15000000"},
	{2.5, "2.5", "2.5"},
	{0.5, "0.5", "0.5"},
	{1e-300, "1e-300", "1e-300"},
	{5e-324, "4.94066e-324", "4.9406564584e-324"},
	{math.MaxFloat64, "1.79769e+308", "1.7976931349e+308"},
	{123.456, "123.456", "123.456"},
	{0.1, "0.1", "0.1"},
	{1.0 / 3, "0.333333", "0.33333333333"},
	{-2.0 / 3, "-0.666667", "-0.66666666667"},
	{16777216, "1.67772e+07", "16777216"},
	{1e11, "1e+11", "1e+11"},
	{123456789012, "1.23457e+11", "1.2345678901e+11"},
	{9007199254740992, "9.0072e+15", "9.0071992547e+15"},
	{0.000099999995, "0.0001", "9.9999995e-05"}, // rounding moves X from −5 to −4
	{1e6, "1e+06", "1000000"},
	{12345.678, "12345.7", "12345.678"},
	{math.Inf(1), "inf", "inf"},
	{math.Inf(-1), "-inf", "-inf"},
	{math.NaN(), "nan", "nan"},
	{math.Copysign(math.NaN(), -1), "-nan", "-nan"},
}

func TestFormatG(t *testing.T) {
	for _, tc := range cFormatTable {
		if got := FormatG(tc.x, 6); got != tc.g {
			t.Errorf("FormatG(%v, 6) = %q, want %q", tc.x, got, tc.g)
		}
		if got := FormatG(tc.x, 11); got != tc.g11 {
			t.Errorf("FormatG(%v, 11) = %q, want %q", tc.x, got, tc.g11)
		}
	}
}

func TestFormatGPrecision(t *testing.T) {
	// glibc: printf("%.0g %.1g %.3g", 2.5, 0.15, 1234.5) prints "2 0.1 1.23e+03";
	// a negative precision is taken as 6.
	for _, tc := range []struct {
		x    float64
		prec int
		want string
	}{
		{2.5, 0, "2"},
		{0.15, 1, "0.1"},
		{1234.5, 3, "1.23e+03"},
		{1234567, -1, "1.23457e+06"},
	} {
		if got := FormatG(tc.x, tc.prec); got != tc.want {
			t.Errorf("FormatG(%v, %d) = %q, want %q", tc.x, tc.prec, got, tc.want)
		}
	}
}
