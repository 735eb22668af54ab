package wire

// The collectives of comm.Comm, once for every multi-process backend, over
// the backend's one exchange primitive (Backend.Exchange). Counters follow
// comm/inproc's conventions exactly: logical volumes to other ranks only.

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/bufs"
)

// Backend is what a transport gives the collectives.
type Backend struct {
	// Rank and Size are the rank's place in the job.
	Rank, Size int
	// Stats are the rank's counters, which the collectives record into.
	Stats *comm.Stats
	// Exchange runs one call: it sends payload.To(d) to every other rank d,
	// all at once, and returns msgs, msgs[s] being the message of rank s
	// (msgs[Rank] is not used). msgs[s] is received into dests[s]'s array
	// when dests is not nil and that has the capacity; otherwise it is a
	// new buffer, or an empty one. Every message was checked against
	// CheckLength, or at least Limit. On error the call has failed and the
	// error is its result.
	Exchange func(ctx context.Context, ci *Call, payload Payload, dests [][]byte) ([][]byte, error)
	// SelfFail fails the job because this rank's call ci cannot go on (bad
	// arguments) and returns the call's error.
	SelfFail func(ci *Call, err error) error
	// PeerFail fails the job because rank s broke the protocol in call ci
	// and returns the call's error.
	PeerFail func(ci *Call, s int, err error) error
}

// Payload is what this rank sends in a call: Each[d] to rank d when Each is
// not nil, else All to every rank. (A value rather than a function, so
// that a call costs no allocation.)
type Payload struct {
	Each [][]byte
	All  []byte
}

// To is the message to rank d.
func (p Payload) To(d int) []byte {
	if p.Each != nil {
		return p.Each[d]
	}
	return p.All
}

// Collectives implements comm.Comm's collectives over a Backend; a backend's
// Comm embeds it. It is used from one goroutine at a time, like the Comm.
type Collectives struct {
	b Backend

	// Per-call scratch.
	sendBuf []byte
	ints    []int64
	floats  []float64
	scratch [][]byte
}

// NewCollectives returns the collectives over b.
func NewCollectives(b Backend) Collectives {
	return Collectives{b: b, scratch: make([][]byte, b.Size)}
}

// Alltoallv sends send[d] to rank d and returns what every rank sent to this
// one. recv is reused as in comm/inproc: with one buffer per rank, the
// message from rank s lands in recv[s]'s array when it has the capacity
// (received there straight from the wire when the backend can).
func (c *Collectives) Alltoallv(ctx context.Context, phase string, send [][]byte, recv [][]byte) ([][]byte, error) {
	ci := NewCall(comm.CollectiveAlltoallv, phase, 0)
	if len(send) != c.b.Size {
		return nil, c.b.SelfFail(ci, fmt.Errorf("len(send) = %d, want Size() = %d", len(send), c.b.Size))
	}
	out := bufs.RecvSlices(recv, c.b.Size)
	msgs, err := c.b.Exchange(ctx, ci, Payload{Each: send}, out)
	if err != nil {
		return nil, err
	}
	var sent, received, messages int64
	for s := range out {
		if s == c.b.Rank {
			out[s] = bufs.CopyInto(out[s], send[s])
			continue
		}
		out[s] = adopt(out[s], msgs[s])
		sent += int64(len(send[s]))
		received += int64(len(out[s]))
		if len(send[s]) > 0 {
			messages++
		}
	}
	c.b.Stats.Record(phase, sent, received, messages)
	return out, nil
}

// Allgatherv sends mine to every rank and returns every rank's contribution,
// out[Rank()] being a copy of mine.
func (c *Collectives) Allgatherv(ctx context.Context, phase string, mine []byte, recv [][]byte) ([][]byte, error) {
	ci := NewCall(comm.CollectiveAllgatherv, phase, 0)
	out := bufs.RecvSlices(recv, c.b.Size)
	msgs, err := c.b.Exchange(ctx, ci, Payload{All: mine}, out)
	if err != nil {
		return nil, err
	}
	var received int64
	for s := range out {
		if s == c.b.Rank {
			out[s] = bufs.CopyInto(out[s], mine)
			continue
		}
		out[s] = adopt(out[s], msgs[s])
		received += int64(len(out[s]))
	}
	c.b.Stats.Record(phase, int64(len(mine))*int64(c.b.Size-1), received, comm.PeerMessages(len(mine), c.b.Size))
	return out, nil
}

// AllreduceInt64 reduces vals element-wise across ranks, in place. Every
// rank sends its values to every other and combines all contributions in
// rank order, as comm/inproc does. Sums wrap around on overflow.
func (c *Collectives) AllreduceInt64(ctx context.Context, phase string, vals []int64, op comm.Op) error {
	ci := NewCall(comm.CollectiveAllreduceInt64, phase, AllreduceArg(len(vals), op))
	return allreduceValues(ctx, c, ci, phase, vals, op, &c.ints, comm.Int64Values())
}

