package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphrun/graphrun/internal/interrupt"
)

// exitBound is how long an interrupted graphrun may take to exit in these
// tests: it should take under a second; the bound is generous for a
// loaded machine (5.06 s has been seen there), and still tells a command
// that does not exit.
const exitBound = 30 * time.Second

// signalAfter sends sig to a graphrun process after it has run for after,
// waits for it to exit, and returns its exit status and how long it took
// after the signal.
func signalAfter(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, after time.Duration) (int, time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
		t.Fatalf("graphrun %v exited (status %d) before it was interrupted: make its work longer", cmd.Args[1:], cmd.ProcessState.ExitCode())
	case <-time.After(after):
	}
	start := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatalf("graphrun %v: %v (did it exit before it was interrupted?)", cmd.Args[1:], err)
	}
	select {
	case <-done:
	case <-time.After(2 * exitBound):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("graphrun %v still ran %v after %v", cmd.Args[1:], 2*exitBound, sig)
	}
	return cmd.ProcessState.ExitCode(), time.Since(start)
}

// checkInterrupted checks an interrupted run: the shell's status for sig,
// within exitBound, and one line about it on stderr, the last: no cascade
// of per-rank errors. (Log lines written before the signal stay.)
func checkInterrupted(t *testing.T, sig syscall.Signal, code int, took time.Duration, stdout, stderr *bytes.Buffer) {
	t.Helper()
	t.Logf("%v: exit %d %v after the signal", sig, code, took.Round(time.Millisecond))
	if want := 128 + int(sig); code != want {
		t.Errorf("%v: exit status %d, want %d", sig, code, want)
	}
	if took > exitBound {
		t.Errorf("%v: exited %v after the signal, want under %v", sig, took, exitBound)
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if lines[len(lines)-1] != "graphrun: interrupted" {
		t.Errorf("%v: stderr %q does not end with the line \"graphrun: interrupted\"", sig, stderr.String())
	}
	for _, line := range lines[:len(lines)-1] {
		for _, word := range []string{"interrupt", "context canceled", "abort", "signal", "failed"} {
			if strings.Contains(line, word) {
				t.Errorf("%v: stderr has a line about the interrupt besides the last: %q", sig, line)
			}
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("%v: stdout %q", sig, stdout.String())
	}
}

// TestInterruptLeavesNothing interrupts runs that write every kind of
// output: exit 130 or 143, one line, no output, no temporary file, no
// empty --plots folder.
func TestInterruptLeavesNothing(t *testing.T) {
	clearJobEnv(t)
	for _, c := range []struct {
		sig  syscall.Signal
		args func(dir string) []string
	}{
		{syscall.SIGTERM, func(dir string) []string {
			return []string{"bfs", "--scale", "18", "--ranks", "2", "--json", filepath.Join(dir, "run.json"), "--plots", filepath.Join(dir, "plots"),
				"--cpuprofile", filepath.Join(dir, "cpu.prof"), "--memprofile", filepath.Join(dir, "mem.prof")}
		}},
		{syscall.SIGINT, func(dir string) []string {
			return []string{"pagerank", "--kron", "14", "--ranks", "2", "--iterations", "1000000", "--out", filepath.Join(dir, "scores.tsv"),
				"--json", filepath.Join(dir, "pr.json"), "--plots", filepath.Join(dir, "plots", "pr")}
		}},
		{syscall.SIGINT, func(dir string) []string {
			return []string{"generate", "--scale", "26", "-o", filepath.Join(dir, "g.bel")}
		}},
		{syscall.SIGTERM, func(dir string) []string {
			return []string{"bench", "bfs-codecs", "--scale", "17", "--ranks", "2", "--dir", filepath.Join(dir, "bench")}
		}},
	} {
		dir := t.TempDir()
		args := c.args(dir)
		t.Run(args[0], func(t *testing.T) {
			cmd, stdout, stderr := rankProcess(t, nil, args...)
			code, took := signalAfter(t, cmd, c.sig, 700*time.Millisecond)
			checkInterrupted(t, c.sig, code, took, stdout, stderr)
			assertEntries(t, dir)
		})
	}
}

// children lists the child processes of pid.
func children(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	if err != nil || len(tasks) == 0 {
		t.Skipf("no /proc/PID/task/*/children here: %v", err)
	}
	var kids []int
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(data)) {
			if k, err := strconv.Atoi(field); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids
}

// gone reports whether process pid has ended (or is a zombie).
func gone(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z'
}

// TestInterruptProcs interrupts a --procs job: the launcher exits with
// 130 and one line (the ranks' own lines and errors are not shown), and no
// rank process outlives it.
func TestInterruptProcs(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	cmd, stdout, stderr := rankProcess(t, nil, "bfs", "--scale", "18", "--procs", "2", "--threads", "1", "--json", filepath.Join(dir, "run.json"))
	deadline := time.Now().Add(exitBound)
	var kids []int
	for len(kids) < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		kids = children(t, cmd.Process.Pid)
	}
	if len(kids) < 2 {
		t.Fatalf("the launcher started %d rank processes", len(kids))
	}
	code, took := signalAfter(t, cmd, syscall.SIGINT, 500*time.Millisecond)
	checkInterrupted(t, syscall.SIGINT, code, took, stdout, stderr)
	for _, k := range kids {
		for !gone(k) {
			if time.Now().After(deadline.Add(exitBound)) {
				t.Fatalf("rank process %d outlived its interrupted launcher", k)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	assertEntries(t, dir)
}

// TestInterruptBlockedOpen interrupts graphrun blocked in open(2) of a
// FIFO no process reads, which cannot be interrupted: after the grace
// period it exits anyway, with the right status and one line, and the FIFO
// stays a FIFO.
func TestInterruptBlockedOpen(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "tree.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, stdout, stderr := rankProcess(t, nil, "bfs", "--scale", "6", "--root", "1", "--out", fifo)
	blocked := false
	for deadline := time.Now().Add(exitBound); !blocked && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		blocked = inFIFOOpen(cmd.Process.Pid)
	}
	if !blocked {
		t.Log("no thread seen waiting in the FIFO's open (wchan wait_for_partner): signalling anyway")
	}
	code, took := signalAfter(t, cmd, syscall.SIGTERM, 0)
	checkInterrupted(t, syscall.SIGTERM, code, took, stdout, stderr)
	if blocked && took < interruptGrace/2 {
		t.Errorf("exited %v after the signal, before the grace period of %v", took, interruptGrace)
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO is now %v (%v)", info.Mode(), err)
	}
	assertEntries(t, dir, "tree.fifo")
}

// inFIFOOpen reports whether a thread of process pid waits in the open of
// a FIFO for the other end (Linux's wchan says wait_for_partner).
func inFIFOOpen(pid int) bool {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
	for _, f := range tasks {
		if data, err := os.ReadFile(f); err == nil && strings.Contains(string(data), "wait_for_partner") {
			return true
		}
	}
	return false
}

// TestInterruptManyRanks interrupts the set-up of a job of many in-process
// ranks.
func TestInterruptManyRanks(t *testing.T) {
	clearJobEnv(t)
	cmd, stdout, stderr := rankProcess(t, nil, "bfs", "--scale", "12", "--ranks", "1000", "--threads", "1")
	code, took := signalAfter(t, cmd, syscall.SIGTERM, 500*time.Millisecond)
	checkInterrupted(t, syscall.SIGTERM, code, took, stdout, stderr)
}

// interruptGrace is how long an interrupted command has to return.
const interruptGrace = interrupt.Grace
