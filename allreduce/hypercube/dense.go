// This file is the dense allreduce family: every rank holds a vector of the
// same length and ends with the element-wise reduction over all ranks. Four
// algorithms (schedule.go) — the tree reduce + broadcast baseline and the
// butterfly of Li et al. §2.2–2.3, the unsplittable and the chunked
// hypercube allreduce of Zhang and Qiu §IV-E — run on one executor.
//
// References: Zhenyu Li, James A. Davis and Stephen A. Jarvis, "An Efficient
// Task-based All-Reduce for Machine Learning Applications", Machine
// Learning on HPC Environments workshop (MLHPC'17), ACM, 2017; Bingjing Zhang and Judy Qiu, "Efficient, Fault-tolerant and Elastic
// Allreduce Framework for Iterative Algorithms", Indiana University
// Bloomington, technical report (undated).
//
// # Messages
//
// Each round of a schedule is one Alltoallv in which a rank sends to its
// partners of the round and an empty message to every other rank, as the
// sparse allreduce does; the counters record only the non-empty ones. A
// message is the little-endian elements of its chunk classes, in order, with
// no header: the receiver knows from the schedule what arrives and checks
// the length (a rank that disagrees on the vector length makes its partners
// fail with ErrInvalid, and the job's failure reaches everyone).
//
// # Parallel processing and pipelining (Li et al. §3.3)
//
// Encoding, decoding and reducing run on Workers goroutines, a block of
// elements at a time (no allocation per element or per call once the
// buffers have grown). With Pieces > 1 every round is cut into that many
// pieces — each chunk class split evenly, so a piece of a round touches the
// same elements as the same piece of the next round — and the pieces go
// through a three-stage pipeline: while the transport carries piece k,
// the workers encode piece k+1 and decode and reduce piece k−1. The
// transport is used by one goroutine at a time, as comm.Comm requires.
//
// # Determinism
//
// A rank reduces what it receives in increasing sender rank, after its own
// value, so a run is bit-for-bit repeatable. tree, butterfly and
// hypercube-chunked give every rank the same bits (a result is computed in
// one place and copied, or by both partners of a pair as a ⊕ b and b ⊕ a);
// hypercube-unsplittable on a topology with sending links may round
// differently on different ranks (a node that also receives from a sending
// link adds three values where its partner adds two).

package hypercube

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/graphrun/graphrun/allreduce/internal/agree"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/bufs"
	"github.com/graphrun/graphrun/internal/parallel"
)

// DefaultPhase is the phase prefix of a Dense allreduce when
// Options.Phase is empty: its rounds are "dense.tree.reduce.0", …,
// "dense.chunked.ag.0" and its agreement check "dense.check".
const DefaultPhase = "dense"

// blockElems is the unit of work of the encoding, decoding and reducing
// workers (256 KiB of float64: a worker's decode scratch stays in cache).
const blockElems = 1 << 15

// minPieceElems bounds the pipeline: a piece has at least this many
// elements (smaller vectors use fewer pieces).
const minPieceElems = 1 << 12

// Options configure a Dense allreduce.
type Options struct {
	// Topology is the hypercube of the hypercube algorithms, whose member
	// k is rank k (Topology.Members); it must have Size() members. nil
	// means NewTopology(Size()). Dense keeps a copy.
	Topology *Topology
	// Phase is the prefix of the phase names (DefaultPhase if empty).
	Phase string
	// Workers is the number of goroutines that encode, decode and reduce
	// (at least 1).
	Workers int
	// Pieces cuts every round into this many pipelined pieces (at least 1;
	// vectors shorter than Pieces·4096 elements use fewer). Every rank must
	// use the same value.
	Pieces int
}

// Dense is one rank's dense allreduce of vectors of T over a fixed set of
// ranks and algorithm. It keeps its buffers from call to call. It is not
// safe for concurrent use; Allreduce is a collective that every rank calls
// the same number of times with vectors of the same length.
type Dense[T Elem] struct {
	c       comm.Comm
	alg     Algorithm
	topo    *Topology
	prefix  string
	workers int
	pieces  int
	sched   schedule
	native  bool // messages are the vector's memory (little-endian host)

	sets    [2]bufSet // one per pipeline slot
	enc     stepWork  // the encoder's scratch
	dec     stepWork  // the decoder's scratch
	xchg    stepWork  // the exchange stage's scratch
	scratch [][]T     // per worker, blockElems values decoded before reducing
}

