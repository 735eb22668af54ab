//go:build mpi

package mpi

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/bufs"
)

// Alltoallv sends send[d] to rank d and returns what every rank sent to this
// one. With one recv buffer per rank, the message from rank s is received
// straight into recv[s]'s array when it has the capacity.
func (c *Comm) Alltoallv(ctx context.Context, phase string, send [][]byte, recv [][]byte) ([][]byte, error) {
	ci := newCall(comm.CollectiveAlltoallv, phase, 0)
	if len(send) != c.size {
		return nil, c.selfFail(ci, fmt.Errorf("len(send) = %d, want Size() = %d", len(send), c.size))
	}
	out := bufs.RecvSlices(recv, c.size)
	err := c.exchange(ctx, ci, func(d int) []byte { return send[d] }, func(s, n int) ([]byte, error) {
		out[s] = bufs.Resize(out[s], n)
		return out[s], nil
	})
	if err != nil {
		return nil, err
	}
	var sent, received, messages int64
	for s := range out {
		if s == c.rank {
			out[s] = bufs.CopyInto(out[s], send[s])
			continue
		}
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
	err := c.exchange(ctx, ci, func(int) []byte { return mine }, func(s, n int) ([]byte, error) {
		out[s] = bufs.Resize(out[s], n)
		return out[s], nil
	})
	if err != nil {
		return nil, err
	}
	var received int64
	for s := range out {
		if s == c.rank {
			out[s] = bufs.CopyInto(out[s], mine)
			continue
		}
		received += int64(len(out[s]))
	}
	c.stats.Record(phase, int64(len(mine))*int64(c.size-1), received, comm.PeerMessages(len(mine), c.size))
	return out, nil
}

// AllreduceInt64 reduces vals element-wise across ranks, in place. Every
// rank sends its values to every other and combines all contributions in
// rank order, as comm/inproc and comm/tcp do. Sums wrap around on overflow.
func (c *Comm) AllreduceInt64(ctx context.Context, phase string, vals []int64, op comm.Op) error {
	ci := newCall(comm.CollectiveAllreduceInt64, phase, allreduceArg(len(vals), op))
	if err := op.Check(); err != nil {
		return c.selfFail(ci, err)
	}
	c.sendBuf = c.sendBuf[:0]
	for _, v := range vals {
		c.sendBuf = binary.LittleEndian.AppendUint64(c.sendBuf, uint64(v))
	}
	if err := c.allreduce(ctx, ci, len(vals)); err != nil {
		return err
	}
	result := bufs.Resize(c.ints, len(vals))
	c.ints = result
	for s := range c.size {
		switch {
		case s == c.rank && s == 0:
			copy(result, vals)
		case s == c.rank:
			comm.ReduceInt64(result, vals, op)
		case s == 0:
			for i := range result {
				result[i] = int64(binary.LittleEndian.Uint64(c.scratch[s][8*i:]))
			}
		default:
			reduceInt64Bytes(result, c.scratch[s], op)
		}
	}
	copy(vals, result)
	c.recordAllreduce(phase, len(vals))
	return nil
}

// AllreduceFloat64 reduces vals element-wise across ranks, in place,
// combining the ranks in rank order, so the result is bit-identical on every
// rank and equal to comm/inproc's. Max and Min follow math.Max and math.Min.
// (MPI_Allreduce would combine them in an order of its own choosing.)
func (c *Comm) AllreduceFloat64(ctx context.Context, phase string, vals []float64, op comm.Op) error {
	ci := newCall(comm.CollectiveAllreduceFloat64, phase, allreduceArg(len(vals), op))
	if err := op.Check(); err != nil {
		return c.selfFail(ci, err)
	}
	c.sendBuf = c.sendBuf[:0]
	for _, v := range vals {
		c.sendBuf = binary.LittleEndian.AppendUint64(c.sendBuf, math.Float64bits(v))
	}
	if err := c.allreduce(ctx, ci, len(vals)); err != nil {
		return err
	}
	result := bufs.Resize(c.floats, len(vals))
	c.floats = result
	for s := range c.size {
		switch {
		case s == c.rank && s == 0:
			copy(result, vals)
		case s == c.rank:
			comm.ReduceFloat64(result, vals, op)
		case s == 0:
			for i := range result {
				result[i] = math.Float64frombits(binary.LittleEndian.Uint64(c.scratch[s][8*i:]))
			}
		default:
			reduceFloat64Bytes(result, c.scratch[s], op)
		}
	}
	copy(vals, result)
	c.recordAllreduce(phase, len(vals))
	return nil
}

// allreduce sends c.sendBuf to every rank and receives every other rank's
// encoded contribution of n values into c.scratch.
func (c *Comm) allreduce(ctx context.Context, ci *call, n int) error {
	return c.exchange(ctx, ci, func(int) []byte { return c.sendBuf }, func(s, got int) ([]byte, error) {
		if got != 8*n {
			return nil, fmt.Errorf("protocol error: %d bytes for %d values in %s", got, n, ci)
		}
		c.scratch[s] = bufs.Resize(c.scratch[s], got)
		return c.scratch[s], nil
	})
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
	out := []byte{}
	err := c.exchange(ctx, ci, func(int) []byte {
		if isRoot {
			return data
		}
		return nil
	}, func(s, n int) ([]byte, error) {
		if s != root {
			if n != 0 {
				return nil, fmt.Errorf("protocol error: %d bytes from a rank that is not the root of %s", n, ci)
			}
			return nil, nil
		}
		out = make([]byte, n)
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	if isRoot {
		c.stats.Record(phase, int64(len(data))*int64(c.size-1), 0, comm.PeerMessages(len(data), c.size))
		return data, nil
	}
	c.stats.Record(phase, 0, int64(len(out)), 0)
	return out, nil
}

// Barrier returns once every rank has entered it: every rank sends every
// other an empty message.
func (c *Comm) Barrier(ctx context.Context, phase string) error {
	ci := newCall(comm.CollectiveBarrier, phase, 0)
	err := c.exchange(ctx, ci, func(int) []byte { return nil }, func(_, n int) ([]byte, error) {
		if n != 0 {
			return nil, fmt.Errorf("protocol error: %d bytes in %s", n, ci)
		}
		return nil, nil
	})
	if err != nil {
		return err
	}
	c.stats.Record(phase, 0, 0, 0)
	return nil
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

// reduceFloat64Bytes is comm.ReduceFloat64 with x encoded in b.
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
