package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// timeLines are the output lines that hold times, which differ from run
// to run.
var timeLines = regexp.MustCompile(`(?m)^time (of set-up|per iteration): .*\n`)

// pagerankOutputs runs graphrun (the test binary as graphrun, in a process
// of its own) with stdin, and returns its stdout without the time lines,
// the --out file it wrote, and its stderr.
func pagerankOutputs(t *testing.T, stdin []byte, args ...string) (stdout, out, stderr string) {
	t.Helper()
	outPath := filepath.Join(t.TempDir(), "scores.tsv")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"pagerank", "--out", outPath, "--top", "20"}, args...)...)
	var so, se bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("pagerank %v: %v\n%s", args, err, se.String())
	}
	data := readFile(t, outPath)
	return timeLines.ReplaceAllString(so.String(), ""), string(data), se.String()
}

// TestPageRankCLIStdin reads the Luxembourg road graph from standard input
// (a pipe), in-process on 3 ranks and as 2 processes over TCP whose rank 0
// reads the launcher's standard input, gzipped and not: the scores, the
// top 20 and the iterations are exactly the file's.
func TestPageRankCLIStdin(t *testing.T) {
	clearJobEnv(t)
	file := filepath.Join(sharedData(t), "road-luxembourg-osm.mtx")
	data := readFile(t, file)
	for _, c := range []struct {
		ranks []string
		gz    bool
	}{{[]string{"--ranks", "3"}, false}, {[]string{"--procs", "2"}, true}} {
		wantOut, wantScores, _ := pagerankOutputs(t, nil, append([]string{file}, c.ranks...)...)
		in, format := data, "mtx"
		if c.gz {
			in, format = gzipData(t, data), "mtx.gz"
		}
		got, scores, stderr := pagerankOutputs(t, in, append([]string{"-", "--format", format}, c.ranks...)...)
		got = strings.Replace(got, "PageRank of -:", "PageRank of "+file+":", 1)
		if got != wantOut || scores != wantScores {
			t.Errorf("%v, gzip %v: standard input differs from the file:\n%s\nfile:\n%s", c.ranks, c.gz, got, wantOut)
		}
		if !strings.Contains(stderr, "peak memory: ") {
			t.Errorf("%v: no peak memory line on stderr:\n%s", c.ranks, stderr)
		}
	}
}

// gzipData compresses data with the gzip command's format.
func gzipData(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	cmd := exec.Command("gzip", "-c")
	cmd.Stdin, cmd.Stdout = bytes.NewReader(data), &buf
	if err := cmd.Run(); err != nil {
		t.Skipf("no gzip: %v", err)
	}
	return buf.Bytes()
}

// TestPageRankCLIFIFO reads a small graph from a FIFO (written while the
// run waits for it) on 2 ranks: the result is the regular file's.
func TestPageRankCLIFIFO(t *testing.T) {
	text := "# g\n1 2\n2 3\n3 1\n3 4\n4 4\n5 1\n"
	regular := writeEdges(t, text)
	fifo := filepath.Join(t.TempDir(), "g.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	want := runPageRankJSON(t, regular, "--ranks", "2")
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.WriteString(text)
			w.Close()
		}
	}()
	got := runPageRankJSON(t, fifo, "--ranks", "2", "--format", "snap")
	a, _ := json.Marshal(want.Top)
	b, _ := json.Marshal(got.Top)
	if string(a) != string(b) || got.Iterations != want.Iterations || got.Residual != want.Residual || got.Edges != want.Edges {
		t.Errorf("FIFO: %+v\nfile: %+v", got, want)
	}
}

// TestPageRankCLIInterruptedWhileWaiting interrupts runs that wait for
// their input: on a FIFO nobody opened for writing (a thread of the
// process waits in open(2) for a writer), and on standard input whose
// writer sent a line and then nothing (a thread waits in read(2)). The
// process ends, with a failure status, not killed by the signal.
func TestPageRankCLIInterruptedWhileWaiting(t *testing.T) {
	clearJobEnv(t)
	if !showsWaitChannels() {
		t.Skip("the kernel does not show where threads wait (/proc/PID/task/*/wchan)")
	}
	fifo := filepath.Join(t.TempDir(), "g.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	if _, err := pw.WriteString("1 2\n"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		stdin *os.File
		wait  []string // wait channels of a thread blocked as expected
	}{
		{[]string{"pagerank", fifo, "--format", "snap", "--ranks", "2"}, nil, []string{"wait_for_partner"}},
		{[]string{"pagerank", "-", "--format", "snap", "--ranks", "2"}, pr, []string{"pipe_read", "pipe_wait"}},
	} {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, c.args...)
		var stderr bytes.Buffer
		cmd.Stdin, cmd.Stderr = c.stdin, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		for !waitsIn(cmd.Process.Pid, c.wait) {
			select {
			case err := <-done:
				t.Fatalf("%v: exited before waiting for its input: %v\n%s", c.args, err, stderr.String())
			default:
			}
			time.Sleep(5 * time.Millisecond) // polls for a state, no deadline
		}
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		err = <-done
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() <= 0 {
			t.Errorf("%v interrupted while waiting: %v (a death by the signal is -1), stderr %s", c.args, err, stderr.String())
		}
	}
}

