package report

import (
	"os"
	"strings"
	"testing"
)

func TestBFSMatrixTable(t *testing.T) {
	rows := []BFSMatrixRow{{Label: "BIT", Run: chartRun("allgather", "raw", 1)}, {Label: "PDIR-auto", Run: chartRun("packed", "auto", 0.1)}}
	rows[1].Run.CommBytes = rows[0].Run.CommBytes / 4
	table := BFSMatrixTable(rows, "BIT")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "8 searches") || !strings.Contains(lines[3], "| PDIR-auto |") || !strings.Contains(lines[3], "| 0.250 |") {
		t.Fatalf("table:\n%s", table)
	}
}

func TestLoadAverage(t *testing.T) {
	l, err := ParseLoadAverage("1.35 2.68 2.99 1/151 31285\n")
	if err != nil || l != (LoadAverage{1.35, 2.68, 2.99}) || l.String() != "1.35, 2.68, 2.99" {
		t.Fatalf("got %v (%s), %v", l, l, err)
	}
	for _, bad := range []string{"", "1.0 2.0", "1.0 x 3.0", "-1 0 0"} {
		if _, err := ParseLoadAverage(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := os.Stat("/proc/loadavg"); err == nil {
		if _, err := ReadLoadAverage(); err != nil {
			t.Fatal(err)
		}
	}
}
