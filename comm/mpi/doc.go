// Package mpi is graphrun's comm.Comm over MPI: each rank is one process of
// an MPI job (mpirun, mpiexec, srun), and every collective travels as MPI
// point-to-point messages, so that on a cluster graphrun uses the fabric and
// the MPI library the site already runs. It is the transport Lv et al.
// evaluate their BFS on (MPI's Allgatherv and Alltoallv, §III-B); the
// elastic and replicated jobs of Zhang and Qiu §V and Kylix §V are comm/tcp's
// only, since an MPI job's processes are fixed.
//
// The package carries its own small cgo binding (binding.go: about twenty
// MPI functions) and is built only with the build tag mpi, which needs an
// MPI library and its headers, found through pkg-config. Open MPI is the
// default (pkg-config's ompi module; Debian: libopenmpi-dev and
// pkg-config); the tag mpich selects the MPICH family instead (pkg-config's
// mpich module; Debian: libmpich-dev; Cray MPICH, Intel MPI and MVAPICH are
// MPICH-ABI libraries too). Both may be installed side by side:
//
//	go build -tags mpi ./cmd/graphrun         # Open MPI
//	mpirun.openmpi -np 4 ./graphrun bfs
//	go build -tags mpi,mpich ./cmd/graphrun   # MPICH
//	mpirun.mpich -np 4 ./graphrun bfs
//
// A library whose pkg-config module has another name is used through the
// mpich tag with PKG_CONFIG_PATH pointing at a directory holding an
// mpich.pc for it. The binding works with either ABI: handles
// (MPI_Comm, MPI_Request) are pointers in Open MPI and ints in MPICH, so
// Go code only stores them and compares them with each other, and the
// predefined ones (MPI_COMM_WORLD, MPI_COMM_NULL, MPI_REQUEST_NULL) come
// from small C functions rather than the macros.
//
// Without the tag this file is the whole package, so that `go build ./...`
// and `go vet ./...` work on machines without MPI.
//
// # Library
//
// MPI is process-global: Init calls MPI_Init_thread once per process,
// asking for MPI_THREAD_MULTIPLE (goroutines move between OS threads, and
// several Comms may be used from different goroutines); a library that
// provides less is finalised again and Init fails, naming the level it
// got. The OS thread that initialises MPI stays locked to a goroutine of
// this package, which also calls MPI_Finalize (Finalize), as MPI requires.
// That state, and the quarantine below, are the package's only global
// variables, guarded by one mutex.
//
// # Collectives
//
// The collectives are comm/wire's, the same direct ones as comm/tcp's,
// over MPI_Isend and MPI_Irecv: in every call each rank sends every other rank a 48-byte header
// (collective, call number, phase hash, argument, payload length, chunk
// size) and then its payload, and receives the same from every other rank.
// Alltoallv sends each rank its piece, Allgatherv the whole contribution,
// the Allreduces gather every contribution everywhere and combine them in
// rank order (so float sums are bit-identical to comm/inproc's, which
// MPI_Allreduce does not promise), Bcast sends from the root and Barrier
// exchanges headers only. Comparing the headers detects ranks that disagree
// on the collective, its phase, an Allreduce's length or operator, or a
// Bcast's root, which with MPI's own collectives would be undefined
// behaviour (a hang, a crash or wrong data). Counters follow comm/inproc's
// conventions exactly: logical volumes to other ranks only.
//
// A call posts every receive and send at once, then polls them with
// MPI_Testsome (MPI progresses only inside MPI calls): without pause for
// 50 µs after the last completion, then yielding the CPU between polls
// (sched_yield) for 5 ms, then sleeping between polls, the pauses doubling
// up to 500 µs. The libraries' blocking waits spin instead, which on a shared
// or oversubscribed machine takes the CPU from the ranks still computing.
//
// Payloads are split into messages of at most Config.MaxChunk bytes (1 GiB
// by default): MPI counts are C ints, so a message of 2^31 bytes or more
// cannot be described with MPI_BYTE. Chunking keeps the sender's and the
// receiver's buffers untouched (no derived datatype, no copy); MPI delivers
// the chunks of one sender in order.
//
// # Buffers
//
// MPI keeps the buffers of a nonblocking operation until it completes, after
// the call that started it has returned, so no plain Go memory is ever
// handed to it:
//
//   - headers and notices live in C memory (calloc) owned by the Comm;
//   - payloads are sent from, and received into, the caller's own slices,
//     pinned with a runtime.Pinner from the MPI_Isend or MPI_Irecv that
//     uses them until the request completes, so the garbage collector
//     neither moves nor frees them (received payloads land directly in the
//     caller's recv buffers: no staging copy);
//   - a call returns only when all its requests are complete, except when
//     it fails. A failing call cancels its pending receives. Receives into
//     the caller's buffers that MPI cannot cancel because their data is
//     already arriving are waited for (up to 2 s); if one is still running
//     then, the process calls MPI_Abort rather than return while MPI may
//     write into memory the caller owns. Everything else still pending (sends
//     from pinned buffers, header receives into C memory) is moved to a
//     quarantine that keeps the pins and the C memory until Finalize.
//
// # Failure
//
// A rank whose call fails (its context is done, a peer's header disagrees,
// MPI reports an error, or no message of the call moves for
// Config.PeerTimeout) or whose function fails (Run, Launch: an error, a
// panic) sends every other rank an abort notice, on a communicator of its
// own, with the reason, the rank to blame and the number of calls it
// completed. A waiting call polls the notice receive with its own requests
// and fails with an error wrapping comm.ErrAborted that says why, unless
// the failed rank completed that call (then every rank sent its messages,
// and the call completes); every later call fails. A rank whose function
// returns nil sends a goodbye notice with its number of calls, so that a
// rank that makes another call fails instead of waiting for it. A rank
// whose context is done sends its abort notice at once, from a goroutine
// of its own, without waiting for its function to notice: an interrupted
// process may exit first (interrupt.Grace), and mpirun then stops the
// others. A rank that fails between calls first reads the notices that
// arrived, so that it blames the rank that failed before it. A process
// that dies is the launcher's business: Open MPI's mpirun ends the whole
// job when one process exits abnormally, and graphrun's command line exits
// without MPI_Finalize after a failure if MPI_Finalize does not return in
// time, which mpirun treats the same way.
//
// Communicators are never freed before MPI_Finalize: MPI reuses a freed
// communicator's context id, and a late notice of a finished job could then
// reach the next job given the same id (Launch makes a new job per call).
//
// # Launchers
//
// Run runs one rank per process over the whole of MPI_COMM_WORLD (the
// transport comm/launch names MPI, its default under mpirun, mpiexec or
// srun in a graphrun built with the tag). Launch runs a job on the first p
// processes; it is the conformance suite's commtest.Launcher when the test
// binary runs under mpirun (see mpi_test.go and .ci/mpi.sh).
//
// References:
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun, "Compression
//     and Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems", arXiv preprint (Institute of Computing
//     Technology, CAS), 2012.
//   - Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for
//     Commodity Clusters", 43rd International Conference on Parallel
//     Processing (ICPP), IEEE, 2014.
//   - Bingjing Zhang and Judy Qiu, "Efficient, Fault-tolerant and Elastic
//     Allreduce Framework for Iterative Algorithms", Indiana University
//     Bloomington, technical report (undated).
package mpi
