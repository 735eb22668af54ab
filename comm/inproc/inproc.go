// Package inproc is graphrun's in-process comm backend: the P ranks of a job
// run as goroutines of one process and exchange data through shared memory.
// Tests and single-machine runs use it. It implements no paper section of
// its own: it stands in, within one process, for the message-passing
// collectives the papers' distributed algorithms assume (Lv et al. §III-B's
// Allgatherv and Alltoallv of frontiers).
//
// It follows the principle "One program, many ranks" of graphrun's design
// (docs/design.md): a kernel is one SPMD function written against comm.Comm
// only, and Run starts P copies of it, exactly as a TCP or MPI launcher
// starts P processes, so a kernel that passes its tests here runs unchanged
// on a cluster. The conformance suite in comm/commtest pins down the
// behaviour every backend shares.
//
// # Rendezvous
//
// Every collective is a rendezvous of all P ranks on a shared World. A rank
// deposits its contribution (a description of the call plus references to its
// send buffers) in its slot, waits until every rank has deposited, copies what
// it needs out of the other slots, and waits again until every rank has
// finished copying, so that when a call returns no other rank still reads that
// rank's buffers. Both waits are generations of one reusable barrier built on
// channels: a waiting rank also watches its context and the World's abort
// channel, so no wait outlives a failure.
//
// # Buffers
//
// Receivers always get their own copies, so a sender may reuse its buffers as
// soon as its call returns. A recv argument of length Size() is reused: the
// data from rank s is written into recv[s][:0] when its capacity suffices and
// into a new buffer otherwise; a recv of any other length is ignored. recv
// buffers must not alias the send buffers of the same call. Allgatherv returns
// a copy of the caller's own contribution too; Bcast returns root's data
// itself on the root and a fresh copy everywhere else. AllreduceFloat64
// combines contributions in rank order (rank 0 first), so its result is
// bit-identical on every rank and from run to run.
//
// # Failure
//
// The World is aborted, and every pending and every later call on every rank
// returns an error wrapping comm.ErrAborted that names the cause, when
//
//   - a rank's function returns an error, panics or calls runtime.Goexit (Run),
//   - a rank's function returns while other ranks wait in a collective that
//     can therefore never complete (Run),
//   - a rank's context is done when it enters a call or while it waits inside
//     one (that call returns an error wrapping ctx.Err()),
//   - a call has invalid arguments (that call returns the reason),
//   - the ranks disagree on the operation, phase name, Allreduce length or
//     operator, or Bcast root of a collective (every rank's call reports the
//     mismatch), or
//   - Abort is called.
//
// A collective is all or nothing: it fails on every rank unless every rank
// has deposited its contribution, and from that moment on it completes on
// every rank (a mismatch excepted) even if the World aborts meanwhile; the
// abort is then reported by each rank's next call.
//
// # Counters
//
// Every call that completes records once into the rank's comm.Stats under its
// phase: one call, the payload bytes sent to other ranks, the payload bytes
// received from other ranks, and the number of messages, which is the number
// of non-empty payloads sent to other ranks. Traffic from a rank to itself is
// never counted. With P ranks, per call:
//
//	Alltoallv         sent = Σ len(send[d]) over d ≠ Rank()
//	                  recv = Σ len(recv[s]) over s ≠ Rank()
//	                  messages = number of d ≠ Rank() with len(send[d]) > 0
//	Allgatherv        sent = len(mine)·(P−1); recv = Σ len(out[s]) over s ≠ Rank()
//	                  messages = P−1 if len(mine) > 0, else 0
//	AllreduceInt64,   sent = recv = 8·len(vals)·(P−1)
//	AllreduceFloat64  messages = P−1 if len(vals) > 0, else 0
//	Bcast             root: sent = len(data)·(P−1), recv = 0,
//	                        messages = P−1 if len(data) > 0, else 0
//	                  other ranks: sent = 0, recv = len(result), messages = 0
//	Barrier           no bytes, no messages
//
// These are the logical volumes of the collective, the same on every backend,
// so that summed over all ranks the bytes sent equal the bytes received. Calls
// that fail record nothing.
//
// References:
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun, "Compression
//     and Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems", arXiv preprint (Institute of Computing
//     Technology, CAS), 2012.
package inproc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/bufs"
	"github.com/graphrun/graphrun/internal/parallel"
)

