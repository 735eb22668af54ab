// Package multiplex runs a job of more ranks than processes: every process
// hosts several ranks of the job, each a goroutine with its own comm.Comm,
// and carries their collectives over the process's own Comm, aggregated per
// process. One round of the hub is one Alltoallv (or, for the row and
// column exchanges of a 2D run, one AlltoallvGroup) of the real job, in
// which the payloads of every pair of ranks on two processes travel
// together as one message; payloads between ranks of the same process
// never reach the transport.
//
// It is the transport of over-decomposition (NumS §4: more blocks than
// nodes, each block a task placed by a load simulation): graph500 runs the
// unchanged 2D BFS driver on every block of a block grid as one rank of a
// multiplexed job, on the process its placement gives it.
//
// Source: Melih Elibol, Vinamra Benara, Samyu Yagati, Lianmin Zheng, Alvin
// Cheung, Michael I. Jordan and Ion Stoica, "NumS: Scalable Array
// Programming for the Cloud", arXiv preprint, 2022.
package multiplex

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/graphrun/graphrun/comm"
)

// Hub is one process's multiplexer of the collectives of the ranks it
// hosts. New places the ranks; Run runs them.
type Hub struct {
	real  comm.Comm
	owner []int   // per rank: the process hosting it
	hosts [][]int // per process: its ranks, ascending
	slot  []int   // per rank: its index in its host's list

	mu       sync.Mutex
	arrived  int
	departed int       // local ranks whose function returned
	pending  []request // per local slot: the call made in this round
	done     chan struct{}
	out      [][][]byte // per local slot: what it received in the finished round
	err      error      // the finished round's error
	failed   error      // once set, every later call fails

	sendBuf [][]byte // per process: the aggregated message
	recvBuf [][]byte
	own     [][]byte // gather rounds: the local ranks' payloads, copied

	// Group rounds (group.go): per process, whether the round
	// reaches it; those processes, and their messages by position.
	among        []bool
	procs        []int
	gsend, grecv [][]byte
}

// request is one rank's part of a collective: what it is (the
// operation, its phase and its arguments that every rank must agree on,
// e.g. "allreduce-int64 sum 3 phase"), and what it sends: send[w] to every
// rank w, or, in a gather round, mine to all of them.
type request struct {
	sig    string
	send   [][]byte
	recv   [][]byte // buffers to reuse
	gather bool
	mine   []byte
	group  []int // a group call (group.go): the ranks it is among
}

// New returns process c.Rank()'s hub for the placement owner (per
// rank, its process; every process must host at least one).
func New(c comm.Comm, owner []int) (*Hub, error) {
	h := &Hub{real: c, owner: owner, hosts: make([][]int, c.Size()), slot: make([]int, len(owner)),
		done: make(chan struct{}), sendBuf: make([][]byte, c.Size())}
	for v, r := range owner {
		if r < 0 || r >= c.Size() {
			return nil, fmt.Errorf("rank %d placed on process %d, outside [0, %d)", v, r, c.Size())
		}
		h.slot[v] = len(h.hosts[r])
		h.hosts[r] = append(h.hosts[r], v)
	}
	if len(h.hosts[c.Rank()]) == 0 {
		return nil, fmt.Errorf("process %d hosts no rank", c.Rank())
	}
	h.pending = make([]request, len(h.hosts[c.Rank()]))
	return h, nil
}

// Local returns the ranks this process hosts, ascending: Run's k indexes
// them.
func (h *Hub) Local() []int { return h.hosts[h.real.Rank()] }

// Run runs fn on every rank this process hosts, each in its own
// goroutine with its own Comm (k is its index among the local ones),
// and returns the first error that is not an abort caused by another's. A
// failing or panicking rank fails the hub, so that no other waits
// for it; the caller returning that error aborts the real job.
func (h *Hub) Run(fn func(k int, c *Comm) error) error {
	local := h.hosts[h.real.Rank()]
	errs := make([]error, len(local))
	var wg sync.WaitGroup
	for k, v := range local {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[k] = comm.NewPanicError(p, "Hub.Run.func1")
				}
				if errs[k] != nil {
					h.fail(fmt.Errorf("rank %d: %w", v, errs[k]))
				} else {
					h.depart()
				}
			}()
			errs[k] = fn(k, &Comm{hub: h, rank: v})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, comm.ErrAborted) {
			return err
		}
	}
	return errors.Join(errs...)
}

// failLocked makes every pending and later call of the hub fail with err.
// h.mu is held.
func (h *Hub) failLocked(err error) error {
	if h.failed == nil {
		h.failed = fmt.Errorf("%w: %w", comm.ErrAborted, err)
		close(h.done)
	}
	return h.failed
}

func (h *Hub) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failLocked(err)
}

// depart records a rank whose function returned: a collective that
// others are waiting in, or call later, can no longer complete.
func (h *Hub) depart() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.departed++
	if h.arrived > 0 {
		h.failLocked(errors.New("a rank returned while others of its process wait in a collective"))
	}
}

