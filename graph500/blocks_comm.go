package graph500

// Over-decomposition (paper 003, NumS: more blocks than nodes, placed by a
// load simulation): with BlocksPerRank = k, a job of p ranks runs the 2D
// engine over a block grid of k·p blocks, and every rank hosts the k blocks
// its placement gives it. Each block is a block-rank: a goroutine running the
// unchanged 2D driver over a blockComm of k·p ranks. blockHub carries the
// block-ranks' collectives over the process's real Comm, aggregated per
// process: one real Alltoallv per collective, in which the messages of every
// pair of blocks on two processes travel together as one message, and
// messages between blocks on the same process never reach the transport.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/graphrun/graphrun/comm"
)

// blockHub is one process's multiplexer of its block-ranks' collectives.
type blockHub struct {
	real  comm.Comm
	owner []int   // per block-rank: the process hosting it
	hosts [][]int // per process: its block-ranks, ascending
	slot  []int   // per block-rank: its index in its host's list

	mu       sync.Mutex
	arrived  int
	departed int         // local block-ranks whose function returned
	pending  []blockCall // per local slot: the call made in this round
	done     chan struct{}
	out      [][][]byte // per local slot: what it received in the finished round
	err      error      // the finished round's error
	failed   error      // once set, every later call fails

	sendBuf [][]byte // per process: the aggregated message
	recvBuf [][]byte
	own     [][]byte // gather rounds: the local blocks' payloads, copied

	// Group rounds (blocks_group.go): per process, whether the round
	// reaches it; those processes, and their messages by position.
	among        []bool
	procs        []int
	gsend, grecv [][]byte
}

// blockCall is one block-rank's part of a collective: what it is (the
// operation, its phase and its arguments that every rank must agree on,
// e.g. "allreduce-int64 sum 3 phase"), and what it sends: send[w] to every
// block-rank w, or, in a gather round, mine to all of them.
type blockCall struct {
	sig    string
	send   [][]byte
	recv   [][]byte // buffers to reuse
	gather bool
	mine   []byte
	group  []int // a group call (blocks_group.go): the block-ranks it is among
}

// newBlockHub returns process c.Rank()'s hub for the placement owner (per
// block-rank, its process; every process must host at least one).
func newBlockHub(c comm.Comm, owner []int) (*blockHub, error) {
	h := &blockHub{real: c, owner: owner, hosts: make([][]int, c.Size()), slot: make([]int, len(owner)),
		done: make(chan struct{}), sendBuf: make([][]byte, c.Size())}
	for v, r := range owner {
		if r < 0 || r >= c.Size() {
			return nil, fmt.Errorf("block %d placed on rank %d, outside [0, %d)", v, r, c.Size())
		}
		h.slot[v] = len(h.hosts[r])
		h.hosts[r] = append(h.hosts[r], v)
	}
	if len(h.hosts[c.Rank()]) == 0 {
		return nil, fmt.Errorf("rank %d hosts no block", c.Rank())
	}
	h.pending = make([]blockCall, len(h.hosts[c.Rank()]))
	return h, nil
}

// runLocal runs fn on every block-rank this process hosts, each in its own
// goroutine with its own blockComm (k is its index among the local ones),
// and returns the first error that is not an abort caused by another's. A
// failing or panicking block-rank fails the hub, so that no other waits
// for it; the caller returning that error aborts the real job.
func (h *blockHub) runLocal(fn func(k int, c *blockComm) error) error {
	local := h.hosts[h.real.Rank()]
	errs := make([]error, len(local))
	var wg sync.WaitGroup
	for k, v := range local {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[k] = comm.NewPanicError(p, "blockHub.runLocal.func1")
				}
				if errs[k] != nil {
					h.fail(fmt.Errorf("block %d: %w", v, errs[k]))
				} else {
					h.depart()
				}
			}()
			errs[k] = fn(k, &blockComm{hub: h, rank: v})
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
func (h *blockHub) failLocked(err error) error {
	if h.failed == nil {
		h.failed = fmt.Errorf("%w: %w", comm.ErrAborted, err)
		close(h.done)
	}
	return h.failed
}

func (h *blockHub) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failLocked(err)
}

// depart records a block-rank whose function returned: a collective that
// others are waiting in, or call later, can no longer complete.
func (h *blockHub) depart() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.departed++
	if h.arrived > 0 {
		h.failLocked(errors.New("a block returned while others of its rank wait in a collective"))
	}
}

