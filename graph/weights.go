package graph

// Edge weights for kernel 3 (Graph500 spec, "Kernel 3 – Single-Source
// Shortest Paths"): a pass after kernel 1 that gives every adjacency entry
// of a 1D CSR the weight of its tuple, so that the CSR's rows, their order
// and BFS's hot loops stay as kernel 1 built them and a BFS-only run holds
// no weights.
//
// Duplicates: the CSR keeps one entry per distinct neighbour, so the entry
// of a pair joined by several tuples gets the smallest of their weights.
// That is the only weight a shortest path can use, and every tuple still
// satisfies the specification's edge check |d(u) − d(v)| ≤ w with it.
// Both directions of a tuple carry its weight; self-loops are dropped (they
// are on no shortest path).

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// WeightPhase is the phase of the exchanges that route the weights.
const WeightPhase = "kernel1.weights"

// WeightSource is a TupleSource whose tuples carry weights.
type WeightSource interface {
	TupleSource
	// ReadWeights writes the weights of tuples [first, first+len(out)) of
	// the share to out, the same every time.
	ReadWeights(ctx context.Context, first int64, out []float32) error
}

// WeightedEdges is a WeightSource over tuples and their weights in memory
// (Weights[i] is the weight of Edges[i]).
type WeightedEdges struct {
	Edges   EdgeSlice
	Weights []float32
}

// Len returns the number of tuples.
func (s WeightedEdges) Len() int64 { return int64(len(s.Edges)) }

// Read copies tuples [first, first+len(out)).
func (s WeightedEdges) Read(ctx context.Context, first int64, out []Edge) error {
	return s.Edges.Read(ctx, first, out)
}

// ReadWeights copies the weights of tuples [first, first+len(out)).
func (s WeightedEdges) ReadWeights(ctx context.Context, first int64, out []float32) error {
	if len(s.Weights) != len(s.Edges) {
		return fmt.Errorf("graph: %d weights for %d tuples", len(s.Weights), len(s.Edges))
	}
	if first < 0 || first+int64(len(out)) > int64(len(s.Weights)) {
		return fmt.Errorf("graph: read of weights [%d, %d) from a share of %d", first, first+int64(len(out)), len(s.Weights))
	}
	copy(out, s.Weights[first:])
	return ctx.Err()
}

// weightRecord is the wire size of a routed weight: the receiver's local
// row (uint32), the weight's bits (uint32) and the neighbour's global id
// (uint64), little-endian.
const weightRecord = 16

// BuildWeights returns, for the CSR g that kernel 1 built on this rank from
// the tuples of src (every rank's share), the weight of each adjacency
// entry: w[i] belongs to the entry g.Offsets/Cols index i, and is the
// smallest weight of the tuples joining its two vertices. src is read once,
// in rounds of a bounded chunk; each round routes every half-edge with its
// weight to its row's owner by one Alltoallv (WeightPhase, 16 bytes per
// half-edge), who groups what it receives by block of 4096 rows (a
// counting sort, so that a block's rows stay in cache) and finds each
// neighbour in its sorted row, a thread per block. Every rank of c
// calls it with the same part, as kernel 1. A weight that is negative, not
// a number or infinite is an error naming the tuple, and so is a tuple
// that the CSR does not hold. Memory: 4 bytes per adjacency entry, plus the
// round buffers (about 100 bytes per chunk tuple: the tuples and weights,
// the records sent, received and grouped).
func BuildWeights(ctx context.Context, c comm.Comm, part partition.Block1D, g *CSR, src WeightSource, threads int) ([]float32, error) {
	if err := checkPartition(part, c.Size()); err != nil {
		return nil, err
	}
	rank := c.Rank()
	if g.NumLocal != part.Count(rank) || g.FirstGlobal != part.First(rank) || g.NumGlobal != part.N {
		return nil, fmt.Errorf("graph: weights: CSR of rank %d does not match the partition", rank)
	}
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	r := weightRouter{c: c, part: part, g: g, threads: threads, send: make([][]byte, c.Size())}
	r.bits = make([]uint32, g.NumEdges())
	return routeWeights(ctx, c, src, r.bits, "adjacency entry", r.round)
}

