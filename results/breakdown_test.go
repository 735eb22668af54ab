package results

import (
	"strings"
	"testing"
)

func TestWriteBreakdown(t *testing.T) {
	r := &Graph500Run{Exchange: "sieve", Codec: "wah", Direction: "auto", Searches: []Search{
		{Levels: []Level{{Level: 0, Frontier: 1}, {Level: 1, Direction: "top-down", Frontier: 10, Bytes: 100, Traverse: 0.5},
			{Level: 2, Direction: "bottom-up", Frontier: 5, Bytes: 50, RawBytes: 800, EncodedBytes: 40, Codec: "wah", Compress: 0.25}}},
		{Levels: []Level{{Level: 0, Frontier: 1}, {Level: 1, Direction: "top-down", Frontier: 10, Bytes: 100, Traverse: 0.5}}},
	}}
	var b strings.Builder
	if err := r.WriteBreakdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 || !strings.Contains(lines[0], "2 searches") {
		t.Fatalf("unexpected table:\n%s", out)
	}
	for _, want := range [][]string{{"1", "2/0", "20", "200"}, {"2", "0/1", "5", "50", "800", "40", "wah", "0.2500"}, {"all", "27", "250", "800", "40", "1.0000"}} {
		found := false
		for _, l := range lines[2:] {
			f := strings.Fields(l)
			if len(f) > 0 && f[0] == want[0] {
				found = true
				for _, w := range want[1:] {
					if !strings.Contains(l, " "+w) {
						t.Errorf("row %s lacks %s: %q", want[0], w, l)
					}
				}
			}
		}
		if !found {
			t.Errorf("no row %s in\n%s", want[0], out)
		}
	}
}

// TestPartitionLabel: the breakdown header names the partition, the grid
// and, with blocks per rank, the placement and a fused run's column groups.
func TestPartitionLabel(t *testing.T) {
	for _, c := range []struct {
		run  Graph500Run
		want string
	}{
		{Graph500Run{}, ""},
		{Graph500Run{Partition: "1d"}, ", partition 1d"},
		{Graph500Run{Partition: "2d", Grid: "4x4"}, ", partition 2d, grid 4x4"},
		{Graph500Run{Partition: "2d", Grid: "8x8", BlocksPerRank: 4, Placement: "round-robin"},
			", partition 2d, block grid 8x8, 4 blocks per rank, placement round-robin"},
		{Graph500Run{Partition: "2d", Grid: "8x8", BlocksPerRank: 4, Placement: "lshs", Fused: "0+7 2+5 1+6 3+4"},
			", partition 2d, block grid 8x8, 4 blocks per rank, placement lshs (fused: block columns 0+7 2+5 1+6 3+4)"},
	} {
		if got := c.run.partitionLabel(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.run, got, c.want)
		}
	}
}
