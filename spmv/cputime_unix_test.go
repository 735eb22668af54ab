//go:build unix

package spmv

import (
	"syscall"
	"time"
)

// cpuTime is the user and system CPU time the test process has used so far
// (0 where getrusage fails), for benchmarks that compare two phases on a
// machine whose other load makes wall-clock times noisy.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
