//go:build mpi

package mpi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/commtest"
)

// These tests need several MPI processes: run the test binary under mpirun,
// every process running the same tests in the same order (.ci/mpi.sh):
//
//	go test -tags mpi -c -o mpi.test ./comm/mpi
//	mpirun --allow-run-as-root --oversubscribe -np 4 ./mpi.test
//
// Run by go test directly (no launcher's variables), every test skips.

// world is this process's place in the job, when it runs under a launcher.
var world *World

// launcherVars are set by Open MPI's mpirun and by MPICH's / Intel MPI's
// mpiexec in every process they start.
var launcherVars = []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}

func TestMain(m *testing.M) {
	under := false
	for _, v := range launcherVars {
		under = under || os.Getenv(v) != ""
	}
	if !under {
		os.Exit(m.Run())
	}
	w, err := Init()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	world = &w
	code := m.Run()
	if err := Finalize(30 * time.Second); err != nil {
		fmt.Fprintf(os.Stderr, "rank %d: %v\n", w.Rank, err)
		code = 1
	}
	os.Exit(code)
}

func needMPI(t *testing.T, procs int) {
	t.Helper()
	if world == nil {
		t.Skipf("not under mpirun (none of %s is set): see .ci/mpi.sh", strings.Join(launcherVars, ", "))
	}
	if world.Size < procs {
		t.Skipf("needs %d MPI processes, the job has %d", procs, world.Size)
	}
}

// sizes are the job sizes the conformance suite runs with: 1 up to every
// process of the job.
func sizes() []int {
	var s []int
	for p := 1; p <= world.Size; p++ {
		s = append(s, p)
	}
	return s
}

func TestConformance(t *testing.T) {
	needMPI(t, 1)
	commtest.Run(t, Launch, sizes())
}

// TestConformanceSmallChunks runs the suite with 4 KiB messages, so that
// every payload above 4 KiB travels as many MPI messages: the path a
// payload of 2^31 bytes or more takes with the default chunk of 1 GiB.
func TestConformanceSmallChunks(t *testing.T) {
	needMPI(t, 3)
	commtest.Run(t, LaunchWith(Config{MaxChunk: 4096}), []int{3})
}

// guard runs a job that must end within d on every process.
func guard(t *testing.T, d time.Duration, launch func(ctx context.Context) error) error {
	t.Helper()
	return commtest.Within(t, d, "the job", func() error { return launch(context.Background()) })
}

// TestRankLeaves: rank 2's function returns after three calls while the
// others make a fourth: their call fails at once, naming rank 2.
func TestRankLeaves(t *testing.T) {
	needMPI(t, 3)
	var got error
	err := guard(t, 10*time.Second, func(ctx context.Context) error {
		return Launch(ctx, 3, func(ctx context.Context, c comm.Comm) error {
			for i := range 3 {
				if _, err := c.Allgatherv(ctx, "warmup", []byte{byte(i)}, nil); err != nil {
					return err
				}
			}
			if c.Rank() == 2 {
				return nil
			}
			got = c.Barrier(ctx, "after")
			return got
		})
	})
	if err == nil || !strings.Contains(err.Error(), "rank 2: left the job") {
		t.Fatalf("launch: %v, want an error saying rank 2 left", err)
	}
	if world.Rank < 2 && (!errors.Is(got, comm.ErrAborted) || !strings.Contains(got.Error(), "call #4")) {
		t.Fatalf("rank %d: Barrier after rank 2 left: %v (launch: %v)", world.Rank, got, err)
	}
}

// TestPeerTimeout: rank 1 stops calling without failing; the others' call
// fails after the peer timeout, blaming rank 1, and so does rank 1's next
// call.
func TestPeerTimeout(t *testing.T) {
	needMPI(t, 3)
	const timeout = 300 * time.Millisecond
	var elapsed time.Duration
	err := guard(t, 10*time.Second, func(ctx context.Context) error {
		return LaunchWith(Config{PeerTimeout: timeout})(ctx, 3, func(ctx context.Context, c comm.Comm) error {
			if err := c.Barrier(ctx, "warmup"); err != nil {
				return err
			}
			if c.Rank() == 1 {
				time.Sleep(3 * timeout)
				return c.Barrier(ctx, "late")
			}
			start := time.Now()
			err := c.Barrier(ctx, "late")
			elapsed = time.Since(start)
			return err
		})
	})
	if err == nil || !strings.Contains(err.Error(), "no progress for") || !strings.Contains(err.Error(), "waiting for rank 1") {
		t.Fatalf("launch: %v, want a peer timeout blaming rank 1", err)
	}
	if world.Rank != 1 && world.Rank < 3 && (elapsed < timeout || elapsed > timeout+2*time.Second) {
		t.Fatalf("rank %d: the call failed after %v with a peer timeout of %v", world.Rank, elapsed, timeout)
	}
}

