//go:build unix

package memstat

import (
	"fmt"
	"runtime"
	"syscall"
)

// rusageMaxRSS is getrusage(RUSAGE_SELF)'s ru_maxrss in bytes: kilobytes on
// Linux and the BSDs, bytes on Darwin.
func rusageMaxRSS() (int64, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("memstat: getrusage: %w", err)
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), nil
	}
	return int64(ru.Maxrss) << 10, nil
}
