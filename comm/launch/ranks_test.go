package launch

import (
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// TestCheckRanks: 1 … inproc.MaxRanks in-process ranks pass; outside, the
// error names --ranks and, above the ceiling, says how to run more.
func TestCheckRanks(t *testing.T) {
	for _, ok := range []int{1, 2, inproc.MaxRanks} {
		if err := CheckRanks(ok); err != nil {
			t.Errorf("CheckRanks(%d): %v", ok, err)
		}
	}
	for _, bad := range []int{0, -1, inproc.MaxRanks + 1} {
		fe, ok := fielderr.As(CheckRanks(bad))
		if !ok || fe.Field != "ranks" {
			t.Fatalf("CheckRanks(%d) = %v, want a field error of ranks", bad, fe)
		}
		if bad > 0 && !strings.Contains(fe.Msg, "--procs N") {
			t.Errorf("CheckRanks(%d): %q does not say how to run more ranks", bad, fe.Msg)
		}
	}
}