// bufSet is the buffers of one collective call: the messages by rank
// (send: views of the vector or encoding buffers) and the receive buffers
// by rank. Only the partners of the call hold buffers; between calls the
// buffers wait in two small pools, so that a rank keeps about one round's
// worth of memory, not one buffer per peer it ever talked to.
type bufSet struct {
	send, recv [][]byte
	encoded    [][]byte // the encoding buffers in send, until the call is over
	spareSend  [][]byte // encoding buffers not in use
	spareRecv  [][]byte // receive buffers not in use
}

// take removes from pool the buffer that best fits n bytes (the smallest
// that holds them, else the largest) and returns it with length n when it
// has the capacity, or with length 0 (the transport grows it).
func take(pool *[][]byte, n int) []byte {
	best := -1
	for i, b := range *pool {
		switch {
		case best < 0:
			best = i
		case cap(b) >= n && (cap((*pool)[best]) < n || cap(b) < cap((*pool)[best])):
			best = i
		case cap((*pool)[best]) < n && cap(b) > cap((*pool)[best]):
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	b := (*pool)[best]
	last := len(*pool) - 1
	(*pool)[best] = (*pool)[last]
	(*pool)[last] = nil
	*pool = (*pool)[:last]
	if cap(b) >= n {
		return b[:n]
	}
	return b[:0]
}

// give puts b back into pool (nothing for a buffer without capacity).
func give(pool *[][]byte, b []byte) {
	if cap(b) > 0 {
		*pool = append(*pool, b)
	}
}

// span is the elements lo … hi−1 of the vector.
type span struct{ lo, hi int }

// task is a block of one message: elements lo … hi−1 at byte off of the
// message to or from peer.
type task struct{ peer, lo, hi, off int }

// stepWork is the reusable scratch of one pipeline stage.
type stepWork struct {
	spans []span
	tasks []task
}

// New prepares rank c.Rank()'s part of the dense allreduce alg. It is
// a collective: every rank calls it with the same algorithm, element type,
// pieces and topology members, which one small AllreduceInt64 checks;
// otherwise every rank gets an error wrapping ErrInvalid.
func New[T Elem](ctx context.Context, c comm.Comm, alg Algorithm, opts Options) (*Dense[T], error) {
	d, localErr := newDense[T](c, alg, opts)
	prefix := opts.Phase
	if prefix == "" {
		prefix = DefaultPhase
	}
	var sig int64
	if localErr == nil {
		sig = agree.Hash62(fmt.Sprintf("%s|%s|%d|%v|%v", alg, elemName[T](), d.pieces, d.topo.members, d.topo.rebalanced))
	}
	if err := agreeSignature(ctx, c, prefix+".check", sig, localErr); err != nil {
		return nil, err
	}
	return d, nil
}

// newDense validates the options and compiles the schedule.
func newDense[T Elem](c comm.Comm, alg Algorithm, opts Options) (*Dense[T], error) {
	p := c.Size()
	topo := opts.Topology
	if topo == nil {
		var err error
		if topo, err = NewTopology(p); err != nil {
			return nil, err
		}
	} else {
		topo = topo.Clone()
	}
	if topo.Len() != p {
		return nil, fmt.Errorf("%w: topology of %d nodes for %d ranks", ErrInvalid, topo.Len(), p)
	}
	d := &Dense[T]{c: c, alg: alg, topo: topo, prefix: opts.Phase, workers: max(1, opts.Workers), pieces: max(1, opts.Pieces),
		native: hostLittleEndian}
	if d.prefix == "" {
		d.prefix = DefaultPhase
	}
	sched, err := compileSchedule(alg, p, c.Rank(), topo, d.prefix)
	if err != nil {
		return nil, err
	}
	d.sched = sched
	for i := range d.sets {
		d.sets[i] = bufSet{send: make([][]byte, p), recv: make([][]byte, p)}
	}
	d.scratch = make([][]T, d.workers)
	return d, nil
}

// agreeSignature is a collective: every rank learns whether some rank
// failed locally or the signatures differ; the rank that failed returns its
// own error, the others an error wrapping ErrInvalid.
func agreeSignature(ctx context.Context, c comm.Comm, phase string, sig int64, localErr error) error {
	i, _, _, err := agree.On(ctx, c, phase, localErr, sig)
	if err == nil && i >= 0 {
		err = fmt.Errorf("%w: ranks disagree on the algorithm, element type, pieces or topology", ErrInvalid)
	}
	return err
}

// Algorithm is the algorithm the Dense runs.
func (d *Dense[T]) Algorithm() Algorithm { return d.alg }

// Rounds is the number of collective calls of one Allreduce without
// pipelining (each is made Pieces times with it).
func (d *Dense[T]) Rounds() int { return len(d.sched.rounds) }

// Phases lists the phase names of the rounds, in call order.
func (d *Dense[T]) Phases() []string {
	out := make([]string, len(d.sched.rounds))
	for i, r := range d.sched.rounds {
		out[i] = r.phase
	}
	return out
}

// Allreduce replaces vec, on every rank, by the element-wise reduction with
// op of every rank's vec. It is a collective; every rank passes a vector of
// the same length and the same op. On error vec holds partial results.
func (d *Dense[T]) Allreduce(ctx context.Context, vec []T, op Op[T]) error {
	if op == nil {
		return fmt.Errorf("%w: nil reduction", ErrInvalid)
	}
	rounds := d.sched.rounds
	if len(rounds) == 0 {
		return nil
	}
	k := min(d.pieces, max(1, len(vec)/minPieceElems))
	if k == 1 {
		set := &d.sets[0]
		for i := range rounds {
			r := &rounds[i]
			if err := d.encodeStep(vec, r, 0, 1, set); err != nil {
				return err
			}
			if err := d.exchange(ctx, vec, r, 0, 1, set); err != nil {
				return err
			}
			if err := d.decodeStep(vec, op, r, 0, 1, set); err != nil {
				return err
			}
		}
		return nil
	}
	return d.pipeline(ctx, vec, op, k)
}

// pipeline runs the rounds cut into k pieces through the encode, exchange
// and decode stages (see the file comment). Step s is piece s mod k of
// round s / k; it uses buffer slot s mod 2.
func (d *Dense[T]) pipeline(ctx context.Context, vec []T, op Op[T], k int) error {
	rounds := d.sched.rounds
	steps := len(rounds) * k
	slots := len(d.sets)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	pr := newProgress()
	fail := func(err error) {
		pr.fail(err)
		cancel(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { // encoder
		for s := range steps {
			// The piece's previous round is reduced, and the slot's
			// previous message has been sent.
			if err := pr.wait(ctx, func() bool { return pr.dec >= s-k+1 && pr.xchg >= s-slots+1 }); err != nil {
				return
			}
			if err := d.encodeStep(vec, &rounds[s/k], s%k, k, &d.sets[s%slots]); err != nil {
				fail(err)
				return
			}
			pr.advance(&pr.enc)
		}
	})
	wg.Go(func() { // decoder
		for s := range steps {
			if err := pr.wait(ctx, func() bool { return pr.xchg >= s+1 }); err != nil {
				return
			}
			if err := d.decodeStep(vec, op, &rounds[s/k], s%k, k, &d.sets[s%slots]); err != nil {
				fail(err)
				return
			}
			pr.advance(&pr.dec)
		}
	})
	for s := range steps {
		// The message is encoded, and the slot's previous receipt decoded.
		if err := pr.wait(ctx, func() bool { return pr.enc >= s+1 && pr.dec >= s-slots+1 }); err != nil {
			break
		}
		if err := d.exchange(ctx, vec, &rounds[s/k], s%k, k, &d.sets[s%slots]); err != nil {
			fail(err)
			break
		}
		pr.advance(&pr.xchg)
	}
	if err := pr.wait(ctx, func() bool { return pr.dec == steps }); err != nil && pr.err == nil {
		fail(err)
	}
	cancel(nil)
	wg.Wait()
	return pr.err
}

// progress counts the steps each pipeline stage has finished.
type progress struct {
	mu             sync.Mutex
	enc, xchg, dec int
	err            error         // the first failure
	changed        chan struct{} // closed and replaced on every change
}

func newProgress() *progress { return &progress{changed: make(chan struct{})} }

// wait returns nil once ready() (called under the lock) holds, or an error
// if a stage failed or ctx is done.
func (p *progress) wait(ctx context.Context, ready func() bool) error {
	for {
		p.mu.Lock()
		if p.err != nil {
			err := p.err
			p.mu.Unlock()
			return err
		}
		if ready() {
			p.mu.Unlock()
			return nil
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

func (p *progress) advance(counter *int) {
	p.mu.Lock()
	*counter++
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

func (p *progress) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

// exchange makes the collective call of piece k of kk of round r with the
// messages of set, receiving into pooled buffers, and returns the encoding
// buffers to their pool.
func (d *Dense[T]) exchange(ctx context.Context, vec []T, r *round, k, kk int, set *bufSet) error {
	clear(set.recv)
	w := &d.xchg
	for _, tr := range r.recvs {
		w.spans = appendSpans(w.spans[:0], tr.ranges, len(vec), d.sched.classes, k, kk)
		want := 0
		for _, sp := range w.spans {
			want += (sp.hi - sp.lo) * elemSize[T]()
		}
		set.recv[tr.peer] = take(&set.spareRecv, want)
	}
	recv, err := d.c.Alltoallv(ctx, r.phase, set.send, set.recv)
	for _, b := range set.encoded {
		give(&set.spareSend, b)
	}
	clear(set.encoded)
	set.encoded = set.encoded[:0]
	clear(set.send)
	if err != nil {
		return fmt.Errorf("allreduce: %s: %w", r.phase, err)
	}
	set.recv = recv
	return nil
}

// appendSpans appends the elements of ranges for piece k of kk of a vector
// of n elements cut into classes chunk classes, merging adjacent spans.
func appendSpans(dst []span, ranges []classRange, n, classes, k, kk int) []span {
	classLo := func(c int) int { return int(int64(n) * int64(c) / int64(classes)) }
	add := func(lo, hi int) {
		if lo >= hi {
			return
		}
		if l := len(dst) - 1; l >= 0 && dst[l].hi == lo {
			dst[l].hi = hi
			return
		}
		dst = append(dst, span{lo, hi})
	}
	for _, r := range ranges {
		if kk == 1 {
			add(classLo(r.lo), classLo(r.hi))
			continue
		}
		for c := r.lo; c < r.hi; c++ {
			lo, hi := classLo(c), classLo(c+1)
			a, b := parallel.Span(hi-lo, k, kk)
			add(lo+a, lo+b)
		}
	}
	return dst
}

// appendTasks cuts spans into blocks of one message to or from peer and
// returns the tasks and the message's length in bytes.
func appendTasks(dst []task, spans []span, peer, size int) ([]task, int) {
	off := 0
	for _, sp := range spans {
		for lo := sp.lo; lo < sp.hi; lo += blockElems {
			hi := min(sp.hi, lo+blockElems)
			dst = append(dst, task{peer: peer, lo: lo, hi: hi, off: off})
			off += (hi - lo) * size
		}
	}
	return dst, off
}

// encodeStep sets up piece k of kk of round r's messages in set.send: a
// message of consecutive elements is a view of vec on a little-endian host,
// any other is encoded into a pooled buffer.
func (d *Dense[T]) encodeStep(vec []T, r *round, k, kk int, set *bufSet) error {
	size := elemSize[T]()
	w := &d.enc
	w.tasks = w.tasks[:0]
	for _, tr := range r.sends {
		w.spans = appendSpans(w.spans[:0], tr.ranges, len(vec), d.sched.classes, k, kk)
		if d.native && len(w.spans) == 1 {
			set.send[tr.peer] = asBytes(vec[w.spans[0].lo:w.spans[0].hi])
			continue
		}
		var bytes int
		w.tasks, bytes = appendTasks(w.tasks, w.spans, tr.peer, size)
		buf := bufs.Resize(take(&set.spareSend, bytes), bytes)
		set.send[tr.peer] = buf
		set.encoded = append(set.encoded, buf)
	}
	tasks := w.tasks
	return forEach(d.workers, len(tasks), func(_, i int) {
		t := tasks[i]
		dst := set.send[t.peer][t.off : t.off+(t.hi-t.lo)*size]
		if d.native {
			copy(dst, asBytes(vec[t.lo:t.hi]))
		} else {
			encodeElems(dst, vec[t.lo:t.hi])
		}
	})
}

// decodeStep applies piece k of kk of round r's received messages to vec:
// reduced with op, or copied in a copy round, sender by sender.
func (d *Dense[T]) decodeStep(vec []T, op Op[T], r *round, k, kk int, set *bufSet) error {
	size := elemSize[T]()
	w := &d.dec
	for _, tr := range r.recvs {
		w.spans = appendSpans(w.spans[:0], tr.ranges, len(vec), d.sched.classes, k, kk)
		var want int
		w.tasks, want = appendTasks(w.tasks[:0], w.spans, tr.peer, size)
		msg := set.recv[tr.peer]
		if len(msg) != want {
			return fmt.Errorf("%w: %s: rank %d sent %d bytes, rank %d expects %d (ranks disagree on the vector length or the element type)",
				ErrInvalid, r.phase, tr.peer, len(msg), d.c.Rank(), want)
		}
		tasks := w.tasks
		var err error
		if r.copy {
			err = forEach(d.workers, len(tasks), func(_, i int) {
				t := tasks[i]
				src := msg[t.off : t.off+(t.hi-t.lo)*size]
				if d.native {
					copy(asBytes(vec[t.lo:t.hi]), src)
				} else {
					decodeElems(vec[t.lo:t.hi], src)
				}
			})
		} else {
			err = forEach(d.workers, len(tasks), func(wk, i int) {
				t := tasks[i]
				src := msg[t.off : t.off+(t.hi-t.lo)*size]
				if x, ok := asElems[T](src); ok && d.native {
					op(vec[t.lo:t.hi], x)
					return
				}
				sc := d.scratch[wk]
				if cap(sc) < blockElems {
					sc = make([]T, blockElems)
					d.scratch[wk] = sc
				}
				sc = sc[:t.hi-t.lo]
				decodeElems(sc, src)
				op(vec[t.lo:t.hi], sc)
			})
		}
		if err != nil {
			return fmt.Errorf("allreduce: %s: reducing the values of rank %d: %w", r.phase, tr.peer, err)
		}
	}
	for i, b := range set.recv {
		give(&set.spareRecv, b)
		set.recv[i] = nil
	}
	return nil
}

// forEach runs fn(worker, i) for i in [0, n) on up to workers goroutines
// (inline with one) and returns a panic of fn as a *comm.PanicError.
func forEach(workers, n int, fn func(worker, i int)) error {
	workers = min(workers, n)
	if workers <= 1 {
		return runTasks(0, n, new(atomic.Int64), fn)
	}
	var next atomic.Int64
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { errs[w] = runTasks(w, n, &next, fn) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runTasks is one worker of forEach: it takes task numbers from next until
// they run out.
func runTasks(w, n int, next *atomic.Int64, fn func(worker, i int)) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = comm.NewPanicError(v, "allreduce.runTasks")
		}
	}()
	for {
		i := int(next.Add(1) - 1)
		if i >= n {
			return nil
		}
		fn(w, i)
	}
}

// PhaseNames lists the phase names of alg's rounds on p ranks with the
// given prefix (DefaultPhase if empty) and topology (nil: dense), in
// call order, for reading the per-round counters from comm.Stats. Ranks
// differ in what they send but share the rounds.
func PhaseNames(alg Algorithm, p int, topo *Topology, prefix string) ([]string, error) {
	if prefix == "" {
		prefix = DefaultPhase
	}
	if topo == nil {
		var err error
		if topo, err = NewTopology(p); err != nil {
			return nil, err
		}
	}
	if topo.Len() != p {
		return nil, fmt.Errorf("%w: topology of %d nodes for %d ranks", ErrInvalid, topo.Len(), p)
	}
	if p == 0 {
		return nil, nil
	}
	s, err := compileSchedule(alg, p, 0, topo, prefix)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(s.rounds))
	for i, r := range s.rounds {
		out[i] = r.phase
	}
	return out, nil
}

// String describes the Dense, e.g. "hypercube-chunked on 8 ranks (3 dims)".
func (d *Dense[T]) String() string {
	s := d.alg.String() + " on " + strconv.Itoa(d.c.Size()) + " ranks"
	if d.alg == AlgHypercube || d.alg == AlgChunked {
		s += " (" + strconv.Itoa(d.topo.Dims()) + " dims"
		if d.topo.Rebalanced() {
			s += ", rebalanced"
		}
		s += ")"
	}
	return s
}
