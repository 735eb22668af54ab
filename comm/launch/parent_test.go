package launch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// deathBound is how long a rank may take to die once its launcher did, or
// to be named once its peers gave up on it: the kernel kills it at once,
// and a loaded machine may take seconds to schedule anything. A hang is a
// process that never goes.
const deathBound = time.Minute

// launcher is the test child that launches: it runs a Local job of two
// "silent" ranks (rank 1 stops itself) with a grace longer than the test,
// and waits.
func launcher() int {
	exe, err := os.Executable()
	if err != nil {
		return 2
	}
	l := Local{Procs: 2, Path: exe, Args: childArgs, Env: append(os.Environ(), childMode+"=sleep-stop"),
		Stdout: os.Stdout, Stderr: os.Stderr, Grace: time.Hour}
	if err := l.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestLocalChildrenDieWithTheLauncher: a launcher killed by SIGKILL takes
// its ranks with it, a stopped one too (which would hold a SIGTERM pending
// forever).
func TestLocalChildrenDieWithTheLauncher(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "0", "1")
	cmd.Env = append(os.Environ(), childMode+"=launcher")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pids := map[int]int{} // rank -> pid
	lines := bufio.NewScanner(stderr)
	for len(pids) < 2 && lines.Scan() {
		var rank, pid int
		if _, err := fmt.Sscanf(lines.Text(), "rank %d: pid %d", &rank, &pid); err == nil {
			pids[rank] = pid
		}
	}
	if len(pids) < 2 {
		t.Fatalf("the ranks did not say their pids (%v)", lines.Err())
	}
	for _, pid := range pids {
		defer func() { _ = syscall.Kill(pid, syscall.SIGKILL) }()
	}
	waitState(t, pids[1], "T", deathBound) // rank 1 stopped itself
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for rank, pid := range pids {
		waitState(t, pid, "gone", deathBound)
		t.Logf("rank %d (pid %d) died with its launcher", rank, pid)
	}
}

// waitState waits until process pid is in state ("T": stopped) or, for
// "gone", no longer runs (reaped, or a zombie nobody reaps), for at most
// bound.
func waitState(t *testing.T, pid int, state string, bound time.Duration) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		st := procState(pid)
		if st == state || (state == "gone" && (st == "" || st == "Z" || st == "X")) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is in state %q after %v, want %s", pid, st, bound, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procState is the state letter of process pid in /proc ("" if it is gone).
func procState(pid int) string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

// TestRankRefusesWithoutItsLauncher: a rank whose launcher is gone by the
// time it starts (its parent is not the launcher named in its
// environment) refuses to run, saying why, instead of running unwatched.
func TestRankRefusesWithoutItsLauncher(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env, err := NewLocalEnv()
	if err != nil {
		t.Fatal(err)
	}
	gone := 1 // init: not this test, which is the rank's parent
	cmd := exec.Command(exe, "0", "1")
	cmd.Env = append(append(os.Environ(), env...), childMode+"=tcp", EnvLocal+"=1", EnvLauncher+"="+strconv.Itoa(gone))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, stdout %q, stderr %q: want status 1", err, out.String(), errb.String())
	}
	if want := fmt.Sprintf("the launcher that started it (process %d) is gone", gone); !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q does not say %q", errb.String(), want)
	}
	// Its own parent as the launcher: it runs.
	cmd = exec.Command(exe, "0", "1")
	cmd.Env = append(append(os.Environ(), env...), childMode+"=tcp", EnvLocal+"=1", EnvLauncher+"="+strconv.Itoa(os.Getpid()))
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "sum 1 over tcp") {
		t.Errorf("with its launcher alive: %v, %s", err, b)
	}
}

// TestLocalNamesASilentRank: a rank that stops (SIGSTOP) while its peers
// give up on it is named first, as a dead rank is, with status 1, and the
// launcher ends it instead of waiting for it.
func TestLocalNamesASilentRank(t *testing.T) {
	l, _, errb := testLocal(t, "silent", 2)
	l.Grace = 2 * time.Second
	start := time.Now()
	err := l.Run(context.Background())
	var xe *ExitError
	if !errors.As(err, &xe) {
		t.Fatalf("Run: %v, want an *ExitError; stderr:\n%s", err, errb)
	}
	if xe.First.Rank != 1 || xe.ExitCode() != 1 {
		t.Fatalf("first failure: rank %d, status %d; want rank 1, status 1 (%v)", xe.First.Rank, xe.ExitCode(), err)
	}
	if want := "rank 1 stopped responding (stopped or stalled: still running 2s after the job failed without it) and was ended; then rank 0 failed because of another rank"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if d := time.Since(start); d > deathBound {
		t.Errorf("took %v", d)
	}
}
