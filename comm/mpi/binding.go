//go:build mpi

package mpi

// This file is the whole cgo binding: the few MPI functions the backend
// uses, wrapped so that the rest of the package never mentions C. Handles
// (communicators, requests) are opaque values; buffers are passed as
// unsafe.Pointer and the callers decide who owns them (see the package
// documentation: memory MPI keeps after a call returns is C memory or
// pinned Go memory).

/*
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <sched.h>

// The predefined handles are addresses of library globals in Open MPI
// (MPI_Comm is a pointer there), integer constants in the MPICH family
// (MPI_Comm is an int): cgo cannot take either from the macros, so these
// functions return them, and Go code only compares handles with each other.
static MPI_Comm gr_world(void) { return MPI_COMM_WORLD; }
static MPI_Comm gr_comm_null(void) { return MPI_COMM_NULL; }
static MPI_Request gr_request_null(void) { return MPI_REQUEST_NULL; }

static int gr_init_thread(int *provided) {
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, provided);
}

static int gr_errors_return(MPI_Comm c) { return MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN); }

static int gr_split(MPI_Comm c, int member, int key, MPI_Comm *out) {
	return MPI_Comm_split(c, member ? 0 : MPI_UNDEFINED, key, out);
}

static int gr_isend(void *buf, int n, int dest, int tag, MPI_Comm c, MPI_Request *r) {
	return MPI_Isend(buf, n, MPI_BYTE, dest, tag, c, r);
}

static int gr_irecv(void *buf, int n, int src, int tag, MPI_Comm c, MPI_Request *r) {
	return MPI_Irecv(buf, n, MPI_BYTE, src < 0 ? MPI_ANY_SOURCE : src, tag, c, r);
}

// gr_status unpacks what the backend needs of a completed request's status.
static void gr_status(MPI_Status *st, int *source, int *err, int *count, int *cancelled) {
	*source = st->MPI_SOURCE;
	*err = st->MPI_ERROR;
	*cancelled = 0;
	MPI_Test_cancelled(st, cancelled);
	*count = 0;
	if (!*cancelled) {
		MPI_Get_count(st, MPI_BYTE, count);
	}
}

static int gr_iallgather_int(int *mine, int *all, MPI_Comm c, MPI_Request *r) {
	return MPI_Iallgather(mine, 1, MPI_INT, all, 1, MPI_INT, c, r);
}

static int gr_iallgatherv(void *mine, int n, void *all, int *counts, int *displs, MPI_Comm c, MPI_Request *r) {
	return MPI_Iallgatherv(mine, n, MPI_BYTE, all, counts, displs, MPI_BYTE, c, r);
}

static int gr_err_in_status(void) { return MPI_ERR_IN_STATUS; }
static int gr_err_pending(void) { return MPI_ERR_PENDING; }
static int gr_undefined(void) { return MPI_UNDEFINED; }
static int gr_thread_multiple(void) { return MPI_THREAD_MULTIPLE; }
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// commHandle is an MPI communicator.
type commHandle struct{ c C.MPI_Comm }

// request is an MPI request handle. The zero value is not a valid handle:
// use requestNull.
type request = C.MPI_Request

// status is an MPI_Status.
type status = C.MPI_Status

// threadLevelName names an MPI thread support level, for messages.
func threadLevelName(level int) string {
	switch C.int(level) {
	case C.MPI_THREAD_SINGLE:
		return "MPI_THREAD_SINGLE"
	case C.MPI_THREAD_FUNNELED:
		return "MPI_THREAD_FUNNELED"
	case C.MPI_THREAD_SERIALIZED:
		return "MPI_THREAD_SERIALIZED"
	case C.MPI_THREAD_MULTIPLE:
		return "MPI_THREAD_MULTIPLE"
	}
	return fmt.Sprintf("thread level %d", level)
}

func threadMultiple() int { return int(C.gr_thread_multiple()) }

func worldComm() commHandle { return commHandle{C.gr_world()} }

func requestNull() request { return C.gr_request_null() }

// mpiError turns an MPI return code into an error (nil for MPI_SUCCESS).
func mpiError(what string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	return fmt.Errorf("%s: %s", what, errorString(int(rc)))
}

// errorString is MPI's text for an error code.
func errorString(code int) string {
	var buf [C.MPI_MAX_ERROR_STRING + 1]C.char
	var n C.int
	if C.MPI_Error_string(C.int(code), &buf[0], &n) != C.MPI_SUCCESS {
		return fmt.Sprintf("MPI error %d", code)
	}
	return C.GoStringN(&buf[0], n)
}

// libraryVersion is MPI_Get_library_version's first line.
func libraryVersion() string {
	var buf [C.MPI_MAX_LIBRARY_VERSION_STRING + 1]C.char
	var n C.int
	if C.MPI_Get_library_version(&buf[0], &n) != C.MPI_SUCCESS {
		return "unknown MPI library"
	}
	s := C.GoStringN(&buf[0], n)
	for i := range len(s) {
		if s[i] == '\n' || s[i] == ',' {
			return s[:i]
		}
	}
	return s
}

// initThread calls MPI_Init_thread asking for MPI_THREAD_MULTIPLE and
// returns the level the library provides.
func initThread() (provided int, err error) {
	var p C.int
	if err := mpiError("MPI_Init_thread", C.gr_init_thread(&p)); err != nil {
		return 0, err
	}
	return int(p), nil
}

func initialized() bool {
	var flag C.int
	C.MPI_Initialized(&flag)
	return flag != 0
}

func finalize() error { return mpiError("MPI_Finalize", C.MPI_Finalize()) }

// abortWorld is MPI_Abort on MPI_COMM_WORLD: the launcher kills every
// process of the job. It does not return.
func abortWorld(code int) { C.MPI_Abort(C.gr_world(), C.int(code)) }

func (h commHandle) rankAndSize() (rank, size int, err error) {
	var r, s C.int
	if err := mpiError("MPI_Comm_rank", C.MPI_Comm_rank(h.c, &r)); err != nil {
		return 0, 0, err
	}
	if err := mpiError("MPI_Comm_size", C.MPI_Comm_size(h.c, &s)); err != nil {
		return 0, 0, err
	}
	return int(r), int(s), nil
}

// errorsReturn makes MPI report errors on h as return codes instead of
// aborting the job (MPI_ERRORS_ARE_FATAL is the default).
func (h commHandle) errorsReturn() error {
	return mpiError("MPI_Comm_set_errhandler", C.gr_errors_return(h.c))
}

// dup is MPI_Comm_dup: a communicator of the same processes with its own
// message space. Collective and blocking.
func (h commHandle) dup() (commHandle, error) {
	var out C.MPI_Comm
	err := mpiError("MPI_Comm_dup", C.MPI_Comm_dup(h.c, &out))
	return commHandle{out}, err
}

// split is MPI_Comm_split: the processes with member true form a new
// communicator ordered by key; the others get ok false. Collective over h
// and blocking.
func (h commHandle) split(member bool, key int) (out commHandle, ok bool, err error) {
	m := C.int(0)
	if member {
		m = 1
	}
	var c C.MPI_Comm
	if err := mpiError("MPI_Comm_split", C.gr_split(h.c, m, C.int(key), &c)); err != nil {
		return commHandle{}, false, err
	}
	return commHandle{c}, c != C.gr_comm_null(), nil
}

// isend starts sending n bytes at buf to dest. buf must stay valid and
// unchanged until the request completes: C memory, or pinned Go memory.
func (h commHandle) isend(buf unsafe.Pointer, n, dest, tag int, r *request) error {
	return mpiError("MPI_Isend", C.gr_isend(buf, C.int(n), C.int(dest), C.int(tag), h.c, r))
}

// irecv starts receiving at most n bytes into buf from src (−1: any
// source). buf must stay valid until the request completes: C memory, or
// pinned Go memory.
func (h commHandle) irecv(buf unsafe.Pointer, n, src, tag int, r *request) error {
	return mpiError("MPI_Irecv", C.gr_irecv(buf, C.int(n), C.int(src), C.int(tag), h.c, r))
}

// testsome returns how many of reqs completed (MPI_Testsome, which also
// makes MPI progress): request idx[i] completed with status sts[i], for
// i < n. Completed requests become requestNull. It returns n = −1 if every
// request is null. An error in one request's status is reported through
// statusOf, not here. idx and sts need len(reqs) elements.
func testsome(reqs []request, idx []C.int, sts []status) (int, error) {
	if len(reqs) == 0 {
		return -1, nil
	}
	var out C.int
	rc := C.MPI_Testsome(C.int(len(reqs)), &reqs[0], &out, &idx[0], &sts[0])
	if rc != C.MPI_SUCCESS && rc != C.gr_err_in_status() {
		return 0, mpiError("MPI_Testsome", rc)
	}
	if out == C.gr_undefined() {
		return -1, nil
	}
	return int(out), nil
}

// test reports whether r completed (r becomes requestNull if so).
func test(r *request) (bool, error) {
	var flag C.int
	var st status
	if err := mpiError("MPI_Test", C.MPI_Test(r, &flag, &st)); err != nil {
		return false, err
	}
	return flag != 0, nil
}

// cancel asks MPI to cancel a pending request. A receive not yet matched is
// cancelled; anything else completes normally. Either way the request
// must still be completed (test, waitsome).
func cancel(r *request) {
	if *r != C.gr_request_null() {
		C.MPI_Cancel(r)
	}
}

// completion is what the backend reads from a completed request's status.
type completion struct {
	source    int
	err       int // MPI_SUCCESS (0) or an error code
	count     int // bytes received
	cancelled bool
}

func statusOf(st *status) completion {
	var source, errc, count, cancelled C.int
	C.gr_status(st, &source, &errc, &count, &cancelled)
	e := int(errc)
	if errc == C.gr_err_pending() {
		e = 0
	}
	return completion{source: int(source), err: e, count: int(count), cancelled: cancelled != 0}
}

// cIndex is the C int array element type Testsome fills.
type cIndex = C.int

// cAlloc returns n bytes of C memory (at least 1), which the Go garbage
// collector neither moves nor frees: memory MPI may still use after the
// call that handed it over has returned.
func cAlloc(n int) unsafe.Pointer {
	p := C.calloc(C.size_t(max(n, 1)), 1)
	if p == nil {
		panic(fmt.Sprintf("mpi: out of C memory (%d bytes)", n))
	}
	return p
}

func cFree(p unsafe.Pointer) { C.free(p) }

// yield offers the CPU to other runnable threads (sched_yield), returning
// at once if there are none.
func yield() { C.sched_yield() }

// iallgatherInt starts gathering one C int from every process of h into
// all (C memory of Size ints).
func (h commHandle) iallgatherInt(mine, all unsafe.Pointer, r *request) error {
	return mpiError("MPI_Iallgather", C.gr_iallgather_int((*C.int)(mine), (*C.int)(all), h.c, r))
}

// iallgatherv starts gathering n bytes at mine from every process into
// all, at displs[i] for counts[i] bytes from process i (all C memory).
func (h commHandle) iallgatherv(mine unsafe.Pointer, n int, all, counts, displs unsafe.Pointer, r *request) error {
	return mpiError("MPI_Iallgatherv", C.gr_iallgatherv(mine, C.int(n), all, (*C.int)(counts), (*C.int)(displs), h.c, r))
}
