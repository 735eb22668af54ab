package multiplex

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/graphrun/graphrun/comm"
)

// Comm is one rank's Comm. Its counters count the logical
// volume between ranks, as any Comm does (comm/inproc's rules); its
// NetworkStats count only what went to ranks on other processes, the
// bytes that cross a link.
type Comm struct {
	hub   *Hub
	rank  int
	stats comm.Stats
	net   comm.Stats
	seen  []bool // AlltoallvGroup's member check

	full, fullRecv [][]byte // AlltoallvGroup's send and receive lists over the whole job
}

var _ comm.Comm = (*Comm)(nil)

func (b *Comm) Rank() int          { return b.rank }
func (b *Comm) Size() int          { return len(b.hub.owner) }
func (b *Comm) Stats() *comm.Stats { return &b.stats }

// NetworkStats are the counters of the traffic to and from ranks on
// other processes.
func (b *Comm) NetworkStats() *comm.Stats { return &b.net }

// record counts one completed call: to and from every other rank in
// Stats, to and from other processes' in NetworkStats.
func (b *Comm) record(phase string, send, recv [][]byte) {
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
// counts it; group, when not nil, are the ranks of a group call.
func (b *Comm) call(ctx context.Context, op, phase string, send, recv [][]byte, group []int) ([][]byte, error) {
	out, err := b.hub.exchange(ctx, b.rank, phase, request{sig: op + " " + phase, send: send, recv: recv, group: group})
	if err != nil {
		return nil, err
	}
	b.record(phase, send, out)
	return out, nil
}

// gatherShared runs a gather round of signature op: mine to every
// rank. It returns the hub's read-only array of every rank's
// payload, valid until this rank's next collective, and counts the
// call: logically mine to each of the Size()−1 others; on the network, mine
// once to each other process.
func (b *Comm) gatherShared(ctx context.Context, op, phase string, mine []byte) ([][]byte, error) {
	all, err := b.hub.exchange(ctx, b.rank, phase, request{sig: op + " " + phase, gather: true, mine: mine})
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

func (b *Comm) Alltoallv(ctx context.Context, phase string, send [][]byte, recv [][]byte) ([][]byte, error) {
	if len(send) != b.Size() {
		return nil, fmt.Errorf("multiplex: Alltoallv: len(send) = %d, want Size() = %d", len(send), b.Size())
	}
	return b.call(ctx, "alltoallv", phase, send, recv, nil)
}

func (b *Comm) Allgatherv(ctx context.Context, phase string, mine []byte, recv [][]byte) ([][]byte, error) {
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

// gather8 sends every rank the 8-byte words of vals and returns every
// rank's words, in rank order (the hub's read-only array).
func (b *Comm) gather8(ctx context.Context, op, phase string, vals []uint64) ([][]byte, error) {
	buf := make([]byte, 0, 8*len(vals))
	for _, x := range vals {
		buf = binary.LittleEndian.AppendUint64(buf, x)
	}
	return b.gatherShared(ctx, fmt.Sprintf("%s %d", op, len(vals)), phase, buf)
}

// AllreduceInt64 combines every rank's values in rank order.
func (b *Comm) AllreduceInt64(ctx context.Context, phase string, vals []int64, op comm.Op) error {
	return allreduce(ctx, b, "allreduce-int64", phase, vals, op,
		func(x int64) uint64 { return uint64(x) }, func(w uint64) int64 { return int64(w) })
}

// AllreduceFloat64 combines every rank's values in rank order,
// so the result is the same on every rank.
func (b *Comm) AllreduceFloat64(ctx context.Context, phase string, vals []float64, op comm.Op) error {
	return allreduce(ctx, b, "allreduce-float64", phase, vals, op, math.Float64bits, math.Float64frombits)
}

// allreduce gathers every rank's vals as 8-byte words and combines
// them in rank order.
func allreduce[T int64 | float64](ctx context.Context, b *Comm, kind, phase string, vals []T, op comm.Op,
	word func(T) uint64, value func(uint64) T) error {
	if op > comm.Min {
		return fmt.Errorf("multiplex: unknown reduction %v", op)
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
			return fmt.Errorf("multiplex: allreduce of %d values, rank %d sent %d bytes", len(vals), w, len(m))
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

func (b *Comm) Bcast(ctx context.Context, phase string, root int, data []byte) ([]byte, error) {
	if root < 0 || root >= b.Size() {
		return nil, fmt.Errorf("multiplex: Bcast from rank %d of %d", root, b.Size())
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

func (b *Comm) Barrier(ctx context.Context, phase string) error {
	_, err := b.call(ctx, "barrier", phase, make([][]byte, b.Size()), nil, nil)
	return err
}
