//go:build !unix

package cpustat

import (
	"errors"
	"time"
)

func processCPU() (time.Duration, error) {
	return 0, errors.New("cpustat: the process's CPU time is not known on this system")
}
