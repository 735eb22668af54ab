package launch

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/graphrun/graphrun/comm/tcp"
)

// DefaultGrace is Local.Grace's default.
const DefaultGrace = 10 * time.Second

// maxLine bounds the bytes of a line held back for its prefix; a longer
// line is written in pieces.
const maxLine = 64 << 10

// Local starts the ranks of a TCP job as child processes on this machine,
// talking over 127.0.0.1. Child R of P runs Path with Args(R, P), in the
// environment Env plus GRAPHRUN_TOKEN (32 fresh random bytes, hex),
// GRAPHRUN_JOB (a fresh id), GRAPHRUN_COORDINATOR (127.0.0.1 and a port
// that was free a moment before) and EnvLocal. Its standard input is
// empty, but for rank 0's: Stdin.
type Local struct {
	Procs int    // number of ranks, at least 1
	Path  string // the program, usually os.Executable()
	// Args returns the arguments (without the program name) of the
	// process of rank rank of size: what makes the program that TCP rank
	// in the environment above, which only the program knows. nil: none.
	Args func(rank, size int) []string
	Env  []string // its environment, usually os.Environ()

	// Stdout receives rank 0's standard output as it is. Stderr receives
	// every rank's standard error, and the other ranks' standard output,
	// line by line behind "rank N: ".
	Stdout, Stderr io.Writer

	// Stdin, if set, is process 0's standard input (an input read from
	// "-" is rank 0's to read).
	Stdin io.Reader

	// Grace is how long the other ranks may take to exit on their own once
	// one rank failed (a TCP job fails everywhere within a round trip, or a
	// peer timeout) or once ctx is done, before they are sent SIGTERM; and
	// then how long they have before SIGKILL. Default DefaultGrace.
	Grace time.Duration

	// Replicas is the job's replication factor S (0 or 1: none): the Procs
	// processes are Procs/S logical ranks, process P being replica
	// P / (Procs/S) of rank P mod (Procs/S). A process that dies then
	// fails the job only if it was the last live replica of its rank, or
	// it exited with a status of its own (an error rather than a signal):
	// Run returns nil when every rank had a replica that finished, and
	// reports the lost replicas on Stderr.
	Replicas int

	// Elastic says the job recovers from losing a process other than
	// process 0 by shrinking (Zhang and Qiu §V-B; an elastic PageRank): a process
	// killed by a signal is then not fatal by itself. The survivors
	// either finish (Run returns nil and reports the lost processes on
	// Stderr) or fail with statuses of their own, which fail the job.
	// Not with Replicas > 1.
	Elastic bool

	// ReportWait, with Replicas > 1, is how long a replica of rank 0 that
	// has its results waits for a lower-numbered one that has not, before
	// it writes them itself (reporter.go); the job's peer timeout, which
	// tells a stalled process. Default Grace.
	ReportWait time.Duration
}

// RankStatus is how one rank's process ended.
type RankStatus struct {
	Rank int
	// Code is the exit status; 128+n if signal n ended the process (as a
	// shell reports it).
	Code int
	// How says it in words: "exited with status 1", "was killed by signal 9
	// (killed)", "failed because of another rank".
	How string
	// Blamed says the rank failed because of another rank (it exited with
	// ExitBlamed; Code is then 1).
	Blamed bool
}

// ExitError is a local job in which some rank failed.
type ExitError struct {
	First  RankStatus   // the rank whose failure was seen first
	Others []RankStatus // the other ranks that failed, by rank
	Cause  error        // why the launcher stopped the job, if it did (ctx's cause)
}

