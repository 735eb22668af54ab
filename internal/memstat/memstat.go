// Package memstat measures the memory a graphrun process holds: its peak
// resident set size (what `/usr/bin/time -v` calls "Maximum resident set
// size"), reported as peak_memory_bytes by the bfs and pagerank commands, and
// the settings that keep the Go heap near its live size in the phases that
// hold a graph.
package memstat

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"runtime/debug"
	"strconv"
)

// PeakRSS returns the process's peak resident set size in bytes since it
// started: Linux's VmHWM from /proc/self/status. Where
// that file does not exist it falls back to getrusage's ru_maxrss.
func PeakRSS() (int64, error) {
	if v, err := statusField("VmHWM:"); err == nil {
		return v, nil
	}
	return rusageMaxRSS()
}

// currentRSS returns the process's resident set size in bytes now (VmRSS).
func currentRSS() (int64, error) { return statusField("VmRSS:") }

// statusField reads one "Name:  N kB" line of /proc/self/status in bytes.
func statusField(name string) (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("memstat: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(name)) {
			continue
		}
		f := bytes.Fields(line[len(name):])
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("memstat: /proc/self/status: malformed %s line %q", name, line)
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("memstat: /proc/self/status: %s: %w", name, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("memstat: no %s in /proc/self/status", name)
}

// LeanPercent is the garbage collector's growth target graphrun's commands
// use while they hold a graph (see LeanHeap).
const LeanPercent = 25

// LeanHeap sets the garbage collector's target for a process whose heap is
// dominated by a few large, long-lived arrays (a CSR, a matrix): the heap
// may grow by percent of the live heap before a collection (Go's default is
// 100, which lets a run's peak reach twice what it holds). Those arrays hold
// no pointers, so a collection costs little. It returns the previous
// setting, for a caller that wants to restore it.
func LeanHeap(percent int) int { return debug.SetGCPercent(percent) }

// Release returns the memory freed by the garbage collector to the operating
// system at once (the runtime would otherwise do it over a few minutes), so
// that the next phase's peak does not stack on top of the last one's
// garbage. It forces a collection: call it between phases, never in a timed
// region.
func Release() { debug.FreeOSMemory() }

// ProcessKey identifies this process among the processes of a job, on any
// machine: a hash of the host name and the process id. The ranks of a job
// send it beside their PeakRSS, so that a peak shared by the in-process
// ranks of one process is counted once in the job's total (JobPeak).
func ProcessKey() int64 {
	host, _ := os.Hostname()
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", host, os.Getpid())
	return int64(h.Sum64() &^ (1 << 63)) // non-negative
}

// JobPeak sums the peaks of distinct processes: peaks[i] is rank i's
// process's peak, keys[i] that process's ProcessKey. It returns the sum and
// the number of processes.
func JobPeak(peaks, keys []int64) (total int64, processes int) {
	seen := make(map[int64]int64, len(keys))
	for i, k := range keys {
		seen[k] = max(seen[k], peaks[i])
	}
	for _, p := range seen {
		total += p
	}
	return total, len(seen)
}
