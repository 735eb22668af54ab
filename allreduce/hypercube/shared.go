// This file is the shared-variable interface of Li et al. §3: tasks do not
// call a collective; they commit vectors to a variable their process's
// manager keeps, and read the global result back.
//
// Reference: Zhenyu Li, James A. Davis and Stephen A. Jarvis, "An Efficient
// Task-based All-Reduce for Machine Learning Applications", Machine
// Learning on HPC Environments workshop (MLHPC'17), ACM, 2017.
//
//   - Init(key, numTasks, reduce) creates the variable (§3.2): how many of
//     this rank's tasks will commit, and the element-wise reduction.
//   - Commit(vector) hands a task's vector over and returns at once; the
//     manager reduces committed vectors into the rank's partial result as
//     they arrive (§3.1, Algorithm 1's local reduction).
//   - Get blocks until the global result is there (or the reduction failed,
//     or its context ends).
//
// One Manager per rank owns the rank's comm.Comm. Its reducer goroutine
// takes the variables in Init order; once all of a variable's local tasks
// have committed it runs a control allreduce — one small AllreduceInt64 in
// which every rank reports whether its local reduction failed, the vector
// length, and hashes of the key and element type, in the spirit of Zhang
// and Qiu's control message allreduce (§II) — and then the dense allreduce
// (dense.go; hypercube-chunked by default) of the partial results. Vectors
// are cut into chunks that a pool of workers encodes, decodes and reduces
// while the transport carries other chunks (§3.3; Options Workers and
// Pieces). A variable that fails the control check fails on every rank
// with ErrInvalid and the manager goes on with the next; a failure of the
// transport fails every pending and later variable.

package hypercube

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/graphrun/graphrun/allreduce/internal/agree"
	"github.com/graphrun/graphrun/comm"
)

// ErrClosed is wrapped by the errors of variables a Manager did not reduce
// because it was closed or its context ended, and by Init afterwards.
var ErrClosed = errors.New("allreduce: manager closed")

// DefaultSharedPhase is the phase prefix of a Manager's collectives when
// ManagerOptions.Phase is empty: "shared.control" and the dense rounds
// "shared.chunked.rs.0", ….
const DefaultSharedPhase = "shared"

// ManagerOptions configure a Manager. Every rank must use the same
// Algorithm, Topology members and Pieces.
type ManagerOptions struct {
	// Algorithm is the dense allreduce of the partial results
	// (AlgChunked if zero).
	Algorithm Algorithm
	// Topology is the hypercube of the hypercube algorithms (nil: dense).
	Topology *Topology
	// Phase is the prefix of the phase names (DefaultSharedPhase if empty).
	Phase string
	// Workers is the number of goroutines that reduce committed vectors
	// locally and encode, decode and reduce chunks (default GOMAXPROCS).
	Workers int
	// Pieces is the pipeline depth of the global allreduce (default
	// Workers; see Options.Pieces).
	Pieces int
}

// Manager is one rank's all-reduce manager (Li et al. §3.1): it keeps the
// rank's shared variables and runs their global reductions on its Comm,
// which nothing else may use while a variable is pending: from its Init
// until every Get of this rank's tasks has returned (between variables
// the rank may run collectives of its own on the Comm). Its methods are
// safe for concurrent use, but Init must be called in the same order, with
// the same keys, on every rank (the variables are reduced in that order).
type Manager struct {
	c      comm.Comm
	opts   ManagerOptions
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	queue   []sharedJob     // Init order, not yet reduced
	pending map[string]bool // keys in queue
	wake    chan struct{}   // capacity 1: the queue grew
	failed  error           // set once the Manager stopped: later Inits fail with it

	done    chan struct{}  // closed when the reducer goroutine has exited
	locals  sync.WaitGroup // local reduction goroutines
	denses  map[string]any // *Dense[T] by element type; reducer goroutine only
	workers int
}

// sharedJob is a variable as the reducer sees it.
type sharedJob interface {
	name() string
	ready() <-chan struct{} // closed when the local reduction is over
	reduceGlobal(ctx context.Context, m *Manager) error
	finish(result any, err error)
}

// NewManager starts rank c.Rank()'s manager. ctx bounds its collectives:
// when it ends, pending variables fail. Close it when done.
func NewManager(ctx context.Context, c comm.Comm, opts ManagerOptions) (*Manager, error) {
	if opts.Algorithm == 0 {
		opts.Algorithm = AlgChunked
	}
	if !slices.Contains(Algorithms(), opts.Algorithm) {
		return nil, fmt.Errorf("%w: unknown dense allreduce algorithm %v", ErrInvalid, opts.Algorithm)
	}
	if opts.Topology != nil && opts.Topology.Len() != c.Size() {
		return nil, fmt.Errorf("%w: topology of %d nodes for %d ranks", ErrInvalid, opts.Topology.Len(), c.Size())
	}
	if opts.Phase == "" {
		opts.Phase = DefaultSharedPhase
	}
	if opts.Workers < 1 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Pieces < 1 {
		opts.Pieces = opts.Workers
	}
	m := &Manager{c: c, opts: opts, pending: make(map[string]bool), wake: make(chan struct{}, 1),
		done: make(chan struct{}), denses: make(map[string]any), workers: opts.Workers}
	m.ctx, m.cancel = context.WithCancelCause(ctx)
	go m.run()
	return m, nil
}

