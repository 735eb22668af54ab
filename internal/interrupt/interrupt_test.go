package interrupt

import (
	"bytes"
	"context"
	"io"
	"os"
	"syscall"
	"testing"
)

// TestRunPassesStatusAndOutput: without a signal, Run returns the
// command's status and its output reaches the writers.
func TestRunPassesStatusAndOutput(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Run(&out, &errOut, func(ctx context.Context, stdout, stderr io.Writer) int {
		if ctx.Err() != nil {
			t.Errorf("context done without a signal: %v", ctx.Err())
		}
		io.WriteString(stdout, "out")
		io.WriteString(stderr, "err")
		return 3
	})
	if code != 3 || out.String() != "out" || errOut.String() != "err" {
		t.Fatalf("status %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// TestGateAndStatus: a closed gate drops writes, a gate over a non-file
// has no descriptor, and the statuses are the shell's.
func TestGateAndStatus(t *testing.T) {
	var b bytes.Buffer
	g := &gate{w: &b}
	g.Write([]byte("a"))
	g.close()
	if n, err := g.Write([]byte("bc")); n != 2 || err != nil || b.String() != "a" {
		t.Fatalf("closed gate: %d, %v, %q", n, err, b.String())
	}
	if g.Fd() != ^uintptr(0) {
		t.Fatalf("Fd of a buffer: %d", g.Fd())
	}
	if signalStatus(os.Interrupt) != 130 || signalStatus(syscall.SIGTERM) != 143 {
		t.Fatalf("statuses %d, %d", signalStatus(os.Interrupt), signalStatus(syscall.SIGTERM))
	}
}