// routeWeights is the rounds of BuildWeights and BuildWeights2D: it sets
// every entry of bits to +Inf, reads src's share in rounds of a bounded
// chunk, which round routes and applies to bits (the smallest weight per
// entry), and returns bits as the weights, or an error naming the first
// entry (an entry of what) that got none.
func routeWeights(ctx context.Context, c comm.Comm, src WeightSource, bits []uint32, what string,
	round func(ctx context.Context, src WeightSource, lo int64, edges []Edge, weights []float32) error) ([]float32, error) {
	share := src.Len()
	largest := []int64{share}
	if err := c.AllreduceInt64(ctx, WeightPhase, largest, comm.Max); err != nil {
		return nil, fmt.Errorf("graph: weights: %w", err)
	}
	inf := math.Float32bits(float32(math.Inf(1)))
	for i := range bits {
		bits[i] = inf
	}
	if largest[0] > 0 {
		chunk := chunkTuples(largest[0])
		rounds := int((largest[0] + chunk - 1) / chunk)
		per := (share + int64(rounds) - 1) / int64(rounds)
		edges, weights := make([]Edge, per), make([]float32, per)
		for k := range rounds {
			lo, hi := share*int64(k)/int64(rounds), share*int64(k+1)/int64(rounds)
			if err := round(ctx, src, lo, edges[:hi-lo], weights[:hi-lo]); err != nil {
				return nil, err
			}
		}
	}
	for i, b := range bits {
		if b == inf {
			return nil, fmt.Errorf("graph: weights: %s %d of rank %d got no weight: the tuples differ from kernel 1's", what, i, c.Rank())
		}
	}
	if len(bits) == 0 {
		return []float32{}, nil
	}
	// Non-negative floats order as their bit patterns: the minimum was
	// taken on the bits, which are the weights.
	return unsafe.Slice((*float32)(unsafe.Pointer(&bits[0])), len(bits)), nil
}

// weightRouter is one rank's BuildWeights in progress, with buffers reused
// by every round.
type weightRouter struct {
	c       comm.Comm
	part    partition.Block1D
	g       *CSR
	bits    []uint32 // per adjacency entry, the smallest weight so far
	threads int
	send    [][]byte
	recv    [][]byte
	grouped []byte // the received records by block of rows
	starts  []int  // block b's records: grouped records starts[b] … starts[b+1]−1
	cursor  []int  // per block, the next free record while grouping
}