// AllreduceFloat64 reduces vals element-wise across ranks, in place,
// combining the ranks in rank order, so the result is bit-identical on every
// rank and equal to comm/inproc's (MPI_Allreduce would combine them in an
// order of its own choosing). Max and Min follow math.Max and math.Min.
func (c *Collectives) AllreduceFloat64(ctx context.Context, phase string, vals []float64, op comm.Op) error {
	ci := NewCall(comm.CollectiveAllreduceFloat64, phase, AllreduceArg(len(vals), op))
	return allreduceValues(ctx, c, ci, phase, vals, op, &c.floats, comm.Float64Values())
}

// allreduceValues is the allreduce of call ci: every rank's vals reach every
// other, and result (a buffer kept between calls) combines them in rank
// order before they are copied back into vals.
func allreduceValues[T int64 | float64](ctx context.Context, c *Collectives, ci *Call, phase string, vals []T, op comm.Op, result *[]T, vc comm.ValueCodec[T]) error {
	if err := op.Check(); err != nil {
		return c.b.SelfFail(ci, err)
	}
	c.sendBuf = vc.Encode(c.sendBuf[:0], vals)
	contributions, err := c.allreduce(ctx, ci)
	if err != nil {
		return err
	}
	acc := bufs.Resize(*result, len(vals))
	*result = acc
	for s, b := range contributions {
		switch {
		case s == c.b.Rank && s == 0:
			copy(acc, vals)
		case s == c.b.Rank:
			vc.Reduce(acc, vals, op)
		case s == 0:
			vc.Decode(acc, b)
		default:
			vc.ReduceBytes(acc, b, op)
		}
	}
	copy(vals, acc)
	c.recordAllreduce(phase, len(vals))
	return nil
}

// allreduce sends c.sendBuf to every rank and returns every other rank's
// encoded contribution of ci's values, by rank.
func (c *Collectives) allreduce(ctx context.Context, ci *Call) ([][]byte, error) {
	msgs, err := c.b.Exchange(ctx, ci, Payload{All: c.sendBuf}, c.scratch)
	if err != nil {
		return nil, err
	}
	for s, b := range msgs {
		if s == c.b.Rank {
			continue
		}
		if err := CheckLength(ci, s, len(b)); err != nil {
			return nil, c.b.PeerFail(ci, s, err)
		}
		if cap(b) > cap(c.scratch[s]) {
			c.scratch[s] = b // keep the larger buffer for the next call
		}
	}
	return msgs, nil
}

func (c *Collectives) recordAllreduce(phase string, n int) {
	volume := 8 * int64(n) * int64(c.b.Size-1)
	c.b.Stats.Record(phase, volume, volume, comm.PeerMessages(n, c.b.Size))
}

// Bcast returns root's data: data itself on the root, a new buffer
// elsewhere. The root sends data to every rank; the other ranks send each
// other empty messages, which check that every rank makes the same call.
func (c *Collectives) Bcast(ctx context.Context, phase string, root int, data []byte) ([]byte, error) {
	if root < 0 || root >= c.b.Size {
		return nil, c.b.SelfFail(NewCall(comm.CollectiveBcast, phase, 0), fmt.Errorf("root %d out of range [0, %d)", root, c.b.Size))
	}
	ci := NewCall(comm.CollectiveBcast, phase, uint64(root))
	isRoot := c.b.Rank == root
	var payload Payload
	if isRoot {
		payload.All = data
	}
	msgs, err := c.b.Exchange(ctx, ci, payload, nil)
	if err != nil {
		return nil, err
	}
	if isRoot {
		c.b.Stats.Record(phase, int64(len(data))*int64(c.b.Size-1), 0, comm.PeerMessages(len(data), c.b.Size))
		return data, nil
	}
	out := msgs[root]
	if out == nil {
		out = []byte{}
	}
	c.b.Stats.Record(phase, 0, int64(len(out)), 0)
	return out, nil
}

// Barrier returns once every rank has entered it: every rank sends every
// other an empty message.
func (c *Collectives) Barrier(ctx context.Context, phase string) error {
	if _, err := c.b.Exchange(ctx, NewCall(comm.CollectiveBarrier, phase, 0), Payload{}, nil); err != nil {
		return err
	}
	c.b.Stats.Record(phase, 0, 0, 0)
	return nil
}

// adopt returns the received message m in dst's array when dst has the
// capacity (m may be there already), else m itself, which the caller owns.
func adopt(dst, m []byte) []byte {
	if cap(dst) < len(m) {
		return m
	}
	if len(m) > 0 && &dst[:1][0] == &m[0] {
		return m
	}
	dst = dst[:len(m)]
	copy(dst, m)
	return dst
}