// Close stops the manager: variables not yet reduced fail with ErrClosed
// (a global reduction in progress is interrupted, which fails the job's
// Comm on every rank, so close a manager once its variables are done). It
// waits for the manager's goroutines and returns nil.
func (m *Manager) Close() error {
	m.cancel(ErrClosed)
	<-m.done
	m.locals.Wait()
	return nil
}

// run is the reducer goroutine: variables in Init order, each once its
// local reduction is over.
func (m *Manager) run() {
	defer close(m.done)
	for {
		m.mu.Lock()
		var j sharedJob
		if len(m.queue) > 0 {
			j = m.queue[0]
		}
		m.mu.Unlock()
		if j == nil {
			select {
			case <-m.wake:
				continue
			case <-m.ctx.Done():
				m.stop(context.Cause(m.ctx))
				return
			}
		}
		select {
		case <-j.ready():
		case <-m.ctx.Done():
			m.stop(context.Cause(m.ctx))
			return
		}
		if err := j.reduceGlobal(m.ctx, m); err != nil {
			m.stop(err)
			return
		}
		m.mu.Lock()
		m.queue = m.queue[1:]
		delete(m.pending, j.name())
		m.mu.Unlock()
	}
}

// stop fails every queued variable and every later Init with cause (which
// wraps ErrClosed when the manager's context ended).
func (m *Manager) stop(cause error) {
	if !errors.Is(cause, ErrClosed) && (errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded)) {
		cause = fmt.Errorf("%w: %w", ErrClosed, cause)
	}
	m.mu.Lock()
	queue := m.queue
	m.queue, m.failed = nil, cause
	m.mu.Unlock()
	for _, j := range queue {
		j.finish(nil, fmt.Errorf("allreduce: shared variable %q: %w", j.name(), cause))
	}
}

// Shared is one rank's handle on a shared variable (Li et al. §3.2) of
// vectors of T.
type Shared[T Elem] struct {
	m        *Manager
	key      string
	numTasks int
	op       Op[T]

	commits   chan []T // capacity numTasks, so Commit never blocks
	mu        sync.Mutex
	committed int

	acc      []T           // the local partial result; the local reducer's until localDone closes
	localErr error         // a local reduction failure, set before localDone closes
	local    chan struct{} // closed when the local reduction is over

	once   sync.Once
	done   chan struct{} // closed when result or err is set
	result []T
	err    error
}

// Init creates the shared variable key on m for numTasks commits by this
// rank's tasks, reduced with op (Li et al. §3.2). Every rank calls Init for
// the same keys in the same order; numTasks may differ from rank to rank.
// A key can be reused once its previous variable is reduced.
func Init[T Elem](m *Manager, key string, numTasks int, op Op[T]) (*Shared[T], error) {
	switch {
	case key == "":
		return nil, fmt.Errorf("%w: empty shared variable key", ErrInvalid)
	case numTasks < 1:
		return nil, fmt.Errorf("%w: shared variable %q with %d tasks (at least 1 per rank)", ErrInvalid, key, numTasks)
	case op == nil:
		return nil, fmt.Errorf("%w: shared variable %q with a nil reduction", ErrInvalid, key)
	}
	s := &Shared[T]{m: m, key: key, numTasks: numTasks, op: op, commits: make(chan []T, numTasks),
		local: make(chan struct{}), done: make(chan struct{})}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failed != nil {
		return nil, fmt.Errorf("allreduce: shared variable %q: %w", key, m.failed)
	}
	if m.ctx.Err() != nil {
		return nil, fmt.Errorf("allreduce: shared variable %q: %w", key, ErrClosed)
	}
	if m.pending[key] {
		return nil, fmt.Errorf("%w: shared variable %q is already pending on this manager", ErrInvalid, key)
	}
	m.pending[key] = true
	m.queue = append(m.queue, s)
	m.locals.Go(s.reduceLocal)
	select {
	case m.wake <- struct{}{}:
	default:
	}
	return s, nil
}

// Key is the variable's key.
func (s *Shared[T]) Key() string { return s.key }

// Commit hands vec over for reduction and returns without waiting (Li et
// al. §3.2). The manager reads vec until the variable's result is ready:
// the caller must not modify it before Get returns. Every task commits a
// vector of the same length. Committing more than numTasks vectors is an
// error wrapping ErrInvalid.
func (s *Shared[T]) Commit(vec []T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.committed == s.numTasks {
		return fmt.Errorf("%w: shared variable %q: commit %d of %d tasks", ErrInvalid, s.key, s.committed+1, s.numTasks)
	}
	s.committed++
	s.commits <- vec // never blocks: the channel holds numTasks vectors
	return nil
}

