//go:build unix

package cpustat

import (
	"testing"
	"time"
)

// TestProcessCountsWork checks that spinning adds CPU time and that
// sleeping adds little: the clock is the process's, not the wall's.
func TestProcessCountsWork(t *testing.T) {
	before, err := Process()
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the process has used at least 50 ms more: this ends
	// whatever the machine's load, since only CPU time counts.
	x := uint64(1)
	for {
		for range 1 << 16 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		now, err := Process()
		if err != nil {
			t.Fatal(err)
		}
		if now-before >= 50*time.Millisecond {
			break
		}
	}
	if x == 0 { // uses x, so the spin is not dead code
		t.Fatal("the spin's generator reached 0")
	}
	spun, err := Process()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	slept, err := Process()
	if err != nil {
		t.Fatal(err)
	}
	if spun < before || slept < spun {
		t.Fatalf("CPU time went back: %v, %v, %v", before, spun, slept)
	}
	// A sleeping process uses far less CPU than the wall time it sleeps
	// (the runtime's background work is a few ms at most).
	if d := slept - spun; d >= 150*time.Millisecond {
		t.Fatalf("sleeping 200 ms counted %v of CPU", d)
	}
}