// TestRun runs Run over every process: once healthy, once with a failing
// rank, whose error every other rank's names.
func TestRun(t *testing.T) {
	needMPI(t, 2)
	err := guard(t, 10*time.Second, func(ctx context.Context) error {
		return Run(ctx, Config{}, commtest.SmallJob)
	})
	if err != nil {
		t.Fatal(err)
	}

	failing := world.Size - 1
	err = guard(t, 10*time.Second, func(ctx context.Context) error {
		return Run(ctx, Config{}, func(ctx context.Context, c comm.Comm) error {
			if c.Rank() == failing {
				return errors.New("injected failure")
			}
			return c.Barrier(ctx, "blocked")
		})
	})
	want := fmt.Sprintf("rank %d of %d: the job failed because of rank %d: ", world.Rank, world.Size, failing)
	if world.Rank == failing {
		want = fmt.Sprintf("rank %d of %d: injected failure", world.Rank, world.Size)
	}
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("Run: %v, want an error starting with %q", err, want)
	}
}

// TestInterruptedWhileComputing: the last rank's context is cancelled while
// its function computes without calling the Comm (as a rank in a long
// phase when SIGTERM comes); the others, waiting in a Barrier, fail at
// once naming it, before its function returns: an interrupted process may
// exit before the function notices, and mpirun then stops the others.
func TestInterruptedWhileComputing(t *testing.T) {
	needMPI(t, 2)
	failing := world.Size - 1
	var elapsed time.Duration
	err := guard(t, 20*time.Second, func(ctx context.Context) error {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		return Run(ctx, Config{}, func(ctx context.Context, c comm.Comm) error {
			if err := c.Barrier(ctx, "warmup"); err != nil {
				return err
			}
			if c.Rank() == failing {
				cancel(errors.New("injected interrupt"))
				time.Sleep(3 * time.Second) // computing, deaf to ctx
				return ctx.Err()
			}
			start := time.Now()
			err := c.Barrier(ctx, "blocked")
			elapsed = time.Since(start)
			return err
		})
	})
	if world.Rank == failing {
		if err == nil {
			t.Fatal("Run of the interrupted rank returned nil")
		}
		return
	}
	want := fmt.Sprintf("rank %d of %d: the job failed because of rank %d: ", world.Rank, world.Size, failing)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "injected interrupt") {
		t.Fatalf("Run: %v, want an error starting with %q that gives the cause", err, want)
	}
	if elapsed > 2*time.Second {
		t.Fatalf("the Barrier failed %v after the interrupt, want before the interrupted rank's function returned (3 s)", elapsed)
	}
}

// TestHugeMessage sends 2^31 + 7 bytes each way between two ranks: more
// than an MPI count can describe, so it travels as three messages. Set
// GRAPHRUN_MPI_HUGE=1 to run it (it needs about 9 GB of memory).
func TestHugeMessage(t *testing.T) {
	needMPI(t, 2)
	if os.Getenv("GRAPHRUN_MPI_HUGE") != "1" {
		t.Skip("set GRAPHRUN_MPI_HUGE=1 to send 2 GiB messages")
	}
	const n = 1<<31 + 7
	err := guard(t, 5*time.Minute, func(ctx context.Context) error {
		return Launch(ctx, 2, func(ctx context.Context, c comm.Comm) error {
			send := make([][]byte, 2)
			buf := make([]byte, n)
			for i := 0; i < n; i += 4093 {
				buf[i] = byte(i/4093 + c.Rank())
			}
			buf[n-1] = byte(0xA0 + c.Rank())
			send[1-c.Rank()] = buf
			recv, err := c.Alltoallv(ctx, "huge", send, nil)
			if err != nil {
				return err
			}
			got, peer := recv[1-c.Rank()], 1-c.Rank()
			if len(got) != n {
				return fmt.Errorf("received %d bytes, want %d", len(got), n)
			}
			for i := 0; i < n; i += 4093 {
				if got[i] != byte(i/4093+peer) {
					return fmt.Errorf("byte %d is %#x, want %#x", i, got[i], byte(i/4093+peer))
				}
			}
			if got[n-1] != byte(0xA0+peer) {
				return fmt.Errorf("last byte is %#x", got[n-1])
			}
			if s := c.Stats().Phase("huge"); s.BytesSent != n || s.BytesRecv != n || s.Messages != 1 {
				return fmt.Errorf("counters %+v", s)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}
