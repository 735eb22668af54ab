// Package cpustat measures the CPU time a graphrun process uses: user plus
// system time of all its threads, as getrusage(RUSAGE_SELF) and
// `/usr/bin/time` count it. The bfs command reports it per rank over the
// timed searches (cpu_seconds) when each rank is a process of its own,
// which is what "busy" means on a cluster whose nodes run nothing else: on
// the emulated cluster (.ci/emulated-cluster.sh) a process's CPU quota
// stalls its wall-clock busy stretches for whole quota periods, and its CPU
// time is what those stalls do not inflate.
package cpustat

import "time"

// Process returns the CPU time (user + system) this process has used since
// it started.
func Process() (time.Duration, error) { return processCPU() }
