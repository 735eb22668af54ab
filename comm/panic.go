package comm

import (
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
	pcs := make([]uintptr, 64)
	// Skip runtime.Callers, NewPanicError and the deferred function.
	n := runtime.Callers(3, pcs)
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