// World is the shared state of one in-process job of a fixed number of ranks.
// Each rank drives its own Comm (from World.Comm) from one goroutine at a
// time; a World cannot be restarted once aborted.
type World struct {
	size  int
	comms []*rankComm
	// slots[r] is rank r's contribution to the collective in progress. Rank r
	// writes it before arriving at the deposit barrier; every rank reads it
	// between the deposit barrier and the read barrier.
	slots []contribution

	// mu guards the rendezvous barrier.
	mu sync.Mutex
	// arrived counts the ranks waiting in the current barrier generation.
	arrived int
	// release is closed when the current generation completes.
	release chan struct{}
	// broken is set when a generation can never complete because the World
	// aborted before every rank arrived; no generation completes after it.
	broken bool
	// returnedRank is the first rank whose function returned (Run), or -1.
	returnedRank int

	aborted    chan struct{} // closed when the World aborts
	abortOnce  sync.Once
	abortRank  int   // rank blamed for the abort, or -1; set before aborted is closed
	abortCause error // why the World aborted; set before aborted is closed
}

// MaxRanks is the most ranks one World runs. In-process ranks share one
// process's memory, and each keeps per-peer state (a slot per rank in every
// collective, per-peer send and receive buffers in the kernels above), so
// a job's memory grows with the square of its ranks: 1000 ranks of a scale
// 10 bfs take about 250 MB, and 5000 grew past gigabytes before doing any
// work. More ranks run as processes (comm/tcp, comm/mpi).
const MaxRanks = 1024

// NewWorld returns a World of p ranks, 1 ≤ p ≤ MaxRanks.
func NewWorld(p int) (*World, error) {
	if p < 1 {
		return nil, fmt.Errorf("inproc: world of %d ranks, need at least 1", p)
	}
	if p > MaxRanks {
		return nil, fmt.Errorf("inproc: world of %d ranks, more than the %d one process runs", p, MaxRanks)
	}
	w := &World{
		size:         p,
		comms:        make([]*rankComm, p),
		slots:        make([]contribution, p),
		release:      make(chan struct{}),
		returnedRank: -1,
		aborted:      make(chan struct{}),
		abortRank:    -1,
	}
	for r := range w.comms {
		w.comms[r] = &rankComm{world: w, rank: r}
	}
	return w, nil
}

// Comm returns rank's handle on the World. It panics if rank is not in
// [0, p). The handle must be used by one goroutine at a time; a second call
// made while one is in progress fails and aborts the World.
func (w *World) Comm(rank int) comm.Comm {
	if rank < 0 || rank >= w.size {
		panic(fmt.Sprintf("inproc: rank %d out of range [0, %d)", rank, w.size))
	}
	return w.comms[rank]
}

// Abort marks the World as failed because rank failed with err: every pending
// and every later call on every rank returns an error wrapping comm.ErrAborted
// that names rank and err. Only the first abort of a World takes effect.
func (w *World) Abort(rank int, err error) {
	if err == nil {
		err = errors.New("aborted without a reason")
	}
	w.abort(rank, fmt.Errorf("rank %d failed: %w", rank, err))
}

// abort records cause (blamed on rank, or on no rank if rank < 0) and wakes
// every waiter. It reports whether this was the World's first abort.
func (w *World) abort(rank int, cause error) bool {
	first := false
	w.abortOnce.Do(func() {
		w.abortRank = rank
		w.abortCause = cause
		close(w.aborted)
		first = true
	})
	return first
}

func (w *World) isAborted() bool {
	select {
	case <-w.aborted:
		return true
	default:
		return false
	}
}

// abortError is the error calls return once the World has aborted. It must
// only be called after the World aborted.
func (w *World) abortError() error {
	return fmt.Errorf("%w: %v", comm.ErrAborted, w.abortCause)
}

