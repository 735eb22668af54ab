package results

import (
	"strings"
	"testing"
)

func TestReplaceMarkedSection(t *testing.T) {
	doc := "# Benchmarks\n\nintro\n"
	once := ReplaceMarkedSection(doc, "m scale=1", "### m", "| a |\n")
	if !strings.HasPrefix(once, doc) || !strings.Contains(once, "### m\n\n<!-- bench:m scale=1 -->\n| a |\n<!-- end bench:m scale=1 -->\n") {
		t.Fatalf("append:\n%s", once)
	}
	twice := ReplaceMarkedSection(once+"\n## after\n", "m scale=1", "### m", "| b |")
	if strings.Count(twice, "bench:m scale=1 -->") != 2 || strings.Contains(twice, "| a |") || !strings.Contains(twice, "| b |\n<!-- end") || !strings.HasSuffix(twice, "## after\n") {
		t.Fatalf("replace:\n%s", twice)
	}
	other := ReplaceMarkedSection(twice, "m scale=2", "### m2", "| c |")
	if !strings.Contains(other, "| b |") || !strings.Contains(other, "| c |") {
		t.Fatalf("a second key must not replace the first:\n%s", other)
	}
}

func TestBFSMatrixTable(t *testing.T) {
	rows := []BFSMatrixRow{{Label: "BIT", Run: chartRun("allgather", "raw", 1)}, {Label: "PDIR-auto", Run: chartRun("packed", "auto", 0.1)}}
	rows[1].Run.CommBytes = rows[0].Run.CommBytes / 4
	table := BFSMatrixTable(rows, "BIT")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "8 searches") || !strings.Contains(lines[3], "| PDIR-auto |") || !strings.Contains(lines[3], "| 0.250 |") {
		t.Fatalf("table:\n%s", table)
	}
}