func (e *ExitError) Error() string {
	var b strings.Builder
	if e.Cause != nil {
		fmt.Fprintf(&b, "job stopped (%v): ", e.Cause)
	}
	fmt.Fprintf(&b, "rank %d %s", e.First.Rank, e.First.How)
	// Group the others by how they ended.
	byHow := map[string][]int{}
	var hows []string
	for _, s := range e.Others {
		if _, ok := byHow[s.How]; !ok {
			hows = append(hows, s.How)
		}
		byHow[s.How] = append(byHow[s.How], s.Rank)
	}
	for i, how := range hows {
		if i == 0 {
			b.WriteString("; then ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(rankList(byHow[how]))
		b.WriteString(" ")
		b.WriteString(how)
	}
	return b.String()
}

// ExitCode is the exit status graphrun should end with: the first failed
// rank's.
func (e *ExitError) ExitCode() int { return e.First.Code }

// Unwrap returns Cause.
func (e *ExitError) Unwrap() error { return e.Cause }

func rankList(ranks []int) string {
	parts := make([]string, len(ranks))
	for i, r := range ranks {
		parts[i] = strconv.Itoa(r)
	}
	if len(ranks) == 1 {
		return "rank " + parts[0]
	}
	return "ranks " + strings.Join(parts, ", ")
}

// NewLocalEnv returns the variables Local adds to its children's
// environment: a fresh token and job id, and a coordinator address on
// 127.0.0.1 with a port that is free now.
func NewLocalEnv() ([]string, error) {
	token, jobID, err := tcp.NewJobSecret("local-")
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("launch: finding a free port for the coordinator: %w", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return nil, fmt.Errorf("launch: finding a free port for the coordinator: %w", err)
	}
	return []string{
		EnvToken + "=" + hex.EncodeToString(token),
		EnvJob + "=" + jobID,
		EnvCoordinator + "=" + addr,
	}, nil
}

// Run starts the ranks, forwards their output and waits for all of them.
// It returns nil if every rank exits with status 0 and an *ExitError
// otherwise. When a rank fails, or ctx is done, the ranks still running
// get Grace to exit on their own, then SIGTERM, then after Grace again
// SIGKILL.
func (l Local) Run(ctx context.Context) error {
	if l.Procs < 1 {
		return fmt.Errorf("launch: %d processes, need at least 1", l.Procs)
	}
	if l.Path == "" {
		return errors.New("launch: no program to start")
	}
	grace := l.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	stdout, stderr := l.Stdout, l.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	jobEnv, err := NewLocalEnv()
	if err != nil {
		return err
	}
	env := append(append(append([]string(nil), l.Env...), jobEnv...), EnvLocal+"=1", launcherEnv())
	sink := &lineSink{w: stderr}
	var t *turns
	if l.Replicas > 1 {
		wait := l.ReportWait
		if wait <= 0 {
			wait = grace
		}
		if t, err = newTurns(l.Procs, l.Replicas, wait); err != nil {
			return err
		}
		defer t.close()
		stdout = &lockedWriter{w: stdout}
	}
	procs, writers, err := l.start(env, grace, stdout, sink, t)
	if err != nil {
		return err
	}
	t.listen()
	w := l.newWaiter(procs, grace, t)
	failed, cause := w.wait(ctx)
	for _, w := range writers {
		w.flush()
	}
	return l.verdict(failed, cause, w, stderr)
}

// lockedWriter serialises the writes of the processes that share it (the
// replicas of rank 0 share standard output, of which one writes).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// start starts the rank processes in the environment env: rank 0's
// standard output (and its replicas', t) goes to stdout, every other
// output line by line to sink.
// It returns the processes and the writers to flush once they are done;
// if one fails to start, it kills those it started.
func (l Local) start(env []string, grace time.Duration, stdout io.Writer, sink *lineSink, t *turns) ([]*exec.Cmd, []*prefixWriter, error) {
	var writers []*prefixWriter
	procs := make([]*exec.Cmd, l.Procs)
	for r := range l.Procs {
		args := []string{l.Path}
		if l.Args != nil {
			args = append(args, l.Args(r, l.Procs)...)
		}
		// WaitDelay bounds the copying of a rank's output after it
		// exited (a process it left behind may hold its pipes): at least
		// DefaultGrace, since on a loaded machine the copier may not run
		// for a while, which a short Grace cannot tell from a hang.
		c := &exec.Cmd{Path: l.Path, Args: args, Env: env, SysProcAttr: childAttr(), WaitDelay: max(grace, DefaultGrace)}
		errw := sink.writer(r)
		writers = append(writers, errw)
		c.Stderr = errw
		if i := t.index(r); i >= 0 {
			// A replica of rank 0: it may write the results (reporter.go).
			c.Stdout = stdout
			c.ExtraFiles = []*os.File{t.child[i]}
			c.Env = append(slices.Clip(env), EnvReportFD+"="+strconv.Itoa(reportFD))
		}
		if r == 0 {
			c.Stdout = stdout
			c.Stdin = l.Stdin
		} else if c.Stdout == nil {
			outw := sink.writer(r)
			writers = append(writers, outw)
			c.Stdout = outw
		}
		if err := c.Start(); err != nil {
			for _, started := range procs[:r] {
				_ = started.Process.Kill()
				_ = started.Wait()
			}
			return nil, nil, fmt.Errorf("launch: starting rank %d (%s): %w", r, l.Path, err)
		}
		procs[r] = c
	}
	return procs, writers, nil
}

// verdict is Run's result once every rank ended: nil if none failed, or
// if the job survived its failures (an elastic job that lost processes
// other than 0 to signals, or a replicated job in which every rank had a
// replica that finished), which it reports on stderr; an *ExitError
// otherwise.
func (l Local) verdict(failed []reapedStatus, cause error, w *waiter, stderr io.Writer) error {
	if len(failed) == 0 {
		return nil // every rank finished, even if ctx was done meanwhile
	}
	if l.Elastic && l.Replicas <= 1 && cause == nil && elasticSurvived(failed) {
		for _, f := range failed {
			fmt.Fprintf(stderr, "launch: process %d %s; the survivors finished the job without it (elastic)\n", f.Rank, f.How)
		}
		return nil
	}
	if l.Replicas > 1 && cause == nil && w.survived() {
		logical := l.Procs / l.Replicas
		for _, f := range failed {
			how := f.How
			switch {
			case w.muted[f.Rank]:
				how = fmt.Sprintf("held the turn to write the results but went silent for %v (stopped or stalled) and was killed", w.t.wait)
			case w.straggler[f.Rank]:
				how = fmt.Sprintf("was still running %v after the job finished (stopped or stalled) and was killed", w.grace)
			}
			fmt.Fprintf(stderr, "launch: process %d (replica %d of rank %d) %s; its rank's other replicas finished the job\n",
				f.Rank, f.Rank/logical, f.Rank%logical, how)
		}
		return nil
	}
	first := w.nameSilent(failed)
	var others []RankStatus
	for i, f := range failed {
		if i != first {
			others = append(others, f.RankStatus)
		}
	}
	sort.Slice(others, func(i, j int) bool { return others[i].Rank < others[j].Rank })
	return &ExitError{First: failed[first].RankStatus, Others: others, Cause: cause}
}

// nameSilent returns the index in failed of the failure to name first:
// firstFailure's, unless every process that failed did so because of
// another (or was stopped by the launcher) and some processes were still
// running grace after the job was lost. Those were stopped or stalled:
// their peers gave up on them after their peer timeout, and the launcher
// ended them. They are then the processes at fault, marked as having
// failed on their own with status 1, and the lowest is named first.
func (w *waiter) nameSilent(failed []reapedStatus) int {
	first := firstFailure(failed)
	if f := failed[first]; !f.Blamed && !f.afterStop {
		return first
	}
	silent := -1
	for i := range failed {
		f := &failed[i]
		if !w.silent[f.Rank] {
			continue
		}
		f.Code, f.Blamed = 1, false
		f.How = fmt.Sprintf("stopped responding (stopped or stalled: still running %v after the job failed without it) and was ended", w.grace)
		if silent < 0 || f.Rank < failed[silent].Rank {
			silent = i
		}
	}
	if silent >= 0 {
		return silent
	}
	return first
}

// settle is how close together failures are taken to be one event: when
// a rank dies, its peers notice within microseconds, and the launcher may
// reap them before the rank that died.
const settle = 250 * time.Millisecond

// reapedStatus is a failed rank as the launcher saw it.
type reapedStatus struct {
	RankStatus
	at        time.Time // when it was reaped
	afterStop bool      // reaped after the launcher began to stop the ranks
}

// firstFailure picks the failure that caused the others: a rank killed by
// a signal the launcher did not send, reaped within settle of the first
// failure (a rank lost to kill -9 or the OOM killer, whose peers exited
// because of it); else the first rank reaped that failed on its own (its
// peers, which exit with ExitBlamed, may be reaped before it); else the
// first one reaped.
func firstFailure(failed []reapedStatus) int {
	for i, f := range failed {
		if f.at.Sub(failed[0].at) > settle || f.afterStop {
			break
		}
		if f.Code > 128 && strings.Contains(f.How, "signal") {
			return i
		}
	}
	for i, f := range failed {
		if !f.Blamed && !f.afterStop {
			return i
		}
	}
	return 0
}

// statusOf turns what exec.Cmd.Wait returned into a RankStatus.
func statusOf(rank int, err error) RankStatus {
	if err == nil {
		return RankStatus{Rank: rank, How: "exited with status 0"}
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		// The process ended, but its output could not be copied completely.
		return RankStatus{Rank: rank, Code: 1, How: fmt.Sprintf("failed: %v", err)}
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return RankStatus{Rank: rank, Code: 128 + int(ws.Signal()), How: fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())}
	}
	code := ee.ExitCode()
	if code == ExitBlamed {
		return RankStatus{Rank: rank, Code: 1, How: "failed because of another rank", Blamed: true}
	}
	if code <= 0 {
		code = 1
	}
	return RankStatus{Rank: rank, Code: code, How: fmt.Sprintf("exited with status %d", ee.ExitCode())}
}

// lineSink serialises whole lines from several writers onto one.
type lineSink struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *lineSink) writer(rank int) *prefixWriter {
	return &prefixWriter{sink: s, prefix: []byte("rank " + strconv.Itoa(rank) + ": ")}
}