// arriveToDeposit registers a rank at the barrier generation that ends the
// deposit step of a collective and returns the channel closed when every rank
// has arrived. It returns false if that generation can never complete.
func (w *World) arriveToDeposit() (chan struct{}, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken || w.isAborted() {
		return nil, false
	}
	if w.returnedRank >= 0 {
		w.broken = true
		w.abort(-1, fmt.Errorf("rank %d returned from its function while other ranks still make collective calls", w.returnedRank))
		return nil, false
	}
	return w.arriveLocked(), true
}

// arriveToFinishReading registers a rank at the barrier generation that ends
// the read step of a collective. It never fails: every rank that passed the
// deposit barrier arrives here without blocking on anything, so the
// generation always completes.
func (w *World) arriveToFinishReading() chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.arriveLocked()
}

func (w *World) arriveLocked() chan struct{} {
	gen := w.release
	w.arrived++
	if w.arrived == w.size {
		w.arrived = 0
		w.release = make(chan struct{})
		close(gen)
	}
	return gen
}

// leaveDeposit is called by a rank that stops waiting for generation gen
// because the World aborted or its context is done. If gen has completed in
// the meantime the rank has passed the barrier and must carry on with the
// collective; leaveDeposit then returns true. Otherwise it breaks the barrier,
// so that gen never completes and no rank reads a slot whose owner has left,
// and aborts the World with cause (blamed on rank) unless it already aborted;
// first reports whether this call aborted it.
func (w *World) leaveDeposit(gen chan struct{}, rank int, cause error) (passed, first bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-gen:
		return true, false
	default:
	}
	w.broken = true
	return false, w.abort(rank, cause)
}

// rankReturned records that rank's function returned without error. Ranks
// already waiting in a collective can then never complete it, and neither can
// ranks that start one later.
func (w *World) rankReturned(rank int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.returnedRank < 0 {
		w.returnedRank = rank
	}
	if w.arrived > 0 && !w.broken {
		w.broken = true
		w.abort(-1, fmt.Errorf("rank %d returned from its function while other ranks wait in a collective call", rank))
	}
}

// Run runs fn on p ranks of a new World, each on its own goroutine with its
// own comm.Comm, and waits for all of them. It returns nil if every rank
// returns nil. Otherwise the error starts with the failure that caused the
// others, as "rank r: <error>" wrapping that rank's error; it goes on with the
// errors of other ranks that failed on their own, and ends with the list of
// ranks whose calls were merely aborted. A panic in fn is recovered into a
// *PanicError. Any failing rank aborts the World (see the package doc), and
// an abort cancels the context every rank's fn was given.
func Run(ctx context.Context, p int, fn func(ctx context.Context, c comm.Comm) error) error {
	w, err := NewWorld(p)
	if err != nil {
		return err
	}
	// Ranks busy with local work learn of an abort through their context.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-w.aborted:
			cancel()
		case <-ctx.Done():
		}
	}()
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r := range p {
		wg.Go(func() { w.runRank(ctx, r, fn, &errs[r]) })
	}
	wg.Wait()
	return w.summarize(errs)
}

// runRank runs fn as rank and stores its outcome in *result. The outcome is
// stored from a deferred function so that a panic or runtime.Goexit (such as
// t.FailNow called on a rank goroutine) is reported too.
func (w *World) runRank(ctx context.Context, rank int, fn func(ctx context.Context, c comm.Comm) error, result *error) {
	returned := false
	var err error
	defer func() {
		err = comm.RankExit(recover(), returned, ".(*World).runRank", err)
		*result = err
		if err != nil {
			w.Abort(rank, err)
		} else {
			w.rankReturned(rank)
		}
	}()
	err = fn(ctx, w.comms[rank])
	returned = true
}

// summarize builds Run's error from every rank's outcome.
func (w *World) summarize(errs []error) error {
	primary := -1
	if w.isAborted() && w.abortRank >= 0 && w.abortRank < len(errs) && errs[w.abortRank] != nil {
		primary = w.abortRank
	}
	for r, err := range errs {
		if primary < 0 && err != nil && !errors.Is(err, comm.ErrAborted) {
			primary = r
		}
	}
	for r, err := range errs {
		if primary < 0 && err != nil {
			primary = r
		}
	}
	if primary < 0 {
		if w.isAborted() {
			// Every rank returned nil, yet a call failed: some rank dropped
			// the error of a collective.
			return fmt.Errorf("inproc: every rank returned nil but the job failed: %w", w.abortError())
		}
		return nil
	}
	return comm.JobError(errs, primary, func(r int) bool { return errors.Is(errs[r], comm.ErrAborted) })
}

