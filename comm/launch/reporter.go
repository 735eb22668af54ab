package launch

// Which replica of rank 0 reports a replicated job's results (Kylix §V:
// a logical rank survives while one of its replicas does, so its results
// must too). Every replica of rank 0 holds the results; the one that
// writes them is chosen by the launcher, which sees which processes are
// alive: a replica that has its results asks for the turn on a socket the
// launcher gave it (descriptor EnvReportFD) and waits for the answer,
// "report" or "another replica reported". The launcher hands the turn to
// the lowest-numbered replica that asks, waiting for a lower one that has
// not asked yet at most ReportWait; when the holder of the turn dies
// before it exits with status 0, the turn goes to the next one. The
// holder beats on its socket while it writes (every quarter of its peer
// timeout); one silent for ReportWait (stopped, stalled) is killed, so
// that it never writes after another, and the turn goes on.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"
)

// EnvReportFD names the descriptor on which a replica of rank 0 of a
// replicated Local job asks for the turn to report (Plan.TakeReport).
const EnvReportFD = "GRAPHRUN_REPORT_FD"

// reportFD is the descriptor the launcher gives a replica of rank 0: the
// first of exec.Cmd.ExtraFiles.
const reportFD = 3

// Answers on the report socket.
const (
	askTurn   = 'r' // the replica has its results
	turnYes   = 'y' // write them
	turnOther = 'n' // another replica wrote them: exit without writing
)

// TakeReport reports whether this process writes the job's results. A
// process that prints and writes (Reports) does, unless it is a replica of
// rank 0 of a replicated Procs launch: it then asks the launcher, which
// gives the turn to one replica of rank 0 that is still alive, and waits
// for the answer. Call it once the results are ready, just before writing
// them.
func (p Plan) TakeReport() bool {
	if p.Job.ReportFD <= 0 || !p.MultiProcess() || p.Job.LogicalRank() != 0 {
		return p.Reports()
	}
	f := os.NewFile(uintptr(p.Job.ReportFD), "report")
	if f == nil {
		return false
	}
	if !askReport(f) {
		_ = f.Close()
		return false
	}
	go beat(f, p.Job.PeerTimeout/4) // until the process exits
	return true
}

// beat tells the launcher every period that this process, which holds the
// turn to report, is alive and writing.
func beat(w io.Writer, period time.Duration) {
	period = max(period, 10*time.Millisecond)
	for {
		time.Sleep(period)
		if _, err := w.Write([]byte{askTurn}); err != nil {
			return
		}
	}
}

// MayReport reports whether this process may write the job's results:
// one that Reports, or a replica of rank 0 of a replicated Procs launch
// (TakeReport says whether it does). It declares and checks the outputs.
func (p Plan) MayReport() bool {
	return p.Reports() || (p.Job.ReportFD > 0 && p.MultiProcess() && p.Job.LogicalRank() == 0)
}

// askReport asks for the turn on rw and waits for the answer: false if it
// is another replica's turn or the launcher is gone.
func askReport(rw io.ReadWriter) bool {
	if _, err := rw.Write([]byte{askTurn}); err != nil {
		return false
	}
	var b [1]byte
	if _, err := io.ReadFull(rw, b[:]); err != nil {
		return false
	}
	return b[0] == turnYes
}

// reportFDOf reads EnvReportFD: 0 when unset, an error when it is not a
// descriptor number.
func reportFDOf(env Lookup) (int, error) {
	v, ok := env(EnvReportFD)
	if !ok || v == "" {
		return 0, nil
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < reportFD || fd > 1<<16 {
		return 0, fmt.Errorf("%s: %q is not a descriptor number", EnvReportFD, v)
	}
	return fd, nil
}

// turns is the launcher's side: one socket per replica of rank 0.
type turns struct {
	procs  []int      // the processes that are replicas of rank 0, lowest first
	socks  []*os.File // the launcher's end of each one's socket
	child  []*os.File // the child's end, closed once it started
	asked  []bool
	ended  []bool // reaped, whatever its status
	answer []bool // answered already
	holder int    // index into procs of the replica holding the turn; -1: none
	done   bool   // the holder exited with status 0: the results are written
	wait   time.Duration
	since  time.Time // when the first replica that cannot be served yet asked
	asks   chan int  // indexes of replicas that asked (or whose socket closed)
	beats  chan int  // indexes of replicas that beat after asking
	beat   time.Time // when the holder was given the turn or last beat
}

// newTurns makes the sockets of the replicas of rank 0 of a job of procs
// processes, replicas per logical rank.
func newTurns(procs, replicas int, wait time.Duration) (*turns, error) {
	t := &turns{holder: -1, wait: wait}
	logical := procs / replicas
	for k := range replicas {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.close()
			return nil, fmt.Errorf("launch: the report socket of process %d: %w", k*logical, err)
		}
		if err := syscall.SetNonblock(fds[0], true); err != nil {
			_ = syscall.Close(fds[0])
			_ = syscall.Close(fds[1])
			t.close()
			return nil, fmt.Errorf("launch: the report socket of process %d: %w", k*logical, err)
		}
		t.procs = append(t.procs, k*logical)
		t.socks = append(t.socks, os.NewFile(uintptr(fds[0]), "report"))
		t.child = append(t.child, os.NewFile(uintptr(fds[1]), "report"))
	}
	n := len(t.procs)
	t.asked, t.ended, t.answer = make([]bool, n), make([]bool, n), make([]bool, n)
	t.asks, t.beats = make(chan int, n), make(chan int, n)
	return t, nil
}

