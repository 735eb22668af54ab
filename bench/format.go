package bench

// The number formats of the bench tables, keys and file names.

import (
	"fmt"
	"math"
	"strconv"
)

// ThreeDigits writes v with three significant digits, without an exponent
// up to 10^6 (0.0234, 1.12, 350, 1450).
func ThreeDigits(v float64) string {
	g := strconv.FormatFloat(v, 'g', 3, 64)
	rounded, err := strconv.ParseFloat(g, 64)
	if a := math.Abs(rounded); err == nil && a >= 1000 && a < 1e6 {
		return strconv.FormatFloat(rounded, 'f', 0, 64)
	}
	return g
}

// FormatCount writes powers of ten as 10^k, other counts as they are.
func FormatCount(n int) string {
	for k, p := 1, 10; p <= n; k, p = k+1, p*10 {
		if p == n {
			return fmt.Sprintf("10^%d", k)
		}
	}
	return strconv.Itoa(n)
}

// FormatElements writes a vector length for keys and file names: 1e4,
// 25e5, or the plain number when it has fewer than two trailing zeros.
func FormatElements(n int) string {
	m, k := n, 0
	for m%10 == 0 && m > 0 {
		m, k = m/10, k+1
	}
	if k < 2 {
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("%de%d", m, k)
}

// FormatSize writes a byte count for a table, in the largest binary unit
// that divides it: 256 B, 1 KiB, 16 MiB.
func FormatSize(n int) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// SICount writes a count with an SI prefix: 67.1 M.
func SICount(v int64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2f G", float64(v)/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1f M", float64(v)/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1f k", float64(v)/1e3)
	}
	return fmt.Sprint(v)
}