// PanicError is a panic recovered from a rank's function by Run.
type PanicError = comm.PanicError

// contribution is what one rank deposits for one collective: the call's
// identity, which every rank must agree on, and references to its payload.
type contribution struct {
	kind  comm.Collective
	phase string
	op    comm.Op // allreduce only
	count int     // allreduce only: number of elements
	root  int     // Bcast only
	group []int   // AlltoallvGroup only: the members (group.go)

	rows   [][]byte // Alltoallv: send buffers by destination
	data   []byte   // Allgatherv: mine; Bcast: root's data
	ints   []int64
	floats []float64
}

func (c *contribution) sameCall(o *contribution) bool {
	return c.kind == o.kind && c.phase == o.phase && c.op == o.op && c.count == o.count && c.root == o.root &&
		(c.group == nil) == (o.group == nil)
}

// String describes the call, e.g. `AllreduceInt64("bfs.done", len=2, op=sum)`.
func (c *contribution) String() string {
	switch c.kind {
	case comm.CollectiveAllreduceInt64, comm.CollectiveAllreduceFloat64:
		return fmt.Sprintf("%s(%q, len=%d, op=%s)", c.kind, c.phase, c.count, c.op)
	case comm.CollectiveBcast:
		return fmt.Sprintf("%s(%q, root=%d)", c.kind, c.phase, c.root)
	}
	if c.group != nil {
		return fmt.Sprintf("%s(%q, group)", c.kind, c.phase)
	}
	return fmt.Sprintf("%s(%q)", c.kind, c.phase)
}

// findMismatch returns an error describing the first rank whose call differs
// from rank 0's, or nil if every rank makes the same call.
func findMismatch(slots []contribution) error {
	for r := 1; r < len(slots); r++ {
		if !slots[r].sameCall(&slots[0]) {
			return fmt.Errorf("collective mismatch: rank 0 called %s but rank %d called %s", &slots[0], r, &slots[r])
		}
	}
	return nil
}

// rankComm is one rank's comm.Comm on a World.
type rankComm struct {
	world  *World
	rank   int
	stats  comm.Stats
	inCall atomic.Bool // detects concurrent calls on one rank

	intResult   []int64 // allreduce results are built here, then copied into vals
	floatResult []float64
}

var _ comm.Comm = (*rankComm)(nil)

func (c *rankComm) Rank() int          { return c.rank }
func (c *rankComm) Size() int          { return c.world.size }
func (c *rankComm) Stats() *comm.Stats { return &c.stats }

// callError is the error of this rank's call mine.
func (c *rankComm) callError(mine *contribution, err error) error {
	return fmt.Errorf("inproc: rank %d: %s: %w", c.rank, mine, err)
}

// fail aborts the World because this rank's call mine cannot go on, and
// returns the call's error.
func (c *rankComm) fail(mine *contribution, err error) error {
	c.world.abort(c.rank, fmt.Errorf("rank %d failed: %s: %w", c.rank, mine, err))
	return c.callError(mine, err)
}