// index returns the index of process proc among the replicas of rank 0, or -1.
func (t *turns) index(proc int) int {
	if t == nil {
		return -1
	}
	for i, p := range t.procs {
		if p == proc {
			return i
		}
	}
	return -1
}

// listen waits, for every replica, for its question; call it once the
// children started (their ends are closed then).
func (t *turns) listen() {
	if t == nil {
		return
	}
	for i, f := range t.child {
		_ = f.Close()
		t.child[i] = nil
	}
	for i, s := range t.socks {
		go func() {
			var b [1]byte
			if _, err := io.ReadFull(s, b[:]); err != nil || b[0] != askTurn {
				return // the child is gone, which its reaping tells
			}
			t.asks <- i
			for {
				if _, err := io.ReadFull(s, b[:]); err != nil {
					return
				}
				select {
				case t.beats <- i:
				default: // a beat is pending already
				}
			}
		}()
	}
}

// close closes every socket.
func (t *turns) close() {
	if t == nil {
		return
	}
	for _, fs := range [][]*os.File{t.socks, t.child} {
		for _, f := range fs {
			if f != nil {
				_ = f.Close()
			}
		}
	}
}

// reply answers replica i.
func (t *turns) reply(i int, b byte) {
	if t.answer[i] {
		return
	}
	t.answer[i] = true
	if _, err := t.socks[i].Write([]byte{b}); err != nil && !errors.Is(err, syscall.EPIPE) {
		return // the replica is gone: its reaping tells
	}
}

// reaped records that process proc was reaped with status code.
func (t *turns) reaped(proc, code int) {
	i := t.index(proc)
	if i < 0 {
		return
	}
	t.ended[i] = true
	if i == t.holder {
		if code == 0 {
			t.done = true
		} else {
			t.holder = -1 // the turn goes to the next replica that asks
		}
	}
}

// decide answers the replicas that can be answered now, and returns how
// long to wait before deciding again (0: nothing to wait for).
func (t *turns) decide(now time.Time) time.Duration {
	if t == nil {
		return 0
	}
	if t.done {
		for i := range t.procs {
			if t.asked[i] {
				t.reply(i, turnOther)
			}
		}
		return 0
	}
	if t.holder >= 0 {
		return 0
	}
	for i := range t.procs {
		if t.ended[i] || !t.asked[i] || t.answer[i] {
			continue
		}
		// A lower replica still running that has not asked yet goes
		// first, for at most t.wait after this one asked.
		lower := false
		for j := range i {
			lower = lower || (!t.ended[j] && !t.asked[j])
		}
		if lower {
			if t.since.IsZero() {
				t.since = now
			}
			if left := t.wait - now.Sub(t.since); left > 0 {
				return left
			}
		}
		t.holder, t.beat = i, now
		t.reply(i, turnYes)
		return 0
	}
	return 0
}

// silentHolder returns the process holding the turn if it has not beaten
// for wait (stopped or stalled while it writes), or -1 and how long it has
// left.
func (t *turns) silentHolder(now time.Time) (proc int, left time.Duration) {
	if t == nil || t.done || t.holder < 0 {
		return -1, 0
	}
	if left = t.wait - now.Sub(t.beat); left > 0 {
		return -1, left
	}
	return t.procs[t.holder], 0
}
