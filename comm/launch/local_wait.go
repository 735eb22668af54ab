package launch

// Local's wait for its processes: reaping them, stopping the others once
// the job is lost or ctx is done, handing a replicated job's turn to report
// (reporter.go), and stopping the processes still running once a
// replicated job has finished without them (a stopped or stalled replica).

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// waiter is the state of Local.wait.
type waiter struct {
	l       *Local
	procs   []*exec.Cmd
	grace   time.Duration
	t       *turns
	running []bool
	// finished[g] says a replica of logical rank g exited with status 0
	// (Replicas > 1).
	finished []bool
	// straggler[r] says process r was still running when its job had
	// finished without it, and was killed (Replicas > 1).
	straggler []bool
	// silent[r] says process r was still running grace after its job was
	// lost (not interrupted): it was stopped or stalled, and its peers
	// gave up on it (their peer timeout) rather than it failing.
	silent  []bool
	stage   int // 0: waiting; 1: SIGTERM sent; 2: SIGKILL sent
	timer   *time.Timer
	timeout <-chan time.Time
	// done: the job finished (Replicas > 1); the processes still running
	// get grace, then SIGKILL.
	done    bool
	failed  []reapedStatus
	cause   error
	turnAt  *time.Timer
	turnDue <-chan time.Time
	// muted[r] says process r held the turn to report but stopped beating
	// (stopped or stalled while writing), and was killed.
	muted []bool
}

func (l *Local) newWaiter(procs []*exec.Cmd, grace time.Duration, t *turns) *waiter {
	w := &waiter{l: l, procs: procs, grace: grace, t: t, running: make([]bool, len(procs)),
		straggler: make([]bool, len(procs)), silent: make([]bool, len(procs)), muted: make([]bool, len(procs))}
	for r := range w.running {
		w.running[r] = true
	}
	if l.Replicas > 1 {
		w.finished = make([]bool, l.Procs/l.Replicas)
	}
	return w
}

// signalRunning sends SIGTERM (SIGKILL if kill, or if SIGTERM cannot be
// sent) to every process still running, and SIGCONT after SIGTERM, so that
// a stopped process handles it (it cleans up and exits) instead of
// holding it pending.
func (w *waiter) signalRunning(kill bool) {
	for r, c := range w.procs {
		if !w.running[r] {
			continue
		}
		if w.done {
			w.straggler[r] = true
		} else if w.cause == nil {
			w.silent[r] = true
		}
		if kill {
			_ = c.Process.Kill()
		} else if err := c.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			_ = c.Process.Kill()
		} else {
			_ = c.Process.Signal(syscall.SIGCONT)
		}
	}
}

// arm starts (or restarts) the grace timer.
func (w *waiter) arm() {
	if w.timer == nil {
		w.timer = time.NewTimer(w.grace)
		w.timeout = w.timer.C
	} else {
		w.timer.Reset(w.grace)
	}
}

// wait reaps the rank processes, in the order they end, and returns those
// that failed and why the launcher stopped the job, if it did (ctx's
// cause). Once the job is lost (jobLost) or ctx is done, the processes
// still running get grace to exit, then SIGTERM, then grace again, then
// SIGKILL. Once a replicated job finished (every logical rank has a
// replica that exited with status 0, and the results are written), the
// processes still running get grace, then SIGKILL.
func (w *waiter) wait(ctx context.Context) (failed []reapedStatus, cause error) {
	type reaped struct {
		rank int
		err  error
	}
	done := make(chan reaped, len(w.procs))
	for r, c := range w.procs {
		go func() { done <- reaped{r, c.Wait()} }()
	}
	defer func() {
		for _, t := range []*time.Timer{w.timer, w.turnAt} {
			if t != nil {
				t.Stop()
			}
		}
	}()
	var asks, beats chan int
	if w.t != nil {
		asks, beats = w.t.asks, w.t.beats
	}
	ctxDone := ctx.Done()
	for left := len(w.procs); left > 0; {
		select {
		case d := <-done:
			left--
			w.running[d.rank] = false
			w.reap(statusOf(d.rank, d.err))
		case i := <-asks:
			w.t.asked[i] = true
		case i := <-beats:
			if i == w.t.holder {
				w.t.beat = time.Now()
			}
		case <-w.turnDue:
			w.turnDue = nil
		case <-w.timeout:
			w.stage++
			if w.stage == 1 && !w.done {
				w.signalRunning(false)
				w.arm()
			} else {
				w.signalRunning(true)
				w.timeout = nil
			}
		case <-ctxDone:
			ctxDone = nil
			w.cause = context.Cause(ctx)
			if w.stage == 0 {
				w.stage = 1
				w.signalRunning(false)
				w.arm()
			}
		}
		w.decide()
	}
	return w.failed, w.cause
}

// reap takes note of a process that ended.
func (w *waiter) reap(st RankStatus) {
	if w.t != nil {
		w.t.reaped(st.Rank, st.Code)
	}
	if st.Code == 0 {
		if w.finished != nil {
			w.finished[st.Rank%len(w.finished)] = true
		}
		return
	}
	w.failed = append(w.failed, reapedStatus{st, time.Now(), w.stage > 0 || w.cause != nil || w.done})
	if w.timer == nil && w.stage == 0 && !w.done && w.l.jobLost(w.failed, st) {
		w.arm()
	}
}

// decide hands the turn to report, and notices that a replicated job has
// finished.
func (w *waiter) decide() {
	if w.t == nil {
		return
	}
	now := time.Now()
	if proc, _ := w.t.silentHolder(now); proc >= 0 && w.running[proc] && !w.muted[proc] {
		w.muted[proc] = true
		_ = w.procs[proc].Process.Kill() // its reaping passes the turn on
	}
	d := w.t.decide(now)
	if _, left := w.t.silentHolder(now); left > 0 && (d == 0 || left < d) {
		d = left
	}
	if d > 0 {
		if w.turnAt == nil {
			w.turnAt = time.NewTimer(d)
		} else {
			w.turnAt.Reset(d)
		}
		w.turnDue = w.turnAt.C
	}
	if w.done || w.stage > 0 || w.cause != nil || !w.t.done {
		return
	}
	for _, ok := range w.finished {
		if !ok {
			return
		}
	}
	w.done = true
	w.arm()
}