// Get returns the global result once every task of every rank has
// committed and the allreduce is done (at once if it is done already). The
// result is shared by every caller on this rank and must not be modified.
// Get returns an error if the reduction failed, the manager was closed, or
// ctx ended first (the reduction then goes on).
func (s *Shared[T]) Get(ctx context.Context) ([]T, error) {
	select {
	case <-s.done:
		return s.result, s.err
	case <-ctx.Done():
		return nil, fmt.Errorf("allreduce: waiting for shared variable %q: %w", s.key, ctx.Err())
	}
}

// Done is closed once Get would return without waiting.
func (s *Shared[T]) Done() <-chan struct{} { return s.done }

func (s *Shared[T]) name() string           { return s.key }
func (s *Shared[T]) ready() <-chan struct{} { return s.local }

func (s *Shared[T]) finish(result any, err error) {
	s.once.Do(func() {
		if result != nil {
			s.result = result.([]T)
		}
		s.err = err
		close(s.done)
	})
}

// reduceLocal is the variable's local reduction (Li et al. Algorithm 1):
// it reduces the committed vectors into acc as they arrive, on the
// manager's workers, until numTasks have come or the manager stops.
func (s *Shared[T]) reduceLocal() {
	defer close(s.local)
	for i := range s.numTasks {
		var vec []T
		select {
		case vec = <-s.commits:
		case <-s.m.ctx.Done():
			s.localErr = fmt.Errorf("%w: %d of %d tasks committed", ErrClosed, i, s.numTasks)
			return
		}
		switch {
		case s.localErr != nil:
		case i == 0:
			s.acc = make([]T, len(vec))
			s.localErr = blockwise(s.m.workers, len(vec), func(lo, hi int) { copy(s.acc[lo:hi], vec[lo:hi]) })
		case len(vec) != len(s.acc):
			s.localErr = fmt.Errorf("%w: shared variable %q: a task committed %d elements, another %d",
				ErrInvalid, s.key, len(vec), len(s.acc))
		default:
			s.localErr = blockwise(s.m.workers, len(vec), func(lo, hi int) { s.op(s.acc[lo:hi], vec[lo:hi]) })
		}
	}
}

// blockwise runs fn on the blocks of [0, n) on up to workers goroutines.
func blockwise(workers, n int, fn func(lo, hi int)) error {
	blocks := (n + blockElems - 1) / blockElems
	return forEach(workers, blocks, func(_, b int) { fn(b*blockElems, min(n, (b+1)*blockElems)) })
}

// reduceGlobal runs the control allreduce and, if every rank agrees, the
// dense allreduce of acc. It returns an error only when the transport
// failed (the manager cannot go on); a disagreement fails this variable on
// every rank and returns nil.
func (s *Shared[T]) reduceGlobal(ctx context.Context, m *Manager) error {
	fail := func(err error) { s.finish(nil, fmt.Errorf("allreduce: shared variable %q: %w", s.key, err)) }
	a, err := agree.All(ctx, m.c, m.opts.Phase+".control", s.localErr != nil, int64(len(s.acc)), agree.Hash62(s.key), agree.Hash62(elemName[T]()))
	if err != nil {
		fail(err)
		return err
	}
	switch {
	case s.localErr != nil:
		fail(s.localErr)
		return nil
	case a.Failed:
		fail(fmt.Errorf("%w: the local reduction failed on another rank", ErrInvalid))
		return nil
	case a.Disagree == 0:
		fail(fmt.Errorf("%w: ranks disagree on the vector length (from %d to %d)", ErrInvalid, a.Lo, a.Hi))
		return nil
	case a.Disagree == 1:
		fail(fmt.Errorf("%w: ranks disagree on the key (every rank must Init the same keys in the same order)", ErrInvalid))
		return nil
	case a.Disagree == 2:
		fail(fmt.Errorf("%w: ranks disagree on the element type", ErrInvalid))
		return nil
	}
	d, err := denseFor[T](ctx, m)
	if err != nil {
		fail(err)
		return err
	}
	if err := d.Allreduce(ctx, s.acc, s.op); err != nil {
		// Even a failure of this rank alone (a panicking reduction) leaves
		// the other ranks waiting in a collective: the manager stops, and
		// the job's failure reaches them.
		fail(err)
		return err
	}
	s.finish(s.acc, nil)
	return nil
}

// denseFor returns the manager's Dense for T, making it (a collective) on
// first use.
func denseFor[T Elem](ctx context.Context, m *Manager) (*Dense[T], error) {
	name := elemName[T]()
	if d, ok := m.denses[name]; ok {
		return d.(*Dense[T]), nil
	}
	d, err := New[T](ctx, m.c, m.opts.Algorithm, Options{
		Topology: m.opts.Topology, Phase: m.opts.Phase, Workers: m.opts.Workers, Pieces: m.opts.Pieces,
	})
	if err != nil {
		return nil, err
	}
	m.denses[name] = d
	return d, nil
}