// exchange is the one collective every blockComm call is made of: block-rank
// v sends send[w] to every block-rank w and gets what each sent it. The last
// local block-rank to arrive runs the process's real Alltoallv for all of
// them.
//
// In a gather round (call.gather) every block-rank sends call.mine to all,
// and the result, every block-rank's payload, is shared by the local
// block-ranks and read-only: valid until the caller's next collective.
func (h *blockHub) exchange(ctx context.Context, v int, phase string, call blockCall) ([][]byte, error) {
	h.mu.Lock()
	if h.failed != nil {
		defer h.mu.Unlock()
		return nil, h.failed
	}
	if h.departed > 0 {
		defer h.mu.Unlock()
		return nil, h.failLocked(fmt.Errorf("block %d calls %s after a block of its rank returned", v, phase))
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
			return nil, h.failLocked(fmt.Errorf("block %d in %s: %w", v, phase, ctx.Err()))
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
	h.pending = make([]blockCall, len(calls))
	if err != nil {
		// The real job is aborted (or this process's blocks disagree):
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
// local source block and every block hosted there (both ascending), a
// uvarint length and the payload. A process whose blocks' signatures differ
// from each other or from another process's fails the round.
func (h *blockHub) run(ctx context.Context, phase string, calls []blockCall) ([][][]byte, error) {
	me := h.real.Rank()
	mine := h.hosts[me]
	sig := calls[0].sig
	for k, c := range calls {
		if c.sig != sig {
			return nil, fmt.Errorf("blocks %d and %d of rank %d disagree on a collective: %q and %q", mine[0], mine[k], me, sig, c.sig)
		}
	}
	if calls[0].gather {
		return h.runGather(ctx, phase, sig, calls)
	}
	// A round of group calls (groups: per local block, its group), among
	// the processes the local blocks' groups reach when the real Comm has
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
			h.sendBuf[d] = appendBlockMessage(h.sendBuf[d], sends, there, groups)
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
// blocks' payloads once (not once per destination block), and every local
// block-rank gets the same array of all payloads.
func (h *blockHub) runGather(ctx context.Context, phase, sig string, calls []blockCall) ([][][]byte, error) {
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
			h.sendBuf[d] = appendBlockMessage(h.sendBuf[d], [][][]byte{h.own}, index, nil)
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

// appendSignature starts a message to another process: the round's
// signature, uvarint length and bytes.
func appendSignature(msg []byte, sig string) []byte {
	msg = binary.AppendUvarint(msg, uint64(len(sig)))
	return append(msg, sig...)
}

// splitFrom checks that process s's message msg is of the same collective
// (signature sig) and splits its payloads into out (splitBlockMessage, with
// the local blocks' groups in a round of group calls).
func (h *blockHub) splitFrom(s int, msg []byte, sig string, out [][][]byte, groups [][]int) error {
	me := h.real.Rank()
	n, m := binary.Uvarint(msg)
	if m <= 0 || n > uint64(len(msg)-m) {
		return fmt.Errorf("blocks of rank %d: message from rank %d: truncated signature", me, s)
	}
	if string(msg[m:m+int(n)]) != sig { // compared in place: no copy of the bytes per round
		return fmt.Errorf("blocks of rank %d call %q while those of rank %d call %q", me, sig, s, msg[m:m+int(n)])
	}
	if err := splitBlockMessage(msg[m+int(n):], h.hosts[s], out, groups); err != nil {
		return fmt.Errorf("blocks of rank %d: message from rank %d: %w", me, s, err)
	}
	return nil
}

// appendBlockMessage appends to msg, for every source block's send (in
// order) and every destination block of dsts, a uvarint length and the
// payload: the aggregated message of one process to another. In a round of
// group calls, groups[i] is source i's group: the length is then written
// plus one when the source lists the destination, and as 0 (no payload)
// when it does not, so that the receiver checks that the membership is
// symmetric.
func appendBlockMessage(msg []byte, sends [][][]byte, dsts []int, groups [][]int) []byte {
	for i, send := range sends {
		for _, w := range dsts {
			n := uint64(len(send[w]))
			if groups != nil {
				if !slices.Contains(groups[i], w) {
					msg = append(msg, 0)
					continue
				}
				n++
			}
			msg = binary.AppendUvarint(msg, n)
			msg = append(msg, send[w]...)
		}
	}
	return msg
}

// splitBlockMessage reads a message appendBlockMessage wrote on the process
// hosting the source blocks srcs, for this process's len(out) blocks: the
// payload from srcs[i] to local block k goes to out[k][srcs[i]], copied (out
// is indexed by local block, then by block-rank). In a round of group calls
// groups[k] is local block k's group, and a source must list k exactly
// when k lists it. A truncated or overlong message is an error.
func splitBlockMessage(msg []byte, srcs []int, out [][][]byte, groups [][]int) error {
	for _, src := range srcs {
		for k := range out {
			n, m := binary.Uvarint(msg)
			if m > 0 && groups != nil {
				if listed := slices.Contains(groups[k], src); listed != (n > 0) {
					return fmt.Errorf("collective mismatch: block %d's group call and local block %d's disagree on whether they are in one group", src, k)
				}
				if n > 0 {
					n-- // the length plus one of a listed pair
				}
			}
			if m <= 0 || n > uint64(len(msg)-m) {
				return fmt.Errorf("truncated at the payload from block %d to local block %d", src, k)
			}
			out[k][src] = append(out[k][src][:0], msg[m:m+int(n)]...)
			msg = msg[m+int(n):]
		}
	}
	if len(msg) != 0 {
		return fmt.Errorf("%d stray bytes", len(msg))
	}
	return nil
}

// blockComm is one block-rank's Comm. Its counters count the logical
// volume between block-ranks, as any Comm does (comm/inproc's rules); its
// NetworkStats count only what went to block-ranks on other processes, the
// bytes that cross a link.
type blockComm struct {
	hub   *blockHub
	rank  int
	stats comm.Stats
	net   comm.Stats
	seen  []bool // AlltoallvGroup's member check

	full, fullRecv [][]byte // AlltoallvGroup's send and receive lists over the whole job
}

var _ comm.Comm = (*blockComm)(nil)

func (b *blockComm) Rank() int          { return b.rank }
func (b *blockComm) Size() int          { return len(b.hub.owner) }
func (b *blockComm) Stats() *comm.Stats { return &b.stats }

// NetworkStats are the counters of the traffic to and from block-ranks on
// other processes.
func (b *blockComm) NetworkStats() *comm.Stats { return &b.net }

// record counts one completed call: to and from every other block-rank in
// Stats, to and from other processes' in NetworkStats.
func (b *blockComm) record(phase string, send, recv [][]byte) {
	me := b.hub.owner[b.rank]
	var sent, got, msgs, netSent, netGot, netMsgs int64
	for w := range send {
		if w == b.rank {
			continue
		}
		n, r := int64(len(send[w])), int64(len(recv[w]))
		sent, got = sent+n, got+r
		if n > 0 {
			msgs++
		}
		if b.hub.owner[w] != me {
			netSent, netGot = netSent+n, netGot+r
			if n > 0 {
				netMsgs++
			}
		}
	}
	b.stats.Record(phase, sent, got, msgs)
	b.net.Record(phase, netSent, netGot, netMsgs)
}

// call runs one collective whose signature is op (with the phase) and
// counts it; group, when not nil, are the block-ranks of a group call.
func (b *blockComm) call(ctx context.Context, op, phase string, send, recv [][]byte, group []int) ([][]byte, error) {
	out, err := b.hub.exchange(ctx, b.rank, phase, blockCall{sig: op + " " + phase, send: send, recv: recv, group: group})
	if err != nil {
		return nil, err
	}
	b.record(phase, send, out)
	return out, nil
}

// gatherShared runs a gather round of signature op: mine to every
// block-rank. It returns the hub's read-only array of every block-rank's
// payload, valid until this block-rank's next collective, and counts the
// call: logically mine to each of the Size()−1 others; on the network, mine
// once to each other process.
func (b *blockComm) gatherShared(ctx context.Context, op, phase string, mine []byte) ([][]byte, error) {
	all, err := b.hub.exchange(ctx, b.rank, phase, blockCall{sig: op + " " + phase, gather: true, mine: mine})
	if err != nil {
		return nil, err
	}
	owner := b.hub.owner
	me := owner[b.rank]
	var got, netGot int64
	for w, m := range all {
		if w == b.rank {
			continue
		}
		got += int64(len(m))
		if owner[w] != me {
			netGot += int64(len(m))
		}
	}
	n, others, procs := int64(len(mine)), int64(b.Size()-1), int64(len(b.hub.hosts)-1)
	msgs, netMsgs := others, procs
	if n == 0 {
		msgs, netMsgs = 0, 0
	}
	b.stats.Record(phase, n*others, got, msgs)
	b.net.Record(phase, n*procs, netGot, netMsgs)
	return all, nil
}

func (b *blockComm) Alltoallv(ctx context.Context, phase string, send [][]byte, recv [][]byte) ([][]byte, error) {
	if len(send) != b.Size() {
		return nil, fmt.Errorf("blocks: Alltoallv: len(send) = %d, want Size() = %d", len(send), b.Size())
	}
	return b.call(ctx, "alltoallv", phase, send, recv, nil)
}

func (b *blockComm) Allgatherv(ctx context.Context, phase string, mine []byte, recv [][]byte) ([][]byte, error) {
	all, err := b.gatherShared(ctx, "allgatherv", phase, mine)
	if err != nil {
		return nil, err
	}
	out := recv
	if len(out) != len(all) {
		out = make([][]byte, len(all))
	}
	for w, m := range all {
		out[w] = append(out[w][:0], m...)
	}
	return out, nil
}

// gather8 sends every block-rank the 8-byte words of vals and returns every
// block-rank's words, in block-rank order (the hub's read-only array).
func (b *blockComm) gather8(ctx context.Context, op, phase string, vals []uint64) ([][]byte, error) {
	buf := make([]byte, 0, 8*len(vals))
	for _, x := range vals {
		buf = binary.LittleEndian.AppendUint64(buf, x)
	}
	return b.gatherShared(ctx, fmt.Sprintf("%s %d", op, len(vals)), phase, buf)
}

// AllreduceInt64 combines every block-rank's values in block-rank order.
func (b *blockComm) AllreduceInt64(ctx context.Context, phase string, vals []int64, op comm.Op) error {
	return allreduce(ctx, b, "allreduce-int64", phase, vals, op,
		func(x int64) uint64 { return uint64(x) }, func(w uint64) int64 { return int64(w) })
}

// AllreduceFloat64 combines every block-rank's values in block-rank order,
// so the result is the same on every block-rank.
func (b *blockComm) AllreduceFloat64(ctx context.Context, phase string, vals []float64, op comm.Op) error {
	return allreduce(ctx, b, "allreduce-float64", phase, vals, op, math.Float64bits, math.Float64frombits)
}

// allreduce gathers every block-rank's vals as 8-byte words and combines
// them in block-rank order.
func allreduce[T int64 | float64](ctx context.Context, b *blockComm, kind, phase string, vals []T, op comm.Op,
	word func(T) uint64, value func(uint64) T) error {
	if op > comm.Min {
		return fmt.Errorf("blocks: unknown reduction %v", op)
	}
	words := make([]uint64, len(vals))
	for i, x := range vals {
		words[i] = word(x)
	}
	all, err := b.gather8(ctx, kind+" "+op.String(), phase, words)
	if err != nil {
		return err
	}
	for w, m := range all {
		if len(m) != 8*len(vals) {
			return fmt.Errorf("blocks: allreduce of %d values, block %d sent %d bytes", len(vals), w, len(m))
		}
	}
	for i := range vals {
		acc := value(binary.LittleEndian.Uint64(all[0][8*i:]))
		for _, m := range all[1:] {
			x := value(binary.LittleEndian.Uint64(m[8*i:]))
			switch op {
			case comm.Sum:
				acc += x
			case comm.Max:
				acc = max(acc, x)
			default:
				acc = min(acc, x)
			}
		}
		vals[i] = acc
	}
	return nil
}

func (b *blockComm) Bcast(ctx context.Context, phase string, root int, data []byte) ([]byte, error) {
	if root < 0 || root >= b.Size() {
		return nil, fmt.Errorf("blocks: Bcast from rank %d of %d", root, b.Size())
	}
	send := make([][]byte, b.Size())
	if b.rank == root {
		for w := range send {
			send[w] = data
		}
	}
	out, err := b.call(ctx, fmt.Sprintf("bcast %d", root), phase, send, nil, nil)
	if err != nil {
		return nil, err
	}
	return out[root], nil
}

func (b *blockComm) Barrier(ctx context.Context, phase string) error {
	_, err := b.call(ctx, "barrier", phase, make([][]byte, b.Size()), nil, nil)
	return err
}