func (s *lineSink) writeLine(prefix, line []byte, newline bool) {
	buf := make([]byte, 0, len(prefix)+len(line)+1)
	buf = append(append(buf, prefix...), line...)
	if newline {
		buf = append(buf, '\n')
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.w.Write(buf) // a lost line of a child's output must not fail the child
}

// prefixWriter writes every line it receives behind its prefix. It is used
// by one goroutine at a time (exec.Cmd's copier).
type prefixWriter struct {
	sink    *lineSink
	prefix  []byte
	partial []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.partial = append(p.partial, b...)
			if len(p.partial) >= maxLine {
				p.flush()
			}
			break
		}
		line := b[:i+1]
		if len(p.partial) > 0 {
			line = append(p.partial, line...)
			p.partial = p.partial[:0]
		}
		p.sink.writeLine(p.prefix, line, false)
		b = b[i+1:]
	}
	return n, nil
}

// flush writes a last line that had no newline.
func (p *prefixWriter) flush() {
	if len(p.partial) > 0 {
		p.sink.writeLine(p.prefix, p.partial, true)
		p.partial = p.partial[:0]
	}
}

// jobLost reports whether the failure st, the last of failed, dooms the
// job, so that the launcher starts stopping the other processes: always
// without replication; with it, when no replica of its rank is left (a
// replica that fails while a sibling goes on, given up by its peers as
// stalled, say, leaves the job to the sibling).
func (l *Local) jobLost(failed []reapedStatus, st RankStatus) bool {
	if l.Elastic && l.Replicas <= 1 {
		return st.Code <= 128 || st.Rank == 0
	}
	if l.Replicas <= 1 {
		return true
	}
	logical := l.Procs / l.Replicas
	lost := 0
	for _, f := range failed {
		if f.Rank%logical == st.Rank%logical {
			lost++
		}
	}
	return lost >= l.Replicas
}

// survived reports whether every rank of a replicated job had a replica
// that finished (exited with status 0), and the results were written when
// a replica of rank 0 asked to write them.
func (w *waiter) survived() bool {
	for _, ok := range w.finished {
		if !ok {
			return false
		}
	}
	if w.t != nil {
		for i := range w.t.procs {
			if w.t.asked[i] && !w.t.done {
				return false
			}
		}
	}
	return true
}

// elasticSurvived reports whether every failure of an elastic job was a
// process other than 0 killed by a signal (the survivors then finished).
func elasticSurvived(failed []reapedStatus) bool {
	for _, f := range failed {
		if f.Code <= 128 || f.Rank == 0 || f.afterStop {
			return false
		}
	}
	return true
}