// exchange is the one collective every Comm call is made of: rank
// v sends send[w] to every rank w and gets what each sent it. The last
// local rank to arrive runs the process's real Alltoallv for all of
// them.
//
// In a gather round (call.gather) every rank sends call.mine to all,
// and the result, every rank's payload, is shared by the local
// ranks and read-only: valid until the caller's next collective.
func (h *Hub) exchange(ctx context.Context, v int, phase string, call request) ([][]byte, error) {
	h.mu.Lock()
	if h.failed != nil {
		defer h.mu.Unlock()
		return nil, h.failed
	}
	if h.departed > 0 {
		defer h.mu.Unlock()
		return nil, h.failLocked(fmt.Errorf("rank %d calls %s after a rank of its process returned", v, phase))
	}
	h.pending[h.slot[v]] = call
	h.arrived++
	done := h.done
	if h.arrived < len(h.pending) {
		h.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		select {
		case <-done:
		default: // the context ended first
			return nil, h.failLocked(fmt.Errorf("rank %d in %s: %w", v, phase, ctx.Err()))
		}
		if h.failed != nil {
			return nil, h.failed
		}
		return h.out[h.slot[v]], h.err
	}
	calls := h.pending
	h.mu.Unlock()
	out, err := h.run(ctx, phase, calls)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed != nil {
		return nil, h.failed
	}
	h.arrived = 0
	h.pending = make([]request, len(calls))
	if err != nil {
		// The real job is aborted (or this process's ranks disagree):
		// nothing later can succeed.
		return nil, h.failLocked(err)
	}
	h.out, h.err = out, nil
	h.done = make(chan struct{})
	close(done)
	return out[h.slot[v]], nil
}

// run carries one round: the local deliveries, and per other process one
// message: the calls' signature (uvarint length and bytes), then, for every
// local source rank and every rank hosted there (both ascending), a
// uvarint length and the payload. A process whose ranks' signatures differ
// from each other or from another process's fails the round.
func (h *Hub) run(ctx context.Context, phase string, calls []request) ([][][]byte, error) {
	me := h.real.Rank()
	mine := h.hosts[me]
	sig := calls[0].sig
	for k, c := range calls {
		if c.sig != sig {
			return nil, fmt.Errorf("ranks %d and %d of process %d disagree on a collective: %q and %q", mine[0], mine[k], me, sig, c.sig)
		}
	}
	if calls[0].gather {
		return h.runGather(ctx, phase, sig, calls)
	}
	// A round of group calls (groups: per local rank, its group), among
	// the processes the local ranks' groups reach when the real Comm has
	// group calls (among; nil: a round of the whole job).
	var groups [][]int
	var among []bool
	group, grouped := h.real.(comm.GroupExchanger)
	if calls[0].group != nil {
		var err error
		if groups, err = h.localGroups(calls); err != nil {
			return nil, err
		}
		if grouped {
			among = h.groupProcesses(calls)
		}
	}
	out := make([][][]byte, len(mine))
	for k, c := range calls {
		out[k] = c.recv
		if len(out[k]) != len(h.owner) {
			out[k] = make([][]byte, len(h.owner))
		}
	}
	sends := make([][][]byte, len(calls))
	for k, c := range calls {
		sends[k] = c.send
		for _, w := range mine { // local deliveries
			dst := out[h.slot[w]]
			dst[mine[k]] = append(dst[mine[k]][:0], c.send[w]...)
		}
	}
	for d, there := range h.hosts {
		h.sendBuf[d] = h.sendBuf[d][:0]
		if d != me && (among == nil || among[d]) {
			h.sendBuf[d] = appendSignature(h.sendBuf[d], sig)
			h.sendBuf[d] = appendMessage(h.sendBuf[d], sends, there, groups)
		}
	}
	var got [][]byte
	var err error
	if among != nil {
		got, err = h.exchangeGroup(ctx, group, phase, among)
	} else {
		got, err = h.real.Alltoallv(ctx, phase, h.sendBuf, h.recvBuf)
		h.recvBuf = got
	}
	if err != nil {
		return nil, err
	}
	for s := range h.hosts {
		if s == me || (among != nil && !among[s]) {
			continue
		}
		if err := h.splitFrom(s, got[s], sig, out, groups); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// runGather carries a gather round: every process sends every other one its
// ranks' payloads once (not once per destination rank), and every local
// rank gets the same array of all payloads.
func (h *Hub) runGather(ctx context.Context, phase, sig string, calls []request) ([][][]byte, error) {
	me := h.real.Rank()
	mine := h.hosts[me]
	if len(h.own) != len(calls) {
		h.own = make([][]byte, len(calls))
	}
	all := make([][]byte, len(h.owner))
	index := make([]int, len(calls))
	for k, c := range calls {
		h.own[k] = append(h.own[k][:0], c.mine...)
		all[mine[k]] = h.own[k]
		index[k] = k
	}
	for d := range h.hosts {
		h.sendBuf[d] = h.sendBuf[d][:0]
		if d != me {
			h.sendBuf[d] = appendSignature(h.sendBuf[d], sig)
			h.sendBuf[d] = appendMessage(h.sendBuf[d], [][][]byte{h.own}, index, nil)
		}
	}
	got, err := h.real.Alltoallv(ctx, phase, h.sendBuf, h.recvBuf)
	if err != nil {
		return nil, err
	}
	h.recvBuf = got
	shared := [][][]byte{all}
	for s := range h.hosts {
		if s == me {
			continue
		}
		if err := h.splitFrom(s, got[s], sig, shared, nil); err != nil {
			return nil, err
		}
	}
	out := make([][][]byte, len(calls))
	for k := range out {
		out[k] = all
	}
	return out, nil
}
