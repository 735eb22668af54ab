package results

// Numbers with SI prefixes, as the summaries and the report's charts and
// tables print TEPS, edges, bytes and seconds.

import (
	"fmt"
	"math"
	"strings"
)

// siPrefixes are the SI prefixes FormatSI uses, largest first.
var siPrefixes = []struct {
	scale  float64
	prefix string
}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}}

// FormatSI writes v with an SI prefix and unit: 1.5 GB, 640 M, 12 kB, 15 ms,
// 0 s.
func FormatSI(v float64, unit string) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strings.TrimSpace(fmt.Sprintf("%g %s", v, unit))
	}
	p := siPrefixes[len(siPrefixes)-1]
	for _, q := range siPrefixes {
		if math.Abs(v) >= q.scale*0.9995 {
			p = q
			break
		}
	}
	return strings.TrimSpace(fmt.Sprintf("%.3g %s%s", v/p.scale, p.prefix, unit))
}

// FormatCount writes a count with an SI prefix: 1.5 G, 640 M, 12 k, 0.5.
func FormatCount(v float64) string {
	if math.Abs(v) < 1 {
		return fmt.Sprintf("%.3g", v)
	}
	return FormatSI(v, "")
}
