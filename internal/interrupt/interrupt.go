// Package interrupt runs graphrun's command as a process that SIGINT and
// SIGTERM end cleanly: the command's context is cancelled, its output is
// silenced (no cascade of per-rank "context canceled" errors), its
// temporary files are removed (internal/output's Registry), and the process
// ends with one line and the shell's status for the signal. It implements
// no paper: it is how every graphrun command fails without hanging.
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/graphrun/graphrun/internal/output"
)

// Grace is how long an interrupted command has to return before the
// process exits without it: every phase that checks its context returns
// well within it; one that cannot be interrupted (an open(2) of a FIFO
// that no process reads, a computation without cancellation checks) is
// left behind, and the process exits anyway, removing its temporary files
// first.
const Grace = 600 * time.Millisecond

// ErrInterrupted is the cause of an interrupted command's context.
var ErrInterrupted = errors.New("interrupted")

// Run runs the command run with SIGINT and SIGTERM handled and returns the
// process's exit status: run's own, or after a signal — once run returned,
// or after Grace, or at a second signal — the temporary files removed,
// "graphrun: interrupted" on stderr and 130 for SIGINT, 143 for SIGTERM.
// run's context carries the output Registry; its writers drop everything
// once the signal came.
func Run(stdout, stderr io.Writer, run func(ctx context.Context, stdout, stderr io.Writer) int) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	reg := output.NewRegistry()
	why := &lastWord{}
	ctx, cancel := context.WithCancelCause(context.WithValue(output.WithRegistry(context.Background(), reg), lastWordKey{}, why))
	defer cancel(nil)
	out, errOut := &gate{w: stdout}, &gate{w: stderr}
	done := make(chan int, 1)
	go func() { done <- run(ctx, out, errOut) }()
	var sig os.Signal
	select {
	case code := <-done:
		return code
	case sig = <-sigs:
	}
	out.close()
	errOut.close()
	cancel(ErrInterrupted)
	grace := time.NewTimer(Grace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
	case <-sigs:
	}
	reg.Cleanup()
	if line := why.get(); line != "" {
		fmt.Fprintln(stderr, line)
	}
	fmt.Fprintln(stderr, "graphrun: interrupted")
	return signalStatus(sig)
}

// Explain gives an interrupted command one line to print before
// "graphrun: interrupted", when the signal is a consequence of something
// the user must hear: an MPI rank that mpirun stops because another rank
// died says which one (comm/launch). The last call wins; outside Run it
// does nothing.
func Explain(ctx context.Context, line string) {
	if w, ok := ctx.Value(lastWordKey{}).(*lastWord); ok {
		w.set(line)
	}
}

type lastWordKey struct{}

// lastWord is the line Explain leaves for Run.
type lastWord struct{ line atomic.Pointer[string] }

func (w *lastWord) set(line string) { w.line.Store(&line) }

func (w *lastWord) get() string {
	if p := w.line.Load(); p != nil {
		return *p
	}
	return ""
}

// signalStatus is the exit status a shell gives a process that sig ended:
// 128 + the signal's number.
func signalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// gate passes writes on until it is closed, then drops them: an
// interrupted command prints nothing more.
type gate struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// Fd is the file descriptor under the gate (progress bars draw only on a
// terminal), or ^0 if it is not a file.
func (g *gate) Fd() uintptr {
	if f, ok := g.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}