// collective runs one rendezvous: it deposits mine, waits until every rank has
// deposited, calls read to copy what this rank needs out of the slots, and
// waits until every rank has finished reading, so that the depositors'
// buffers are free again when it returns.
func (c *rankComm) collective(ctx context.Context, mine *contribution, read func(slots []contribution)) error {
	w := c.world
	if !c.inCall.CompareAndSwap(false, true) {
		return c.fail(mine, errors.New("another call is in progress on this rank's Comm"))
	}
	defer c.inCall.Store(false)

	if w.isAborted() {
		return c.callError(mine, w.abortError())
	}
	if err := ctx.Err(); err != nil {
		return c.fail(mine, err)
	}

	w.slots[c.rank] = *mine
	gen, ok := w.arriveToDeposit()
	if !ok {
		return c.callError(mine, w.abortError())
	}
	if err := c.awaitDeposits(ctx, mine, gen); err != nil {
		return err
	}

	// Every rank has deposited, so every rank gets here and the collective
	// completes on all of them, or (on a mismatch) fails on all of them, even
	// if the World aborts meanwhile: the next call sees the abort.
	mismatch := findMismatch(w.slots)
	if mismatch != nil {
		// Every rank finds the same mismatch; the first one records it.
		w.abort(-1, mismatch)
	} else {
		read(w.slots)
	}
	if done := w.arriveToFinishReading(); !spinFor(done, w.size) {
		<-done
	}
	w.slots[c.rank] = contribution{} // drop the references to the caller's buffers
	if mismatch != nil {
		return c.callError(mine, w.abortError())
	}
	return nil
}

// awaitDeposits waits for generation gen of the deposit barrier, the World's
// abort, or ctx. It returns nil once the rank has passed the barrier.
func (c *rankComm) awaitDeposits(ctx context.Context, mine *contribution, gen chan struct{}) error {
	w := c.world
	if spinFor(gen, w.size) {
		return nil
	}
	select {
	case <-gen:
		return nil
	case <-w.aborted:
		// The World has aborted already, so leaveDeposit records no cause.
		if passed, _ := w.leaveDeposit(gen, -1, nil); passed {
			return nil
		}
		return c.callError(mine, w.abortError())
	case <-ctx.Done():
		err := ctx.Err()
		passed, first := w.leaveDeposit(gen, c.rank, fmt.Errorf("rank %d failed: %s: %w", c.rank, mine, err))
		switch {
		case passed:
			return nil
		case first:
			return c.callError(mine, err)
		default:
			return c.callError(mine, w.abortError())
		}
	}
}

// Alltoallv sends send[d] to rank d and returns what every rank sent to this
// one. See the package doc for buffer reuse and counters.
func (c *rankComm) Alltoallv(ctx context.Context, phase string, send [][]byte, recv [][]byte) ([][]byte, error) {
	p := c.world.size
	mine := &contribution{kind: comm.CollectiveAlltoallv, phase: phase, rows: send}
	if len(send) != p {
		return nil, c.fail(mine, fmt.Errorf("len(send) = %d, want Size() = %d", len(send), p))
	}
	out := bufs.RecvSlices(recv, p)
	err := c.collective(ctx, mine, func(slots []contribution) {
		for s := range slots {
			out[s] = bufs.CopyInto(out[s], slots[s].rows[c.rank])
		}
	})
	if err != nil {
		return nil, err
	}
	sent, received, messages := comm.AlltoallvVolume(send, out, c.rank)
	c.stats.Record(phase, sent, received, messages)
	return out, nil
}

// Allgatherv returns every rank's contribution, out[Rank()] being a copy of
// mine.
func (c *rankComm) Allgatherv(ctx context.Context, phase string, mine []byte, recv [][]byte) ([][]byte, error) {
	p := c.world.size
	out := bufs.RecvSlices(recv, p)
	err := c.collective(ctx, &contribution{kind: comm.CollectiveAllgatherv, phase: phase, data: mine}, func(slots []contribution) {
		for s := range slots {
			out[s] = bufs.CopyInto(out[s], slots[s].data)
		}
	})
	if err != nil {
		return nil, err
	}
	var received int64
	for s := range p {
		if s != c.rank {
			received += int64(len(out[s]))
		}
	}
	c.stats.Record(phase, int64(len(mine))*int64(p-1), received, comm.PeerMessages(len(mine), p))
	return out, nil
}

// AllreduceInt64 reduces vals element-wise across ranks, in place. Sums wrap
// around on overflow.
func (c *rankComm) AllreduceInt64(ctx context.Context, phase string, vals []int64, op comm.Op) error {
	mine := &contribution{kind: comm.CollectiveAllreduceInt64, phase: phase, op: op, count: len(vals), ints: vals}
	return allreduceValues(ctx, c, mine, vals, &c.intResult, func(s *contribution) []int64 { return s.ints }, comm.Int64Values())
}

