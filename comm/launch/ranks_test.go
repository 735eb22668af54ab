package launch

import (
	"runtime"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// TestCheckRanks: 1 … inproc.MaxRanks in-process ranks pass; outside, the
// error names the field Ranks and, above the ceiling, says how to run more.
func TestCheckRanks(t *testing.T) {
	for _, ok := range []int{1, 2, inproc.MaxRanks} {
		if err := CheckRanks(ok); err != nil {
			t.Errorf("CheckRanks(%d): %v", ok, err)
		}
	}
	for _, bad := range []int{0, -1, inproc.MaxRanks + 1} {
		fe, ok := fielderr.As(CheckRanks(bad))
		if !ok || fe.Field != "Ranks" {
			t.Fatalf("CheckRanks(%d) = %v, want a field error of ranks", bad, fe)
		}
		if bad > 0 && !strings.Contains(fe.Msg, "Procs N") {
			t.Errorf("CheckRanks(%d): %q does not say how to run more ranks", bad, fe.Msg)
		}
	}
}

// TestThreads: threads that are set are kept (refused below 1, naming the
// field Threads);
// by default the CPUs are shared among the ranks, at least one each.
func TestThreads(t *testing.T) {
	cpus := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		threads    int
		given      bool
		localRanks int
		want       int
	}{{3, true, 8, 3}, {0, false, 1, cpus}, {0, false, cpus * 2, 1}, {7, false, 1, cpus}} {
		if got, err := Threads(tc.threads, tc.given, tc.localRanks); err != nil || got != tc.want {
			t.Errorf("Threads(%d, %v, %d) = %d, %v; want %d", tc.threads, tc.given, tc.localRanks, got, err, tc.want)
		}
	}
	if _, err := Threads(0, true, 1); fielderr.Field(err) != "Threads" {
		t.Fatalf("Threads(0, given): %v", err)
	}
}

// TestThreadsBounded: a thread count that would size per-thread buffers
// beyond any machine is refused, naming Threads.
func TestThreadsBounded(t *testing.T) {
	if _, err := Threads(100000000, true, 1); err == nil || !strings.Contains(err.Error(), "Threads: 100000000 is more than") {
		t.Errorf("Threads(1e8): %v, want an error naming Threads", err)
	}
	if n, err := Threads(MaxThreads, true, 1); err != nil || n != MaxThreads {
		t.Errorf("Threads(MaxThreads): %d, %v", n, err)
	}
}
