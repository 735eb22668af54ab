package comm

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// PanicError is a panic recovered from a rank's function by a launcher
// (inproc.Run, tcp.LaunchLoopback).
type PanicError struct {
	Value any    // the value passed to panic
	Stack string // the innermost frames of the panicking goroutine, one "function\n\tfile:line" per frame
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("panic: %v\n%s", e.Value, e.Stack)
}

// Unwrap returns the panic value if it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// MaxPanicFrames bounds the stack kept in a PanicError.
const MaxPanicFrames = 12

// NewPanicError wraps the recovered value v with the panicking goroutine's
// innermost frames, from the panic site outwards up to (not including) the
// first function whose name ends in stopAt (the launcher's rank wrapper). It
// must be called directly from the deferred function that recovered v.
func NewPanicError(v any, stopAt string) *PanicError {
	// Skip runtime.Callers, newPanicError, NewPanicError and the deferred
	// function.
	return newPanicError(v, stopAt, 4)
}

// ErrRankGoexit is the error of a rank function that exited through
// runtime.Goexit instead of returning.
var ErrRankGoexit = errors.New("rank function exited through runtime.Goexit (t.FailNow or t.Fatal called on a rank goroutine?)")

// RankExit is how every launcher's deferred rank wrapper judges the end of
// a rank's function: a PanicError when it panicked with recovered (the
// deferred function's recover(), passed straight in; stopAt as for
// NewPanicError), ErrRankGoexit when it neither panicked nor returned,
// else err, what it returned.
func RankExit(recovered any, returned bool, stopAt string, err error) error {
	switch {
	case recovered != nil:
		// Skip runtime.Callers, newPanicError, RankExit and the deferred
		// function.
		return newPanicError(recovered, stopAt, 4)
	case !returned:
		return ErrRankGoexit
	}
	return err
}

// newPanicError is NewPanicError skipping skip frames of the panicking
// goroutine's stack, the first the deferred function's callees.
func newPanicError(v any, stopAt string, skip int) *PanicError {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(skip, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var stack strings.Builder
	kept, atPanicSite := 0, false
	for more := n > 0; more && kept < MaxPanicFrames; {
		var f runtime.Frame
		f, more = frames.Next()
		// The innermost frames are runtime.gopanic and its helpers, not
		// where the panic happened.
		if !atPanicSite && (strings.HasPrefix(f.Function, "runtime.") || strings.HasPrefix(f.Function, "internal/runtime/")) {
			continue
		}
		atPanicSite = true
		if strings.HasSuffix(f.Function, stopAt) {
			break
		}
		fmt.Fprintf(&stack, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
		kept++
	}
	return &PanicError{Value: v, Stack: stack.String()}
}