// AllreduceFloat64 reduces vals element-wise across ranks, in place,
// combining ranks in rank order so the result is bit-identical everywhere.
// Max and Min follow math.Max and math.Min (NaN wins).
func (c *rankComm) AllreduceFloat64(ctx context.Context, phase string, vals []float64, op comm.Op) error {
	mine := &contribution{kind: comm.CollectiveAllreduceFloat64, phase: phase, op: op, count: len(vals), floats: vals}
	return allreduceValues(ctx, c, mine, vals, &c.floatResult, func(s *contribution) []float64 { return s.floats }, comm.Float64Values())
}

// allreduceValues is the allreduce of either type whose contribution is
// mine (values picks the vals out of a rank's slot): each rank combines
// every slot in rank order into result (its buffer kept between calls),
// then copies that into its vals.
func allreduceValues[T int64 | float64](ctx context.Context, c *rankComm, mine *contribution, vals []T, result *[]T, values func(*contribution) []T, vc comm.ValueCodec[T]) error {
	if err := mine.op.Check(); err != nil {
		return c.fail(mine, err)
	}
	acc := bufs.Resize(*result, len(vals))
	*result = acc
	err := c.collective(ctx, mine, func(slots []contribution) {
		copy(acc, values(&slots[0]))
		for s := 1; s < len(slots); s++ {
			vc.Reduce(acc, values(&slots[s]), mine.op)
		}
	})
	if err != nil {
		return err
	}
	// vals is written only now: other ranks read it until the read barrier.
	copy(vals, acc)
	c.recordAllreduce(mine.phase, len(vals))
	return nil
}

func (c *rankComm) recordAllreduce(phase string, n int) {
	p := c.world.size
	volume := 8 * int64(n) * int64(p-1)
	c.stats.Record(phase, volume, volume, comm.PeerMessages(n, p))
}

// Bcast returns root's data: data itself on the root, a fresh copy elsewhere.
func (c *rankComm) Bcast(ctx context.Context, phase string, root int, data []byte) ([]byte, error) {
	p := c.world.size
	mine := &contribution{kind: comm.CollectiveBcast, phase: phase, root: root}
	if root < 0 || root >= p {
		return nil, c.fail(mine, fmt.Errorf("root %d out of range [0, %d)", root, p))
	}
	isRoot := c.rank == root
	if isRoot {
		mine.data = data
	}
	out := data
	err := c.collective(ctx, mine, func(slots []contribution) {
		if !isRoot {
			out = make([]byte, len(slots[root].data))
			copy(out, slots[root].data)
		}
	})
	if err != nil {
		return nil, err
	}
	if isRoot {
		c.stats.Record(phase, int64(len(data))*int64(p-1), 0, comm.PeerMessages(len(data), p))
	} else {
		c.stats.Record(phase, 0, int64(len(out)), 0)
	}
	return out, nil
}

// Barrier returns once every rank has entered it.
func (c *rankComm) Barrier(ctx context.Context, phase string) error {
	err := c.collective(ctx, &contribution{kind: comm.CollectiveBarrier, phase: phase}, func([]contribution) {})
	if err != nil {
		return err
	}
	c.stats.Record(phase, 0, 0, 0)
	return nil
}

// barrierSpin is how long a rank polls a barrier before it blocks, when
// every rank can have a processor (spinFor).
const barrierSpin = 100 * time.Microsecond

// spinFor polls gen, closed when the barrier completes, for up to
// barrierSpin (parallel.Spin), and reports whether it did. It spins only
// when every one of the world's size ranks can run at once (size ≤
// GOMAXPROCS): then the others are running towards the barrier, and a rank
// that blocked would wait for its thread to be woken — on a virtual machine
// about 0.1 ms, as long as a small graph's PageRank iteration. With more
// ranks than processors a spinning rank would take the processor another
// needs.
func spinFor(gen chan struct{}, size int) bool {
	if size > runtime.GOMAXPROCS(0) {
		return false
	}
	return parallel.Spin(barrierSpin, func() bool {
		select {
		case <-gen:
			return true
		default:
			return false
		}
	})
}
