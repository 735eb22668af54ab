package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/tcp"
)

// childMode, when set in the environment, makes the test binary act as one
// rank of a job started by Local instead of running the tests.
const childMode = "GRAPHRUN_LAUNCH_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(childMode); ok {
		os.Exit(child(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// child is one rank of a test job. Its arguments are its rank and the
// job's size (childArgs: what Local.Args gives it), and it behaves as mode
// says.
func child(mode string, args []string) int {
	if len(args) != 2 {
		return 2
	}
	r, err1 := strconv.Atoi(args[0])
	p, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil {
		return 2
	}
	rank, size := &r, &p
	switch mode {
	case "echo":
		for _, key := range []string{EnvToken, EnvCoordinator, EnvJob} {
			if os.Getenv(key) == "" {
				fmt.Fprintf(os.Stderr, "%s not set\n", key)
				return 4
			}
		}
		fmt.Printf("stdout of rank %d of %d\n", *rank, *size)
		fmt.Fprintf(os.Stderr, "first line of rank %d\nunterminated line of rank %d", *rank, *rank)
		return 0
	case "fail":
		if *rank == 1 {
			fmt.Fprintln(os.Stderr, "failing on purpose")
			return 3
		}
		time.Sleep(time.Minute)
		return 0
	case "blame": // rank 2 fails on its own, late; the others because of it, at once
		if *rank == 2 {
			time.Sleep(100 * time.Millisecond) // within the test's Grace
			fmt.Fprintln(os.Stderr, "g.txt:30001: bad line")
			return 2
		}
		if os.Getenv(EnvLocal) != "1" {
			return 1
		}
		return ExitBlamed
	case "report-kill0", "report-stall0", "report-stophold": // replicas of rank 0 write the results once
		if *rank == 0 && mode == "report-kill0" {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		if *rank == 0 && mode == "report-stall0" {
			time.Sleep(time.Minute) // a stalled process
		}
		if *rank == 2 && mode == "report-stophold" {
			time.Sleep(100 * time.Millisecond) // process 0 takes the turn
		}
		fd, err := reportFDOf(os.LookupEnv)
		if err != nil || (fd > 0) != (*rank%(*size/2) == 0) {
			fmt.Fprintf(os.Stderr, "report descriptor %d, %v\n", fd, err)
			return 4
		}
		p := Plan{Job: Job{Transport: TCP, Rank: *rank, Size: *size, Replicas: 2, ReportFD: fd}}
		if p.TakeReport() {
			if *rank == 0 && mode == "report-stophold" {
				_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) // stopped holding the turn
				// The stop takes effect at this thread's next entry into
				// the kernel, which may come after a write: sleep first.
				time.Sleep(time.Second)
			}
			fmt.Printf("results of process %d\n", *rank)
		}
		return 0
	case "stubborn": // ignores SIGTERM
		signal.Ignore(syscall.SIGTERM)
		fmt.Fprintln(os.Stderr, "ignoring SIGTERM")
		time.Sleep(time.Minute)
		return 0
	case "silent": // rank 1 stops itself; the others give up on it
		if *rank == 1 {
			_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
			time.Sleep(time.Minute)
			return 0
		}
		time.Sleep(100 * time.Millisecond)
		fmt.Fprintln(os.Stderr, "rank 1: no progress (PeerTimeout)")
		return ExitBlamed
	case "launcher": // a launcher of two "sleep-stop" ranks
		return launcher()
	case "sleep-stop": // says its pid; rank 1 stops itself, rank 0 sleeps
		fmt.Fprintf(os.Stderr, "pid %d\n", os.Getpid())
		if *rank == 1 {
			_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		}
		time.Sleep(time.Minute)
		return 0
	case "tcp", "tcp-crash":
		f := Config{Transport: TCP, Rank: *rank, RankSet: true, Size: *size, SizeSet: true, PeerTimeout: 10 * time.Second}
		plan, err := NewPlan(f, os.LookupEnv)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		job := plan.Job
		err = RunTCP(context.Background(), job, nil, func(ctx context.Context, c comm.Comm) error {
			v := []int64{int64(c.Rank() + 1)}
			if err := c.AllreduceInt64(ctx, "sum", v, comm.Sum); err != nil {
				return err
			}
			if c.Rank() == 0 {
				fmt.Printf("sum %d over %s\n", v[0], job.Transport)
			}
			if *rank == 2 && mode == "tcp-crash" {
				// A lost rank: no goodbye, no abort notice.
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
			return c.Barrier(ctx, "end")
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	return 99
}

func testLocal(t *testing.T, mode string, procs int) (Local, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	return Local{Procs: procs, Path: exe, Args: childArgs, Env: append(os.Environ(), childMode+"="+mode),
		Stdout: &out, Stderr: &errb, Grace: 300 * time.Millisecond}, &out, &errb
}

// childArgs are a test child's arguments: its rank and the job's size.
func childArgs(rank, size int) []string { return []string{strconv.Itoa(rank), strconv.Itoa(size)} }

func TestLocalForwardsOutput(t *testing.T) {
	l, out, errb := testLocal(t, "echo", 3)
	if err := l.Run(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	if out.String() != "stdout of rank 0 of 3\n" {
		t.Fatalf("stdout %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
	want := map[string]bool{}
	for r := range 3 {
		want[fmt.Sprintf("rank %d: first line of rank %d", r, r)] = true
		want[fmt.Sprintf("rank %d: unterminated line of rank %d", r, r)] = true
		if r > 0 {
			want[fmt.Sprintf("rank %d: stdout of rank %d of 3", r, r)] = true
		}
	}
	for _, line := range lines {
		if !want[line] {
			t.Errorf("unexpected stderr line %q", line)
		}
		delete(want, line)
	}
	if len(want) > 0 {
		t.Errorf("missing stderr lines %v in\n%s", want, errb)
	}
}

func TestLocalRunsATCPJob(t *testing.T) {
	l, out, errb := testLocal(t, "tcp", 4)
	if err := l.Run(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	if out.String() != "sum 10 over tcp\n" {
		t.Fatalf("stdout %q, stderr:\n%s", out, errb)
	}
}

// TestLocalLostRank: a rank that dies in the middle of a job makes every
// other rank fail at once, naming it, and the launcher reports it first.
func TestLocalLostRank(t *testing.T) {
	l, _, errb := testLocal(t, "tcp-crash", 4)
	l.Grace = 20 * time.Second // the peers must fail on their own
	start := time.Now()
	err := l.Run(context.Background())
	var xe *ExitError
	if !errors.As(err, &xe) || xe.First.Rank != 2 || xe.ExitCode() != 128+9 || len(xe.Others) != 3 {
		t.Fatalf("error %v (%#v), stderr:\n%s", err, xe, errb)
	}
	if time.Since(start) > 15*time.Second {
		t.Fatalf("the job took %v to fail", time.Since(start))
	}
	for _, r := range []int{0, 1, 3} {
		if !strings.Contains(errb.String(), fmt.Sprintf("rank %d: rank %d of 4: the job failed because of rank 2:", r, r)) {
			t.Errorf("rank %d does not blame rank 2:\n%s", r, errb)
		}
	}
	if !strings.Contains(err.Error(), "rank 2 was killed by signal 9 (killed); then ranks 0, 1, 3 exited with status 1") {
		t.Errorf("error %q", err)
	}
}

func TestLocalStopsTheOthersAfterAFailure(t *testing.T) {
	l, _, errb := testLocal(t, "fail", 3)
	start := time.Now()
	err := l.Run(context.Background())
	var xe *ExitError
	if !errors.As(err, &xe) || xe.First.Rank != 1 || xe.ExitCode() != 3 || len(xe.Others) != 2 {
		t.Fatalf("error %v, stderr:\n%s", err, errb)
	}
	for _, o := range xe.Others {
		if o.Code != 128+int(syscall.SIGTERM) {
			t.Errorf("rank %d: %+v, want SIGTERM", o.Rank, o)
		}
	}
	if !strings.Contains(errb.String(), "rank 1: failing on purpose\n") {
		t.Errorf("stderr:\n%s", errb)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestLocalKillsRanksIgnoringSIGTERM(t *testing.T) {
	l, _, _ := testLocal(t, "stubborn", 2)
	// Interrupt the job once both ranks ignore SIGTERM (a loaded machine
	// may take a while to start them).
	ready := &lineCounter{want: "ignoring SIGTERM", n: 2, done: make(chan struct{})}
	l.Stderr = ready
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		select {
		case <-ready.done:
		case <-time.After(20 * time.Second):
		}
		cancel(errors.New("interrupted"))
	}()
	err := l.Run(ctx)
	var xe *ExitError
	if !errors.As(err, &xe) || xe.ExitCode() != 128+int(syscall.SIGKILL) || len(xe.Others) != 1 {
		t.Fatalf("error %v", err)
	}
	if !strings.Contains(err.Error(), "job stopped (interrupted)") || !strings.Contains(err.Error(), "killed by signal 9") {
		t.Fatalf("error %q", err)
	}
}

// lineCounter is a Local's Stderr that closes done once n of the lines
// written to it contain want. Local writes whole lines, one at a time.
type lineCounter struct {
	want string
	n    int
	done chan struct{}
}

func (w *lineCounter) Write(b []byte) (int, error) {
	if w.n > 0 && bytes.Contains(b, []byte(w.want)) {
		if w.n--; w.n == 0 {
			close(w.done)
		}
	}
	return len(b), nil
}

func TestLocalBadProgram(t *testing.T) {
	l := Local{Procs: 2, Path: "/nonexistent/graphrun"}
	if err := l.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "starting rank 0") {
		t.Fatalf("error %v", err)
	}
	if err := (Local{Procs: 0, Path: "x"}).Run(context.Background()); err == nil {
		t.Fatal("0 processes accepted")
	}
}

func TestPrefixWriterKeepsLinesWhole(t *testing.T) {
	var b bytes.Buffer
	sink := &lineSink{w: &b}
	w := sink.writer(12)
	for _, chunk := range []string{"ab", "c\nde", "f\n\ng", ""} {
		if n, err := w.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatal(n, err)
		}
	}
	w.flush()
	if want := "rank 12: abc\nrank 12: def\nrank 12: \nrank 12: g\n"; b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	if _, err := w.Write(bytes.Repeat([]byte("x"), maxLine+5)); err != nil {
		t.Fatal(err)
	}
	w.flush()
	if b.Len() != len("rank 12: ")+maxLine+5+1 {
		t.Fatalf("long line written as %d bytes", b.Len())
	}
}

func TestBlame(t *testing.T) {
	err := Blame(1, 4, fmt.Errorf("kernel 1: %w", comm.ErrAborted))
	if err.Error() != "rank 1 of 4: kernel 1: comm: job aborted" {
		t.Fatalf("%q", err)
	}
	if BlamedExit(err, MapLookup(map[string]string{EnvLocal: "1"})) {
		t.Fatal("a rank's own failure exits as blamed")
	}
	err = Blame(1, 4, fmt.Errorf("kernel 1: %w", &tcp.PeerError{Rank: 3, Err: errors.New("connection lost")}))
	if err.Error() != "rank 1 of 4: the job failed because of rank 3: kernel 1: rank 3: connection lost" {
		t.Fatalf("%q", err)
	}
	if !BlamedExit(err, MapLookup(map[string]string{EnvLocal: "1"})) || BlamedExit(err, MapLookup(nil)) {
		t.Fatal("BlamedExit ignores the error or the environment")
	}
}

// TestLocalNamesTheRankAtFault: the rank that failed on its own is named
// first and gives the job its status, although the ranks that failed
// because of it exited first.
func TestLocalNamesTheRankAtFault(t *testing.T) {
	l, _, _ := testLocal(t, "blame", 3)
	l.Grace = 10 * time.Second // rank 2 ends on its own, however loaded the machine
	err := l.Run(context.Background())
	var xe *ExitError
	if !errors.As(err, &xe) {
		t.Fatalf("Run: %v, want an *ExitError", err)
	}
	if xe.First.Rank != 2 || xe.ExitCode() != 2 {
		t.Fatalf("first failure: rank %d, status %d; want rank 2, status 2 (%v)", xe.First.Rank, xe.ExitCode(), err)
	}
	if want := "rank 2 exited with status 2; then ranks 0, 1 failed because of another rank"; err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

// TestLocalReplicaReports: in a job of 2 logical ranks × 2 replicas whose
// process 0 dies or stalls before writing the results, or stops while it
// holds the turn to write them, rank 0's other replica, process 2, writes
// them once, and the job succeeds; the stalled process is killed, and
// named.
func TestLocalReplicaReports(t *testing.T) {
	for _, mode := range []string{"report-kill0", "report-stall0", "report-stophold"} {
		t.Run(mode, func(t *testing.T) {
			l, out, errb := testLocal(t, mode, 4)
			l.Replicas, l.ReportWait = 2, 200*time.Millisecond
			if mode == "report-stophold" {
				// The holder beats every 10 ms: a machine loaded enough to
				// starve it for 2 s is hard to tell from a stopped one.
				l.ReportWait = 2 * time.Second
			}
			start := time.Now()
			ctx, cancel := context.WithTimeoutCause(context.Background(), deathBound, errors.New("the job hangs"))
			defer cancel()
			if err := l.Run(ctx); err != nil {
				t.Fatalf("%v\n%s", err, errb)
			}
			if out.String() != "results of process 2\n" {
				t.Fatalf("stdout %q, stderr:\n%s", out, errb)
			}
			if !strings.Contains(errb.String(), "launch: process 0 (replica 0 of rank 0) ") {
				t.Errorf("process 0 is not named:\n%s", errb)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}
