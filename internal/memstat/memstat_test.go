package memstat

import (
	"runtime"
	"testing"
)

func TestPeakRSSGrowsWithTouchedMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's")
	}
	cur, err := currentRSS()
	if err != nil {
		t.Fatal(err)
	}
	before, err := PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	if cur <= 0 || before < cur {
		t.Fatalf("peak %d below current %d", before, cur)
	}
	const size = 256 << 20
	b := make([]byte, size)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	after, err := PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(b)
	if after < before+size*9/10 && after < cur+size*9/10 {
		t.Fatalf("peak RSS %d after touching %d bytes, was %d (current %d)", after, size, before, cur)
	}
	ru, err := rusageMaxRSS()
	if err != nil {
		t.Fatal(err)
	}
	if d := ru - after; d > 64<<20 || d < -(64<<20) {
		t.Fatalf("getrusage says %d, VmHWM %d", ru, after)
	}
}

func TestStatusFieldMissing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	if _, err := statusField("NoSuchField:"); err == nil {
		t.Fatal("no error for a missing field")
	}
}

// TestJobPeak: the job's peak counts each process once, at its largest
// peak, however many ranks it ran.
func TestJobPeak(t *testing.T) {
	total, procs := JobPeak([]int64{10, 10, 7, 30}, []int64{1, 1, 2, 3})
	if total != 47 || procs != 3 {
		t.Fatalf("JobPeak = %d over %d processes, want 47 over 3", total, procs)
	}
	if ProcessKey() != ProcessKey() || ProcessKey() < 0 {
		t.Fatal("ProcessKey is not a stable non-negative key")
	}
}
