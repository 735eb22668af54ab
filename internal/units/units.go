// Package units is the one syntax of graphrun's quantities as a user writes
// them: byte sizes (message sizes of the transport benchmark), counts
// (vector lengths of the dense allreduce benchmark) and rates (link
// bandwidths, the bandwidth and minimum packet size of a report's model).
// It exists so that "1K" means the same everywhere.
//
// The rule: SI prefixes are powers of 1000 and IEC prefixes powers of
// 1024, whatever the quantity.
//
//	k or K, M, G, T, P    10^3, 10^6, 10^9, 10^12, 10^15
//	Ki, Mi, Gi, Ti, Pi    2^10, 2^20, 2^30, 2^40, 2^50
//
// The number before the prefix may have a fraction and an exponent
// ("2.5e6", "1.5Ki"). A size may end in B ("16MiB", "5MB"), a rate in B/s
// or bit/s ("1.25GB/s", "10Gbit/s" = 1.25 GB/s); a bare rate is bytes per
// second. Formatters write what the parsers read back to the same value.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Help is the rule in one phrase, for help texts.
const Help = "k, M, G = 10^3, 10^6, 10^9; Ki, Mi, Gi = 2^10, 2^20, 2^30"

// prefixes are the multipliers of the suffixes, IEC first so that "Ki" is
// not read as "i" after "K".
var prefixes = []struct {
	name  string
	value float64
}{
	{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"Pi", 1 << 50},
	{"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15},
}

// number parses a number with an optional SI or IEC prefix.
func number(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, p := range prefixes {
		if rest, ok := strings.CutSuffix(t, p.name); ok {
			t, mult = strings.TrimSpace(rest), p.value
			break
		}
	}
	if t == "" || strings.ContainsAny(t, "xXpP_") || strings.EqualFold(t, "inf") || strings.EqualFold(t, "infinity") || strings.EqualFold(t, "nan") {
		return 0, false // no hexadecimal floats, underscores, infinities or NaN
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, false
	}
	v *= mult
	return v, !math.IsInf(v, 0) && !math.IsNaN(v)
}

// whole returns v as an integer if it is one from lo to hi.
func whole(v float64, lo, hi int64) (int64, bool) {
	if v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
		return 0, false
	}
	return int64(v), true
}

// ParseBytes parses a byte size from lo to hi: "4096", "4Ki", "4KiB",
// "1.5M", "5MB".
func ParseBytes(s string, lo, hi int64) (int64, error) {
	v, ok := number(strings.TrimSuffix(strings.TrimSpace(s), "B"))
	if ok {
		if n, ok := whole(v, lo, hi); ok {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%q is not a size: want a whole number of bytes from %s to %s (%s)", s, FormatBytes(lo), FormatBytes(hi), Help)
}

// ParseCount parses a whole count from lo to hi: "1000000", "1e6", "1M",
// "2.5e6", "64Ki".
func ParseCount(s string, lo, hi int64) (int64, error) {
	v, ok := number(s)
	if ok {
		if n, ok := whole(v, lo, hi); ok {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%q is not a whole number from %d to %d (e.g. 1e6 or 1M; %s)", s, lo, hi, Help)
}

// ParseRate parses a positive, finite rate in bytes per second: "1.25G",
// "1.25GB/s", "125MiB/s", "10Gbit/s".
func ParseRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if rest, ok := strings.CutSuffix(t, "bit/s"); ok {
		t, scale = rest, 1.0/8
	} else {
		t = strings.TrimSuffix(strings.TrimSuffix(t, "/s"), "B")
	}
	v, ok := number(t)
	if v *= scale; !ok || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a positive finite rate in bytes/s (e.g. 1.25G, 125MB/s or 10Gbit/s; %s)", s, Help)
	}
	return v, nil
}

// FormatBytes writes a byte count as ParseBytes reads it, in the largest IEC
// prefix that divides it: 256, 1Ki, 16Mi.
func FormatBytes(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{50, "Pi"}, {40, "Ti"}, {30, "Gi"}, {20, "Mi"}, {10, "Ki"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// FormatRate writes a rate in bytes/s with an SI prefix and four
// significant digits: 125M, 1.25G.
func FormatRate(v float64) string {
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 4, 64) + "G"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
