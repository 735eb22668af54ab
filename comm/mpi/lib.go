//go:build mpi

package mpi

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// World is this process's place in MPI_COMM_WORLD.
type World struct {
	Rank, Size int
}

// ErrFinalized is returned by Init after Finalize: MPI cannot be started
// twice in one process.
var ErrFinalized = errors.New("mpi: the MPI library was finalized in this process and cannot be initialised again")

type libState uint8

const (
	stateNew libState = iota
	stateUp
	stateFailed
	stateDown
)

// lib is the MPI library's state in this process. MPI itself is
// process-global — MPI_Init_thread and MPI_Finalize may each be called once
// per process, from the same thread — so this is the package's one piece of
// global mutable state, guarded by its mutex. It also holds the quarantine:
// memory that MPI may still read or write because a failed call abandoned
// its requests, which only MPI_Finalize makes safe to release.
var lib struct {
	mu         sync.Mutex
	state      libState
	world      World
	initErr    error
	finalizeCh chan chan error // to the goroutine that owns MPI's main thread
	quarantine []leftover
}

// leftover is memory handed to MPI by requests that were abandoned.
type leftover struct {
	pin  *runtime.Pinner  // pinned Go buffers of abandoned sends
	cmem []unsafe.Pointer // C buffers of abandoned requests
}

// Init starts the MPI library in this process, once: MPI_Init_thread asking
// for MPI_THREAD_MULTIPLE, which the backend needs because goroutines move
// between OS threads and several Comms (Launch makes one per job) may be
// used from different goroutines at once. If the
// library provides less, Init finalises it and fails, naming the level it
// got. Later calls return the same World (or the same error). Init must
// not be called after Finalize.
//
// MPI's "main thread" — the one that initialises and finalises the library
// — is an OS thread that a goroutine of this package keeps locked until
// Finalize.
func Init() (World, error) {
	lib.mu.Lock()
	defer lib.mu.Unlock()
	switch lib.state {
	case stateUp:
		return lib.world, nil
	case stateFailed:
		return World{}, lib.initErr
	case stateDown:
		return World{}, ErrFinalized
	}
	if initialized() {
		lib.state, lib.initErr = stateFailed, errors.New("mpi: MPI was initialised in this process by other code; this package must initialise it itself (Init)")
		return World{}, lib.initErr
	}
	ready := make(chan error, 1)
	lib.finalizeCh = make(chan chan error)
	go mainThread(ready, lib.finalizeCh)
	if err := <-ready; err != nil {
		lib.state, lib.initErr = stateFailed, err
		return World{}, err
	}
	w := worldComm()
	if err := w.errorsReturn(); err != nil {
		lib.state, lib.initErr = stateFailed, fmt.Errorf("mpi: %w", err)
		return World{}, lib.initErr
	}
	rank, size, err := w.rankAndSize()
	if err != nil {
		lib.state, lib.initErr = stateFailed, fmt.Errorf("mpi: %w", err)
		return World{}, lib.initErr
	}
	lib.world = World{Rank: rank, Size: size}
	lib.state = stateUp
	return lib.world, nil
}

// mainThread initialises MPI on a locked OS thread, reports on ready, and
// finalises MPI on the same thread when asked.
func mainThread(ready chan<- error, finalizeCh <-chan chan error) {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	provided, err := initThread()
	if err != nil {
		ready <- fmt.Errorf("mpi: %w", err)
		return
	}
	if provided < threadMultiple() {
		_ = finalize()
		ready <- fmt.Errorf("mpi: %s provides only %s, graphrun's MPI backend needs MPI_THREAD_MULTIPLE "+
			"(rebuild or configure the MPI library with thread support, e.g. Open MPI's --enable-mpi-thread-multiple)",
			libraryVersion(), threadLevelName(provided))
		return
	}
	ready <- nil
	done := <-finalizeCh
	done <- finalize()
}

// Finalize shuts the MPI library down (MPI_Finalize) after every Comm of
// this process was closed. MPI_Finalize synchronises with the other
// processes, so it waits for them; if it has not returned within timeout,
// Finalize returns an error and the caller should exit without it (the MPI
// launcher then ends the job). Finalize does nothing if Init never
// succeeded, and nothing the second time.
func Finalize(timeout time.Duration) error {
	lib.mu.Lock()
	defer lib.mu.Unlock()
	if lib.state != stateUp {
		return nil
	}
	lib.state = stateDown
	done := make(chan error, 1)
	lib.finalizeCh <- done
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		// MPI is gone: nothing can touch the quarantined memory any more.
		for _, l := range lib.quarantine {
			if l.pin != nil {
				l.pin.Unpin()
			}
			for _, p := range l.cmem {
				cFree(p)
			}
		}
		lib.quarantine = nil
		return err
	case <-timer.C:
		return fmt.Errorf("mpi: MPI_Finalize did not return within %v (another process of the job did not finalize)", timeout)
	}
}

// quarantine keeps memory of abandoned requests until Finalize.
func quarantine(l leftover) {
	lib.mu.Lock()
	defer lib.mu.Unlock()
	lib.quarantine = append(lib.quarantine, l)
}

// fatal reports why memory safety cannot be kept otherwise and ends the
// whole MPI job with MPI_Abort. It does not return.
func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "graphrun: mpi: "+format+"; calling MPI_Abort\n", args...)
	abortWorld(1)
	os.Exit(1) // in case MPI_Abort itself failed
}
