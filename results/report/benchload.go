package report

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// LoadAverage is the system's load average over 1, 5 and 15 minutes, as
// uptime prints it. A benchmark matrix records it at its start and end: on
// a shared machine the times it measures depend on it.
type LoadAverage [3]float64

// ReadLoadAverage reads the load average from /proc/loadavg (Linux).
func ReadLoadAverage() (LoadAverage, error) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return LoadAverage{}, fmt.Errorf("results: load average: %w", err)
	}
	return ParseLoadAverage(string(data))
}

// ParseLoadAverage parses the first three fields of /proc/loadavg.
func ParseLoadAverage(s string) (LoadAverage, error) {
	fields := strings.Fields(s)
	if len(fields) < 3 {
		return LoadAverage{}, fmt.Errorf("results: load average: %q has fewer than 3 fields", s)
	}
	var l LoadAverage
	for i := range l {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil || v < 0 {
			return LoadAverage{}, fmt.Errorf("results: load average: field %d of %q is not a load", i+1, s)
		}
		l[i] = v
	}
	return l, nil
}

// String is the three averages as uptime prints them: "1.35, 2.68, 2.99".
func (l LoadAverage) String() string {
	return fmt.Sprintf("%.2f, %.2f, %.2f", l[0], l[1], l[2])
}
