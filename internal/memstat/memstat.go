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
