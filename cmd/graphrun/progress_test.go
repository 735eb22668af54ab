package main

import (
	"strings"
	"testing"
)

// TestPageRankNoProgressInLogs: a pagerank run whose stderr is not a
// terminal prints no progress bar.
func TestPageRankNoProgressInLogs(t *testing.T) {
	code, _, errOut := runCLI(t, "pagerank", "--kron", "7", "--ranks", "2", "--iterations", "3")
	if code != 0 || strings.Contains(errOut, "iteration 1,") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
