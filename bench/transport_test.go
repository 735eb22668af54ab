package bench

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

func TestEfficientSize(t *testing.T) {
	// Bandwidth per rank with 3 ranks: 2·size/seconds.
	rows := []TransportRow{
		{Size: 1 << 10, Seconds: 2e-5},  // 102 MB/s
		{Size: 64 << 10, Seconds: 4e-4}, // 328 MB/s
		{Size: 1 << 20, Seconds: 4e-3},  // 524 MB/s: peak
		{Size: 4 << 20, Seconds: 2e-2},  // 419 MB/s
	}
	peak, eff := EfficientSize(rows, 3)
	if peak != 2 || eff != 1 {
		t.Fatalf("peak %d, efficient %d; want 2, 1", peak, eff)
	}
	// Order does not matter: the smallest size reaching half the peak.
	slices.Reverse(rows)
	if peak, eff = EfficientSize(rows, 3); peak != 1 || eff != 2 {
		t.Fatalf("reversed: peak %d, efficient %d; want 1, 2", peak, eff)
	}
	var b bytes.Buffer
	if err := WriteTransportTable(&b, "test", 3, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n- minimum efficient message size: 64 KiB (the smallest size reaching 50% of the peak bandwidth)\n") ||
		!strings.Contains(b.String(), "\n- peak bandwidth: 524.3 MB/s per rank with 1 MiB messages\n") ||
		!strings.Contains(b.String(), "| 64 KiB | 0 | 400.0 | 327.7 | 983.0 |\n") {
		t.Fatalf("table:\n%s", b.String())
	}
}

// TestMeasureAlltoallv: every rank gets the same rows, one per size, each
// with at least two timed calls.
func TestMeasureAlltoallv(t *testing.T) {
	got := make([][]TransportRow, 3)
	err := inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		rows, err := MeasureAlltoallv(ctx, c, []int{1, 1000}, time.Millisecond, nil)
		got[c.Rank()] = rows
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for r, rows := range got {
		if len(rows) != 2 || rows[0].Size != 1 || rows[1].Size != 1000 || rows[1].Calls < 2 || !slices.Equal(rows, got[0]) {
			t.Errorf("rank %d: %+v, rank 0: %+v", r, rows, got[0])
		}
	}
}

func BenchmarkAlltoallv64KiB(b *testing.B) {
	err := inproc.Run(context.Background(), 4, func(ctx context.Context, c comm.Comm) error {
		_, err := MeasureAlltoallv(ctx, c, []int{64 << 10}, time.Duration(b.N)*time.Millisecond, nil)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}