// waitsIn reports whether a thread of process pid sleeps in a kernel
// function whose name contains one of names (Linux: /proc/PID/task/*/wchan;
// wait_for_partner is the open of a FIFO without a writer, *pipe_read and
// pipe_wait a read of an empty pipe).
func waitsIn(pid int, names []string) bool {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
	for _, w := range tasks {
		b, err := os.ReadFile(w)
		if err != nil {
			continue
		}
		for _, name := range names {
			if strings.Contains(string(b), name) {
				return true
			}
		}
	}
	return false
}

// showsWaitChannels reports whether the kernel names where threads sleep:
// some thread of this test process (the runtime's idle ones) is asleep.
func showsWaitChannels() bool {
	tasks, _ := filepath.Glob("/proc/self/task/*/wchan")
	for _, w := range tasks {
		if b, err := os.ReadFile(w); err == nil {
			if c := strings.TrimSpace(string(b)); c != "" && c != "0" {
				return true
			}
		}
	}
	return false
}

// TestPageRankCLIStreamRules: a stream needs --format, cannot be elastic,
// and an input without edges (empty, comments only, an empty stream, a
// Matrix Market file of 0 entries) is a usage error that names it.
func TestPageRankCLIStreamRules(t *testing.T) {
	clearJobEnv(t)
	empty := writeEdges(t, "")
	comments := writeEdges(t, "# only\n# comments\n\n")
	mtx := writeFile(t, filepath.Join(t.TempDir(), "z.mtx"), "%%MatrixMarket matrix coordinate pattern general\n3 3 0\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"pagerank", "-"}, "--format"},
		{[]string{"pagerank", "-", "--format", "auto"}, "--format"},
		{[]string{"pagerank", os.DevNull}, "--format"},
		{[]string{"pagerank", "-", "--format", "snap", "--elastic", "--procs", "2"}, "--elastic"},
		{[]string{"pagerank", empty, "--ranks", "2"}, empty + ": no edges"},
		{[]string{"pagerank", comments}, comments + ": no edges"},
		{[]string{"pagerank", mtx, "--ranks", "3"}, mtx + ": no edges"},
		{[]string{"pagerank", os.DevNull, "--format", "snap", "--ranks", "2"}, os.DevNull + ": no edges"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
	// An empty standard input, through a real pipe.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "pagerank", "-", "--format", "el")
	var se bytes.Buffer
	cmd.Stdin, cmd.Stderr = strings.NewReader("# nothing\n"), &se
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(se.String(), "-: no edges") {
		t.Errorf("empty standard input: %v, stderr %q", err, se.String())
	}
}

// TestPageRankCLIPeakMemory checks the memory report: the job's peak in
// the JSON and on stderr, and per rank the edges of its matrix (they add
// up to the graph's) and its process's peak.
func TestPageRankCLIPeakMemory(t *testing.T) {
	out, stderr := mustRun(t, "pagerank", "--kron", "10", "--ranks", "3", "--json", "-", "--iterations", "2")
	var rep struct {
		Edges      int64 `json:"edges"`
		InputEdges int64 `json:"input_edges"`
		Peak       int64 `json:"peak_memory_bytes"`
		RankLoads  []struct {
			Rank  int   `json:"rank"`
			Edges int64 `json:"edges"`
			Peak  int64 `json:"peak_memory_bytes"`
		} `json:"rank_loads"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Peak <= 0 || rep.InputEdges != 16<<10 || len(rep.RankLoads) != 3 {
		t.Fatalf("peak %d, input edges %d, %d rank loads", rep.Peak, rep.InputEdges, len(rep.RankLoads))
	}
	var sum int64
	for r, l := range rep.RankLoads {
		if l.Rank != r || l.Peak <= 0 || l.Peak > rep.Peak {
			t.Errorf("rank load %d: %+v (job peak %d)", r, l, rep.Peak)
		}
		sum += l.Edges
	}
	if sum != rep.Edges {
		t.Errorf("the ranks' edges add up to %d, the graph has %d", sum, rep.Edges)
	}
	if !regexp.MustCompile(`peak memory: [0-9.]+ MB \([0-9.]+ B per edge read, 16384 edges\)`).MatchString(stderr) {
		t.Errorf("stderr lacks the peak memory line:\n%s", stderr)
	}
}
