package results

import (
	"math"
	"strconv"
	"strings"
)

// FormatG formats x as C's printf("%.*g", prec, x) does with glibc: prec
// significant digits (6 for a negative prec, 1 for 0), exponent form when the
// decimal exponent X of the rounded value is < −4 or ≥ prec, trailing zeros
// and a trailing decimal point removed, the exponent written with a sign and
// at least two digits ("1.5e+07"), and NaN and infinities spelt "nan",
// "-nan", "inf" and "-inf" (the sign of a NaN is its sign bit).
func FormatG(x float64, prec int) string {
	switch {
	case math.IsNaN(x):
		if math.Signbit(x) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	if prec < 0 {
		prec = 6
	}
	if prec == 0 {
		prec = 1
	}
	// C99 7.19.6.1: X is the exponent the %e conversion with precision
	// prec−1 would have, i.e. the exponent after rounding.
	e := strconv.FormatFloat(x, 'e', prec-1, 64)
	i := strings.LastIndexByte(e, 'e')
	exp := parseExponent(e[i+1:])
	if exp < -4 || exp >= prec {
		return trimFraction(e[:i]) + e[i:]
	}
	return trimFraction(strconv.FormatFloat(x, 'f', prec-1-exp, 64))
}

// parseExponent parses the signed decimal exponent strconv writes after 'e'
// ("+07", "-300").
func parseExponent(s string) int {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	v := 0
	for _, c := range []byte(s) {
		v = v*10 + int(c-'0')
	}
	if neg {
		return -v
	}
	return v
}

// trimFraction removes trailing zeros after a decimal point, and the point
// itself if nothing follows it.
func trimFraction(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
