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
	"sync"

	"github.com/graphrun/graphrun/comm"
)

// blockHub is one process's multiplexer of its block-ranks' collectives.
type blockHub struct {
	real  comm.Comm
	owner []int   // per block-rank: the process hosting it
	hosts [][]int // per process: its block-ranks, ascending
	slot  []int   // per block-rank: its index in its host's list

	mu      sync.Mutex
	arrived int
	pending []blockCall // per local slot: the call made in this round
	done    chan struct{}
	out     [][][]byte // per local slot: what it received in the finished round
	err     error      // the finished round's error
	failed  error      // once set, every later call fails

	sendBuf [][]byte // per process: the aggregated message
	recvBuf [][]byte
}

// blockCall is one block-rank's part of a collective: its phase and what it
// sends to every block-rank.
type blockCall struct {
	phase string
	send  [][]byte
	recv  [][]byte // buffers to reuse
}

// newBlockHub returns process c.Rank()'s hub for the placement owner (per
// block-rank, its process).
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

// local returns the block-ranks this process hosts.
func (h *blockHub) local() []int { return h.hosts[h.real.Rank()] }

// comm returns block-rank v's Comm.
func (h *blockHub) comm(v int) *blockComm { return &blockComm{hub: h, rank: v} }

// fail makes every pending and later call of the hub return err.
func (h *blockHub) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed == nil {
		h.failed = fmt.Errorf("%w: %w", comm.ErrAborted, err)
		close(h.done)
	}
}

// exchange is the one collective every blockComm call is made of: block-rank
// v sends send[w] to every block-rank w and gets what each sent it. The last
// local block-rank to arrive runs the process's real Alltoallv for all of
// them.
func (h *blockHub) exchange(ctx context.Context, v int, phase string, send, recv [][]byte) ([][]byte, error) {
	h.mu.Lock()
	if h.failed != nil {
		h.mu.Unlock()
		return nil, h.failed
	}
	h.pending[h.slot[v]] = blockCall{phase: phase, send: send, recv: recv}
	h.arrived++
	done := h.done
	if h.arrived < len(h.pending) {
		h.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			h.fail(ctx.Err())
			return nil, h.failed
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.failed != nil {
			return nil, h.failed
		}
		return h.out[h.slot[v]], h.err
	}
	calls := h.pending
	h.mu.Unlock()
	out, err := h.run(ctx, calls)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed != nil {
		return nil, h.failed
	}
	h.out, h.err = out, err
	h.arrived = 0
	h.pending = make([]blockCall, len(calls))
	h.done = make(chan struct{})
	close(done)
	return out[h.slot[v]], err
}