// round routes the share's tuples from lo on (as many as edges holds)
// and applies what it receives.
func (r *weightRouter) round(ctx context.Context, src WeightSource, lo int64, edges []Edge, weights []float32) error {
	if err := readWeightedRound(ctx, src, lo, edges, weights, r.part.N); err != nil {
		return err
	}
	for d := range r.send {
		r.send[d] = r.send[d][:0]
	}
	for i, e := range edges {
		if e.U != e.V { // self-loops are on no shortest path
			r.appendRecord(e.U, e.V, weights[i])
			r.appendRecord(e.V, e.U, weights[i])
		}
	}
	recv, err := r.c.Alltoallv(ctx, WeightPhase, r.send, r.recv)
	if err != nil {
		return fmt.Errorf("graph: weights exchange: %w", err)
	}
	r.recv = recv
	grouped, err := r.group(recv)
	if err != nil {
		return err
	}
	// Threads take whole blocks of rows, so no entry is shared.
	nb := len(r.starts) - 1
	errs := make([]error, r.threads)
	var next atomic.Int64
	parallel.For(r.threads, func(t int) {
		for b := int(next.Add(1) - 1); b < nb; b = int(next.Add(1) - 1) {
			if err := r.apply(grouped[r.starts[b]*weightRecord : r.starts[b+1]*weightRecord]); err != nil {
				errs[t] = fmt.Errorf("graph: weights: %w", err)
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

// readWeightedRound reads tuples [lo, lo+len(edges)) of src and their
// weights into edges and weights, and checks them against n vertices: an id
// outside [0, n) or a weight that is negative, not a number or infinite is
// an error naming the tuple.
func readWeightedRound(ctx context.Context, src WeightSource, lo int64, edges []Edge, weights []float32, n int64) error {
	hi := lo + int64(len(edges))
	if err := src.Read(ctx, lo, edges); err != nil {
		return fmt.Errorf("graph: weights: reading tuples [%d, %d): %w", lo, hi, err)
	}
	if err := src.ReadWeights(ctx, lo, weights); err != nil {
		return fmt.Errorf("graph: weights: reading weights [%d, %d): %w", lo, hi, err)
	}
	for i, e := range edges {
		switch w := weights[i]; {
		case e.U < 0 || e.U >= n || e.V < 0 || e.V >= n:
			return fmt.Errorf("graph: weights: tuple %d (%d, %d) has an id outside [0, %d)", lo+int64(i), e.U, e.V, n)
		case !(w >= 0) || math.IsInf(float64(w), 1):
			return fmt.Errorf("graph: weights: tuple %d (%d, %d) has weight %v, not a finite number ≥ 0", lo+int64(i), e.U, e.V, w)
		}
	}
	return nil
}

// rowBlockBits sets the rows of a block of received records: 2^12 rows,
// whose offsets, columns and weights stay in cache while the block is
// applied.
const rowBlockBits = 12

// group checks the received messages and copies their records grouped by
// block of rows (a counting sort on row >> rowBlockBits) into r.grouped;
// block b's records are records r.starts[b] … r.starts[b+1]−1.
func (r *weightRouter) group(recv [][]byte) ([]byte, error) {
	nb := r.g.NumLocal>>rowBlockBits + 1
	r.starts = append(r.starts[:0], make([]int, nb+1)...)
	total := 0
	for s, msg := range recv {
		if len(msg)%weightRecord != 0 {
			return nil, fmt.Errorf("graph: weights: message from rank %d has %d bytes, not a multiple of %d", s, len(msg), weightRecord)
		}
		for i := 0; i < len(msg); i += weightRecord {
			l := binary.LittleEndian.Uint32(msg[i:])
			if int(l) >= r.g.NumLocal {
				return nil, fmt.Errorf("graph: weights: message from rank %d names row %d of %d", s, l, r.g.NumLocal)
			}
			r.starts[l>>rowBlockBits+1]++
		}
		total += len(msg) / weightRecord
	}
	for b := range nb {
		r.starts[b+1] += r.starts[b]
	}
	r.cursor = append(r.cursor[:0], r.starts[:nb]...)
	if cap(r.grouped) < total*weightRecord {
		r.grouped = make([]byte, total*weightRecord)
	}
	grouped := r.grouped[:total*weightRecord]
	for _, msg := range recv {
		for i := 0; i < len(msg); i += weightRecord {
			b := binary.LittleEndian.Uint32(msg[i:]) >> rowBlockBits
			copy(grouped[r.cursor[b]*weightRecord:], msg[i:i+weightRecord])
			r.cursor[b]++
		}
	}
	return grouped, nil
}

// appendRecord routes half-edge u→v of weight w to u's owner.
func (r *weightRouter) appendRecord(u, v int64, w float32) {
	d := r.part.Owner(u)
	b := r.send[d]
	b = binary.LittleEndian.AppendUint32(b, r.part.Local(u))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(w))
	r.send[d] = binary.LittleEndian.AppendUint64(b, uint64(v))
}

// apply lowers the weights of the entries named by the records in msg.
// The caller owns the rows msg names: no other thread writes them.
func (r *weightRouter) apply(msg []byte) error {
	g := r.g
	inf := math.Float32bits(float32(math.Inf(1)))
	for i := 0; i < len(msg); i += weightRecord {
		l := binary.LittleEndian.Uint32(msg[i:])
		w := binary.LittleEndian.Uint32(msg[i+4:])
		v := binary.LittleEndian.Uint64(msg[i+8:])
		if int(l) >= g.NumLocal || v >= uint64(g.NumGlobal) || w > inf {
			return fmt.Errorf("record (%d, %d, %#x) out of range", l, v, w)
		}
		j := g.EntryIndex(l, int64(v))
		if j < 0 {
			return fmt.Errorf("edge (%d, %d) is not in the graph", g.FirstGlobal+int64(l), v)
		}
		r.bits[j] = min(r.bits[j], w)
	}
	return nil
}

// EntryIndex returns the index in the adjacency arrays (and in the weights
// of BuildWeights) of local vertex l's entry for global neighbour u, or −1
// if l has no such neighbour (binary search in the descending row).
func (g *CSR) EntryIndex(l uint32, u int64) int64 {
	lo, hi := g.Offsets[l], g.Offsets[l+1]
	var i int
	if g.Cols32 != nil {
		i = descendingRowIndex(g.Cols32[lo:hi], u)
	} else {
		i = descendingRowIndex(g.Cols64[lo:hi], u)
	}
	if i < 0 {
		return -1
	}
	return lo + int64(i)
}

// descendingRowIndex is the position of u in row (sorted in descending
// order), or −1.
func descendingRowIndex[C uint32 | int64](row []C, u int64) int {
	lo, hi := 0, len(row)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch x := int64(row[mid]); {
		case x == u:
			return mid
		case x > u:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}
