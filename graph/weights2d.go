package graph

// Edge weights for kernel 3 on the 2D partition (Graph500 spec, "Kernel 3
// – Single-Source Shortest Paths"; the grid of partition.Grid): the 2D
// counterpart of BuildWeights, a pass after the 2D kernel 1 that gives
// every entry of a block's by-column copy (RowIDs) the weight of its tuple,
// so that the blocks and the BFS over them stay as kernel 1 built them and
// a BFS-only run holds no weights. Duplicates and self-loops are treated as
// in 1D (weights.go): an entry gets the smallest weight of the tuples
// joining its two vertices.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sort"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/parallel"
)

// weightRecord2D is the wire size of a weight routed to a 2D block: the
// receiver's local column (uint32), local row (uint32) and the weight's
// bits (uint32), little-endian.
const weightRecord2D = 12

// colBlockBits groups the received weights by block of 2^colBlockBits
// columns, which the threads apply apart (no entry is shared).
const colBlockBits = 12

// BuildWeights2D returns, for the block b that the 2D kernel 1 built on
// this rank from the tuples of src (every rank's share), the weight of each
// entry of its by-column copy: w[i] belongs to RowIDs[i], and is the
// smallest weight of the tuples joining its two vertices. src is read once,
// in rounds of a bounded chunk; each round routes every half-edge u→v with
// its weight to the block that stores it (the rank at u's processor row and
// v's processor column, as kernel 1 routes it) by one Alltoallv
// (WeightPhase, 12 bytes per half-edge), whose threads find each row in its
// column's ascending list. Every rank of c calls it, as kernel 1. A weight
// that is negative, not a number or infinite is an error naming the tuple,
// and so is a tuple that the block does not hold. Memory: 4 bytes per entry
// plus the round buffers.
func BuildWeights2D(ctx context.Context, c comm.Comm, b *Block2D, src WeightSource, threads int) ([]float32, error) {
	grid := b.Grid
	if err := checkGrid(grid, c.Size()); err != nil {
		return nil, err
	}
	if b.Rank != c.Rank() {
		return nil, fmt.Errorf("graph: weights: the block of rank %d on rank %d", b.Rank, c.Rank())
	}
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	r := weightRouter2D{c: c, b: b, bits: make([]uint32, len(b.RowIDs)), threads: threads, send: make([][]byte, c.Size())}
	return routeWeights(ctx, c, src, r.bits, "2D entry", r.round)
}

// weightRouter2D is one rank's BuildWeights2D in progress.
type weightRouter2D struct {
	c       comm.Comm
	b       *Block2D
	bits    []uint32
	threads int
	send    [][]byte
	recv    [][]byte
}

// round routes the share's tuples from lo on (as many as edges holds)
// and applies what it receives.
func (r *weightRouter2D) round(ctx context.Context, src WeightSource, lo int64, edges []Edge, weights []float32) error {
	if err := readWeightedRound(ctx, src, lo, edges, weights, r.b.Grid.Part.N); err != nil {
		return err
	}
	for d := range r.send {
		r.send[d] = r.send[d][:0]
	}
	for i, e := range edges {
		if e.U != e.V {
			r.appendRecord(e.U, e.V, weights[i])
			r.appendRecord(e.V, e.U, weights[i])
		}
	}
	recv, err := r.c.Alltoallv(ctx, WeightPhase, r.send, r.recv)
	if err != nil {
		return fmt.Errorf("graph: weights exchange: %w", err)
	}
	r.recv = recv
	for s, msg := range recv {
		if len(msg)%weightRecord2D != 0 {
			return fmt.Errorf("graph: weights: message from rank %d has %d bytes, not a multiple of %d", s, len(msg), weightRecord2D)
		}
	}
	// Thread t applies the records of the column blocks ≡ t (mod threads):
	// no two threads write one entry.
	errs := make([]error, r.threads)
	parallel.For(r.threads, func(t int) {
		for s, msg := range recv {
			if err := r.apply(msg, t); err != nil {
				errs[t] = fmt.Errorf("graph: weights from rank %d: %w", s, err)
				return
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// appendRecord routes half-edge u→v of weight w to the block holding row u
// and column v.
func (r *weightRouter2D) appendRecord(u, v int64, w float32) {
	g := r.b.Grid
	d := g.Rank(g.RowOf(u), g.ColOf(v))
	m := binary.LittleEndian.AppendUint32(r.send[d], g.ColLocal(v))
	m = binary.LittleEndian.AppendUint32(m, g.RowLocal(u))
	r.send[d] = binary.LittleEndian.AppendUint32(m, math.Float32bits(w))
}

// apply lowers, as thread t, the weights of the entries msg names in its
// column blocks.
func (r *weightRouter2D) apply(msg []byte, t int) error {
	b := r.b
	span, rows := uint64(b.Grid.ColSpan()), uint32(b.NumRows)
	for i := 0; i < len(msg); i += weightRecord2D {
		col := binary.LittleEndian.Uint32(msg[i:])
		if uint64(col) >= span {
			return fmt.Errorf("record names column %d of %d", col, span)
		}
		if int(col>>colBlockBits)%r.threads != t {
			continue
		}
		row := binary.LittleEndian.Uint32(msg[i+4:])
		w := binary.LittleEndian.Uint32(msg[i+8:])
		k := b.ColIndex(col)
		if row >= rows || k < 0 {
			return fmt.Errorf("edge (%d, %d) is not in the block", b.RowFirst+int64(row), b.Grid.ColGlobal(b.Col, col))
		}
		lo, hi := b.ColOffsets[k], b.ColOffsets[k+1]
		ids := b.RowIDs[lo:hi]
		j := sort.Search(len(ids), func(x int) bool { return ids[x] >= row })
		if j == len(ids) || ids[j] != row {
			return fmt.Errorf("edge (%d, %d) is not in the block", b.RowFirst+int64(row), b.Grid.ColGlobal(b.Col, col))
		}
		r.bits[lo+int64(j)] = min(r.bits[lo+int64(j)], w)
	}
	return nil
}