// run carries one round: the local deliveries, and per other process one
// message holding, for every local source block and every block hosted
// there (both ascending), a uvarint length and the payload.
func (h *blockHub) run(ctx context.Context, calls []blockCall) ([][][]byte, error) {
	me := h.real.Rank()
	mine := h.hosts[me]
	phase := calls[0].phase
	for k, c := range calls {
		if c.phase != phase {
			return nil, fmt.Errorf("blocks %d and %d of rank %d call phases %q and %q together", mine[0], mine[k], me, phase, c.phase)
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
		if d != me {
			h.sendBuf[d] = appendBlockMessage(h.sendBuf[d], sends, there)
		}
	}
	got, err := h.real.Alltoallv(ctx, phase, h.sendBuf, h.recvBuf)
	if err != nil {
		return nil, err
	}
	h.recvBuf = got
	for s, there := range h.hosts {
		if s == me {
			continue
		}
		if err := splitBlockMessage(got[s], there, out); err != nil {
			return nil, fmt.Errorf("blocks of rank %d: message from rank %d: %w", me, s, err)
		}
	}
	return out, nil
}

// appendBlockMessage appends to msg, for every source block's send (in
// order) and every destination block of dsts, a uvarint length and the
// payload: the aggregated message of one process to another.
func appendBlockMessage(msg []byte, sends [][][]byte, dsts []int) []byte {
	for _, send := range sends {
		for _, w := range dsts {
			msg = binary.AppendUvarint(msg, uint64(len(send[w])))
			msg = append(msg, send[w]...)
		}
	}
	return msg
}

// splitBlockMessage reads a message appendBlockMessage wrote on the process
// hosting the source blocks srcs, for this process's len(out) blocks: the
// payload from srcs[i] to local block k goes to out[k][srcs[i]], copied (out
// is indexed by local block, then by block-rank). A truncated or overlong
// message is an error.
func splitBlockMessage(msg []byte, srcs []int, out [][][]byte) error {
	for _, src := range srcs {
		for k := range out {
			n, m := binary.Uvarint(msg)
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

// blockComm is one block-rank's Comm. Its counters count the bytes and
// messages to block-ranks on other processes (what crosses a link); the
// real Comm counts the aggregated messages.
type blockComm struct {
	hub   *blockHub
	rank  int
	stats comm.Stats
	send  [][]byte
}

var _ comm.Comm = (*blockComm)(nil)

func (b *blockComm) Rank() int          { return b.rank }
func (b *blockComm) Size() int          { return len(b.hub.owner) }
func (b *blockComm) Stats() *comm.Stats { return &b.stats }

// record counts what this block-rank sent to and received from blocks on
// other processes.
func (b *blockComm) record(phase string, send, recv [][]byte) {
	me := b.hub.owner[b.rank]
	var sent, got, msgs int64
	for w := range send {
		if b.hub.owner[w] == me {
			continue
		}
		if n := len(send[w]); n > 0 {
			sent += int64(n)
			msgs++
		}
		got += int64(len(recv[w]))
	}
	b.stats.Record(phase, sent, got, msgs)
}

func (b *blockComm) Alltoallv(ctx context.Context, phase string, send [][]byte, recv [][]byte) ([][]byte, error) {
	if len(send) != b.Size() {
		return nil, fmt.Errorf("blocks: Alltoallv: len(send) = %d, want Size() = %d", len(send), b.Size())
	}
	out, err := b.hub.exchange(ctx, b.rank, phase, send, recv)
	if err != nil {
		return nil, err
	}
	b.record(phase, send, out)
	return out, nil
}

func (b *blockComm) Allgatherv(ctx context.Context, phase string, mine []byte, recv [][]byte) ([][]byte, error) {
	if len(b.send) != b.Size() {
		b.send = make([][]byte, b.Size())
	}
	for w := range b.send {
		b.send[w] = mine
	}
	out, err := b.hub.exchange(ctx, b.rank, phase, b.send, recv)
	if err != nil {
		return nil, err
	}
	b.record(phase, b.send, out)
	clear(b.send)
	return out, nil
}

// gather8 sends every block-rank the 8-byte words of vals and returns every
// block-rank's words, in block-rank order.
func (b *blockComm) gather8(ctx context.Context, phase string, vals []uint64) ([][]byte, error) {
	buf := make([]byte, 0, 8*len(vals))
	for _, x := range vals {
		buf = binary.LittleEndian.AppendUint64(buf, x)
	}
	all, err := b.Allgatherv(ctx, phase, buf, nil)
	if err != nil {
		return nil, err
	}
	for w, m := range all {
		if len(m) != len(buf) {
			return nil, fmt.Errorf("blocks: allreduce of %d values, block %d sent %d bytes", len(vals), w, len(m))
		}
	}
	return all, nil
}

// AllreduceInt64 combines every block-rank's values in block-rank order.
func (b *blockComm) AllreduceInt64(ctx context.Context, phase string, vals []int64, op comm.Op) error {
	words := make([]uint64, len(vals))
	for i, x := range vals {
		words[i] = uint64(x)
	}
	all, err := b.gather8(ctx, phase, words)
	if err != nil {
		return err
	}
	for i := range vals {
		acc := int64(binary.LittleEndian.Uint64(all[0][8*i:]))
		for _, m := range all[1:] {
			x := int64(binary.LittleEndian.Uint64(m[8*i:]))
			switch op {
			case comm.Sum:
				acc += x
			case comm.Max:
				acc = max(acc, x)
			case comm.Min:
				acc = min(acc, x)
			default:
				return fmt.Errorf("blocks: unknown reduction %v", op)
			}
		}
		vals[i] = acc
	}
	return nil
}

// AllreduceFloat64 combines every block-rank's values in block-rank order,
// so the result is the same on every block-rank.
func (b *blockComm) AllreduceFloat64(ctx context.Context, phase string, vals []float64, op comm.Op) error {
	words := make([]uint64, len(vals))
	for i, x := range vals {
		words[i] = math.Float64bits(x)
	}
	all, err := b.gather8(ctx, phase, words)
	if err != nil {
		return err
	}
	for i := range vals {
		acc := math.Float64frombits(binary.LittleEndian.Uint64(all[0][8*i:]))
		for _, m := range all[1:] {
			x := math.Float64frombits(binary.LittleEndian.Uint64(m[8*i:]))
			switch op {
			case comm.Sum:
				acc += x
			case comm.Max:
				acc = max(acc, x)
			case comm.Min:
				acc = min(acc, x)
			default:
				return fmt.Errorf("blocks: unknown reduction %v", op)
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
	out, err := b.Alltoallv(ctx, phase, send, nil)
	if err != nil {
		return nil, err
	}
	return out[root], nil
}

func (b *blockComm) Barrier(ctx context.Context, phase string) error {
	_, err := b.Alltoallv(ctx, phase, make([][]byte, b.Size()), nil)
	return err
}

// errIsAbort reports whether err only says that another block or rank
// failed first.
func errIsAbort(err error) bool { return errors.Is(err, comm.ErrAborted) }
