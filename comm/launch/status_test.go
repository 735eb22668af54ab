package launch

import (
	"errors"
	"fmt"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

// TestJobStatus: a blamed rank that Local started exits ExitBlamed, the
// launcher with the status of the rank that failed first; the job decides
// nothing for a rank's own failure or a blamed rank Local did not start.
func TestJobStatus(t *testing.T) {
	local := MapLookup(map[string]string{EnvLocal: "1"})
	blamed := Blame(1, 4, fmt.Errorf("kernel 1: %w", &comm.PeerError{Rank: 3, Err: errors.New("connection lost")}))
	failed := fmt.Errorf("local job of 4: %w", &ExitError{First: RankStatus{Rank: 2, Code: 7}})
	for _, tc := range []struct {
		name   string
		err    error
		env    Lookup
		status int
		ok     bool
	}{
		{"blamed, started by Local", blamed, local, ExitBlamed, true},
		{"blamed, started otherwise", blamed, MapLookup(nil), 0, false},
		{"the launcher", failed, MapLookup(nil), 7, true},
		{"a rank's own failure", Blame(1, 4, comm.ErrAborted), local, 0, false},
	} {
		if status, ok := JobStatus(tc.err, tc.env); status != tc.status || ok != tc.ok {
			t.Errorf("%s: JobStatus = %d, %v; want %d, %v", tc.name, status, ok, tc.status, tc.ok)
		}
	}
}
