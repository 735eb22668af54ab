package tcp

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/bufs"
)

// Alltoallv sends send[d] to rank d and returns what every rank sent to this
// one. recv is reused as in comm/inproc: with one buffer per rank, the
// message from rank s lands in recv[s]'s array when it has the capacity
// (read there straight off the connection when it arrives during the call).
func (c *Comm) Alltoallv(ctx context.Context, phase string, send [][]byte, recv [][]byte) ([][]byte, error) {
	ci := newCall(comm.CollectiveAlltoallv, phase, 0)
	if len(send) != c.size {
		return nil, c.selfFail(ci, fmt.Errorf("len(send) = %d, want Size() = %d", len(send), c.size))
	}
	out := bufs.RecvSlices(recv, c.size)
	msgs, err := c.exchange(ctx, ci, func(d int) []byte { return send[d] }, out)
	if err != nil {
		return nil, err
	}
	var sent, received, messages int64
	for s := range out {
		if s == c.rank {
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
	c.stats.Record(phase, sent, received, messages)
	return out, nil
}

// Allgatherv sends mine to every rank and returns every rank's contribution,
// out[Rank()] being a copy of mine.
func (c *Comm) Allgatherv(ctx context.Context, phase string, mine []byte, recv [][]byte) ([][]byte, error) {
	ci := newCall(comm.CollectiveAllgatherv, phase, 0)
	out := bufs.RecvSlices(recv, c.size)
	msgs, err := c.exchange(ctx, ci, func(int) []byte { return mine }, out)
	if err != nil {
		return nil, err
	}
	var received int64
	for s := range out {
		if s == c.rank {
			out[s] = bufs.CopyInto(out[s], mine)
			continue
		}
		out[s] = adopt(out[s], msgs[s])
		received += int64(len(out[s]))
	}
	c.stats.Record(phase, int64(len(mine))*int64(c.size-1), received, comm.PeerMessages(len(mine), c.size))
	return out, nil
}

// AllreduceInt64 reduces vals element-wise across ranks, in place. Every
// rank sends its values to every other and combines all contributions in
// rank order. Sums wrap around on overflow.
func (c *Comm) AllreduceInt64(ctx context.Context, phase string, vals []int64, op comm.Op) error {
	ci := newCall(comm.CollectiveAllreduceInt64, phase, allreduceArg(len(vals), op))
	if err := op.Check(); err != nil {
		return c.selfFail(ci, err)
	}
	c.sendBuf = c.sendBuf[:0]
	for _, v := range vals {
		c.sendBuf = binary.LittleEndian.AppendUint64(c.sendBuf, uint64(v))
	}
	contributions, err := c.allreduce(ctx, ci, len(vals))
	if err != nil {
		return err
	}
	result := bufs.Resize(c.ints, len(vals))
	c.ints = result
	for s, b := range contributions {
		switch {
		case s == c.rank && s == 0:
			copy(result, vals)
		case s == c.rank:
			comm.ReduceInt64(result, vals, op)
		case s == 0:
			for i := range result {
				result[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
			}
		default:
			reduceInt64Bytes(result, b, op)
		}
	}
	copy(vals, result)
	c.recordAllreduce(phase, len(vals))
	return nil
}

// AllreduceFloat64 reduces vals element-wise across ranks, in place,
// combining the ranks in rank order, so the result is bit-identical on every
// rank and equal to comm/inproc's. Max and Min follow math.Max and math.Min.
func (c *Comm) AllreduceFloat64(ctx context.Context, phase string, vals []float64, op comm.Op) error {
	ci := newCall(comm.CollectiveAllreduceFloat64, phase, allreduceArg(len(vals), op))
	if err := op.Check(); err != nil {
		return c.selfFail(ci, err)
	}
	c.sendBuf = c.sendBuf[:0]
	for _, v := range vals {
		c.sendBuf = binary.LittleEndian.AppendUint64(c.sendBuf, math.Float64bits(v))
	}
	contributions, err := c.allreduce(ctx, ci, len(vals))
	if err != nil {
		return err
	}
	result := bufs.Resize(c.floats, len(vals))
	c.floats = result
	for s, b := range contributions {
		switch {
		case s == c.rank && s == 0:
			copy(result, vals)
		case s == c.rank:
			comm.ReduceFloat64(result, vals, op)
		case s == 0:
			for i := range result {
				result[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
			}
		default:
			reduceFloat64Bytes(result, b, op)
		}
	}
	copy(vals, result)
	c.recordAllreduce(phase, len(vals))
	return nil
}

// allreduce sends c.sendBuf to every rank and returns every other rank's
// encoded contribution of n values, by rank.
func (c *Comm) allreduce(ctx context.Context, ci *callInfo, n int) ([][]byte, error) {
	msgs, err := c.exchange(ctx, ci, func(int) []byte { return c.sendBuf }, c.scratch)
	if err != nil {
		return nil, err
	}
	for s, b := range msgs {
		if s == c.rank {
			continue
		}
		if len(b) != 8*n {
			c.fail(&PeerError{Rank: s, Err: fmt.Errorf("protocol error: %d bytes for %d values in %s", len(b), n, ci)})
			return nil, c.abortedError(ci)
		}
		if cap(b) > cap(c.scratch[s]) {
			c.scratch[s] = b // keep the larger buffer for the next call
		}
	}
	return msgs, nil
}

func (c *Comm) recordAllreduce(phase string, n int) {
	volume := 8 * int64(n) * int64(c.size-1)
	c.stats.Record(phase, volume, volume, comm.PeerMessages(n, c.size))
}

// Bcast returns root's data: data itself on the root, a new buffer
// elsewhere. The root sends data to every rank; the other ranks send each
// other empty messages, which check that every rank makes the same call.
func (c *Comm) Bcast(ctx context.Context, phase string, root int, data []byte) ([]byte, error) {
	if root < 0 || root >= c.size {
		return nil, c.selfFail(newCall(comm.CollectiveBcast, phase, 0), fmt.Errorf("root %d out of range [0, %d)", root, c.size))
	}
	ci := newCall(comm.CollectiveBcast, phase, uint64(root))
	isRoot := c.rank == root
	msgs, err := c.exchange(ctx, ci, func(int) []byte {
		if isRoot {
			return data
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	if isRoot {
		c.stats.Record(phase, int64(len(data))*int64(c.size-1), 0, comm.PeerMessages(len(data), c.size))
		return data, nil
	}
	out := msgs[root]
	if out == nil {
		out = []byte{}
	}
	c.stats.Record(phase, 0, int64(len(out)), 0)
	return out, nil
}

// Barrier returns once every rank has entered it: every rank sends every
// other an empty message.
func (c *Comm) Barrier(ctx context.Context, phase string) error {
	if _, err := c.exchange(ctx, newCall(comm.CollectiveBarrier, phase, 0), func(int) []byte { return nil }, nil); err != nil {
		return err
	}
	c.stats.Record(phase, 0, 0, 0)
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

func reduceInt64Bytes(acc []int64, b []byte, op comm.Op) {
	b = b[:8*len(acc)]
	switch op {
	case comm.Sum:
		for i := range acc {
			acc[i] += int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case comm.Max:
		for i := range acc {
			acc[i] = max(acc[i], int64(binary.LittleEndian.Uint64(b[8*i:])))
		}
	case comm.Min:
		for i := range acc {
			acc[i] = min(acc[i], int64(binary.LittleEndian.Uint64(b[8*i:])))
		}
	}
}

func reduceFloat64Bytes(acc []float64, b []byte, op comm.Op) {
	b = b[:8*len(acc)]
	switch op {
	case comm.Sum:
		for i := range acc {
			acc[i] += math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case comm.Max:
		for i := range acc {
			acc[i] = math.Max(acc[i], math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
	case comm.Min:
		for i := range acc {
			acc[i] = math.Min(acc[i], math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
	}
}
