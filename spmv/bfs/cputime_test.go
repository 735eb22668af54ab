package bfs

import (
	"time"

	"github.com/graphrun/graphrun/internal/cpustat"
)

// cpuTime is the user and system CPU time the test process has used so far
// (0 where it is not known), for benchmarks that compare two phases on a
// machine whose other load makes wall-clock times noisy.
func cpuTime() time.Duration {
	t, err := cpustat.Process()
	if err != nil {
		return 0
	}
	return t
}
