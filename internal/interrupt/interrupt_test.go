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

// TestExplainPrintsBeforeTheLastLine: a line given to Explain by the
// interrupted command comes just before "graphrun: interrupted"; other
// output after the signal is still dropped.
func TestExplainPrintsBeforeTheLastLine(t *testing.T) {
	var out, errOut bytes.Buffer
	started := make(chan struct{})
	go func() {
		<-started
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
	code := Run(&out, &errOut, func(ctx context.Context, stdout, stderr io.Writer) int {
		close(started)
		<-ctx.Done()
		io.WriteString(stderr, "dropped\n")
		Explain(ctx, "graphrun: rank 1 of 4: the job failed because of rank 2: gone")
		return 1
	})
	want := "graphrun: rank 1 of 4: the job failed because of rank 2: gone\ngraphrun: interrupted\n"
	if code != 143 || errOut.String() != want || out.Len() != 0 {
		t.Fatalf("status %d, stdout %q, stderr %q; want 143 and stderr %q", code, out.String(), errOut.String(), want)
	}
	Explain(context.Background(), "outside Run: ignored") // must not panic
}
