// This file is the dense relabelling of PageRank's set-up (Kylix §VII
// runs on the Twitter and Yahoo graphs, whose vertex ids are sparse) in
// memory proportional to the distinct ids, not to the edges: one pass over
// a rank's share (EdgeShare) collects its distinct ids, the distributed
// sample sort of Relabel labels them, and Labels then maps the edges of any
// later pass over the same share to their dense ids, a chunk at a time.

package graph

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/radix"
	"github.com/graphrun/graphrun/partition"
)

// MaxLabelledVertices is the most vertices Labels can number: dense ids
// are uint32.
const MaxLabelledVertices = 1 << 32

// ErrShareChanged is wrapped by the error of Labels.Map when an edge has an
// id the first pass over the share did not see: the input changed between
// passes.
var ErrShareChanged = errors.New("the input changed between two passes over it")

// idCollector gathers the distinct ids of a share, one chunk of edges at a
// time: in a bitmap while the ids are small enough (bit x is id x), else as
// a sorted list of distinct ids into which buffered ids are merged when
// the buffer is as long as the list (so every id is sorted O(log) times).
type idCollector struct {
	bits    []uint64 // bitmap mode
	list    bool     // list mode: ids and pending
	ids     []uint64 // sorted, distinct
	pending []uint64 // not yet merged into ids
	maxID   int64    // largest id seen, −1 before any
	edges   int64    // edges seen
	bad     int64    // index of the first edge with a negative id, −1 if none
	badEdge Edge
}

// bitmapFloor is the id range a collector keeps in a bitmap whatever the
// edge count (8 MiB); above it, the range may be up to bitmapPerEdge ids
// per edge seen: a bitmap then costs at most 4 bytes per edge, and a list
// 8 bytes per distinct id.
const (
	bitmapFloor   = 1 << 26
	bitmapPerEdge = 32
)

// pendingMin is the fewest buffered ids worth a merge into the list.
const pendingMin = 1 << 20

func newIDCollector() *idCollector { return &idCollector{maxID: -1, bad: -1} }

// add collects the ids of a chunk of edges.
func (c *idCollector) add(es []Edge) {
	hi := c.maxID
	for i, e := range es {
		if e.U|e.V < 0 {
			if c.bad < 0 {
				c.bad, c.badEdge = c.edges+int64(i), e
			}
			continue
		}
		hi = max(hi, e.U, e.V)
	}
	c.edges += int64(len(es))
	if hi > c.maxID {
		c.maxID = hi
		if !c.list && hi >= int64(len(c.bits))*64 {
			if hi < max(bitmapFloor, bitmapPerEdge*c.edges) {
				c.bits = slices.Grow(c.bits, int(hi/64)+1-len(c.bits))[:hi/64+1]
				c.bits = c.bits[:cap(c.bits)]
			} else {
				c.toList()
			}
		}
	}
	if !c.list {
		b := c.bits
		for _, e := range es {
			if e.U|e.V >= 0 {
				b[e.U>>6] |= 1 << (e.U & 63)
				b[e.V>>6] |= 1 << (e.V & 63)
			}
		}
		return
	}
	for _, e := range es {
		if e.U|e.V >= 0 {
			c.pending = append(c.pending, uint64(e.U), uint64(e.V))
		}
	}
	if len(c.pending) >= max(pendingMin, len(c.ids)) {
		c.merge()
	}
}

// toList turns the bitmap into the sorted list of its ids.
func (c *idCollector) toList() {
	c.list = true
	c.ids = bitmapIDs(c.bits, nil)
	c.bits = nil
}

// bitmapIDs appends the ids of a bitmap to ids, in increasing order.
func bitmapIDs(b []uint64, ids []uint64) []uint64 {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	ids = slices.Grow(ids, n)
	for i, w := range b {
		for w != 0 {
			ids = append(ids, uint64(i)<<6|uint64(bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	return ids
}

// merge sorts the buffered ids into the list.
func (c *idCollector) merge() {
	if len(c.pending) == 0 {
		return
	}
	radix.Sort(c.pending, radix.Width(uint64(c.maxID)), 1)
	add := radix.Dedupe(c.pending)
	// Merge from the back into the grown list, then drop the repeats.
	n := len(c.ids)
	c.ids = slices.Grow(c.ids, len(add))[:n+len(add)]
	i, j, w := n-1, len(add)-1, n+len(add)-1
	for j >= 0 {
		if i >= 0 && c.ids[i] > add[j] {
			c.ids[w] = c.ids[i]
			i--
		} else {
			c.ids[w] = add[j]
			j--
		}
		w--
	}
	c.ids = radix.Dedupe(c.ids)
	c.pending = c.pending[:0]
}

// Labels is a rank's dense labelling of the vertices of all ranks' shares
// (RelabelShare): the vertex count, the rank's share of the inverse map,
// and a map from the ids of the rank's own share to their dense ids.
type Labels struct {
	// N is the number of vertices: the distinct ids of all shares. They
	// are numbered 0..N−1 in increasing order of original id, whatever
	// the rank count or the spread of the edges.
	N int64
	// Original is the rank's share of the inverse map in the
	// partition.Block1D of N over the ranks: Original[l] is the original
	// id of dense vertex partition.Block1D.Global(rank, l). nil if N is 0.
	Original []int64
	// Edges is the number of edges of the rank's share.
	Edges int64

	// The rank's ids: a bitmap from base with the count of ids before
	// each of its words (dense enough ids), or the sorted list; dense[i]
	// is the dense id of the rank's i-th id.
	base   int64
	bits   []uint64
	before []uint32
	ids    []uint64
	dense  []uint32
}

// Map writes the dense ids of edges, which must come from the rank's
// share, to out as u<<32 | v (out must be as long as edges). An id the
// first pass did not see fails with ErrShareChanged.
func (l *Labels) Map(edges []Edge, out []uint64) error {
	out = out[:len(edges)]
	if l.bits != nil {
		b, before, dense, base := l.bits, l.before, l.dense, l.base
		limit := uint64(len(b)) * 64
		for i, e := range edges {
			x, y := uint64(e.U-base), uint64(e.V-base)
			if x >= limit || y >= limit {
				return l.missing(e)
			}
			wx, wy := b[x>>6], b[y>>6]
			mx, my := uint64(1)<<(x&63), uint64(1)<<(y&63)
			if wx&mx == 0 || wy&my == 0 {
				return l.missing(e)
			}
			u := dense[before[x>>6]+uint32(bits.OnesCount64(wx&(mx-1)))]
			v := dense[before[y>>6]+uint32(bits.OnesCount64(wy&(my-1)))]
			out[i] = uint64(u)<<32 | uint64(v)
		}
		return nil
	}
	ids, dense := l.ids, l.dense
	for i, e := range edges {
		x, okx := slices.BinarySearch(ids, uint64(e.U))
		y, oky := slices.BinarySearch(ids, uint64(e.V))
		if !okx || !oky || e.U|e.V < 0 {
			return l.missing(e)
		}
		out[i] = uint64(dense[x])<<32 | uint64(dense[y])
	}
	return nil
}

// missing reports an edge whose ids the rank's labels do not have.
func (l *Labels) missing(e Edge) error {
	return fmt.Errorf("relabel: edge (%d, %d): %w", e.U, e.V, ErrShareChanged)
}

// Bytes is the memory the rank's labels hold.
func (l *Labels) Bytes() int64 {
	return 8*int64(len(l.Original)+len(l.bits)+len(l.ids)) + 4*int64(len(l.before)+len(l.dense))
}

// index builds the map of the rank's sorted distinct ids (the collector's
// bitmap when it has one) to their dense ids.
func (l *Labels) index(c *idCollector, ids []uint64, dense []uint32) {
	l.dense = dense
	if len(ids) == 0 {
		return
	}
	lo, hi := ids[0], ids[len(ids)-1]
	if c.bits == nil && hi-lo >= uint64(len(ids))*bitmapPerEdge {
		l.ids = ids // sparse: binary search
		return
	}
	if c.bits != nil {
		l.bits = c.bits // the collector's bitmap, from id 0
	} else {
		l.base = int64(lo &^ 63)
		l.bits = make([]uint64, (hi-uint64(l.base))/64+1)
		for _, x := range ids {
			x -= uint64(l.base)
			l.bits[x>>6] |= 1 << (x & 63)
		}
	}
	l.before = make([]uint32, len(l.bits))
	var cum uint32
	for i, w := range l.bits {
		l.before[i] = cum
		cum += uint32(bits.OnesCount64(w))
	}
}

// RelabelShare reads share once and labels the vertices of all ranks'
// shares densely, as Relabel does; the Labels it returns map the edges of
// any later pass over the rank's share. It holds the rank's distinct ids
// (as a bitmap when they are dense enough), never its edges. It is a
// collective. A negative id on any rank, or more than
// MaxLabelledVertices vertices, makes every rank return an error.
func RelabelShare(ctx context.Context, c comm.Comm, share EdgeShare) (*Labels, error) {
	col, ids, err := collectIDs(ctx, share)
	if err != nil {
		return nil, err
	}
	l := &Labels{Edges: col.edges}
	dense, original, n, err := relabelIDs(ctx, c, ids, col)
	if err != nil {
		return nil, err
	}
	l.N, l.Original = n, original
	l.index(col, ids, dense)
	return l, nil
}

// RelabelLocal labels the vertices of share, a whole input read by one
// process, as RelabelShare labels them in a job of one rank but with no
// communicator: the distinct ids get the dense ids 0..N−1 in increasing
// order, Original being the sorted distinct ids. It is the labelling a .grb
// graph stores (edgelist.WriteGRB). A negative id, or more than
// MaxLabelledVertices vertices, is an error.
func RelabelLocal(ctx context.Context, share EdgeShare) (*Labels, error) {
	col, ids, err := collectIDs(ctx, share)
	if err != nil {
		return nil, err
	}
	if col.bad >= 0 {
		return nil, col.negativeID()
	}
	n := int64(len(ids))
	if n > MaxLabelledVertices {
		return nil, fmt.Errorf("relabel: %d vertices: at most 2^32 are supported", n)
	}
	l := &Labels{Edges: col.edges, N: n}
	dense := make([]uint32, len(ids))
	if n > 0 {
		l.Original = make([]int64, len(ids))
		for i, x := range ids {
			dense[i], l.Original[i] = uint32(i), int64(x)
		}
	}
	l.index(col, ids, dense)
	return l, nil
}

// collectIDs reads share once and returns its collector and its sorted
// distinct ids (the collector keeps its bitmap, if it has one, for
// Labels.index).
func collectIDs(ctx context.Context, share EdgeShare) (*idCollector, []uint64, error) {
	col := newIDCollector()
	if err := share.Scan(ctx, func(es []Edge) error { col.add(es); return nil }); err != nil {
		return nil, nil, err
	}
	var ids []uint64
	if col.list {
		col.merge()
		ids, col.ids = col.ids, nil
	} else {
		ids = bitmapIDs(col.bits, nil)
	}
	return col, ids, nil
}

// negativeID is the error of the collector's first edge with a negative id.
func (c *idCollector) negativeID() error {
	e := c.badEdge
	return fmt.Errorf("relabel: edge %d (%d, %d): negative vertex id", c.bad, e.U, e.V)
}

// Relabel phase names.
const (
	relabelSamplePhase   = "relabel.sample"
	relabelIDsPhase      = "relabel.ids"
	relabelCountsPhase   = "relabel.counts"
	relabelAnswerPhase   = "relabel.answer"
	relabelOriginalPhase = "relabel.original"
)

// relabelOversample is the number of samples per rank and per rank count
// that choose the splitters of the range partition.
const relabelOversample = 16

// relabelIDs labels the distinct ids of all ranks, each rank giving its
// own sorted distinct ids (col says whether its share had a negative id).
// It returns the dense id of each of the rank's ids, in their order, the
// rank's share of the inverse map and the vertex count.
//
// It is a distributed sample sort: the ranks allgather weighted samples and
// cut the id range at the same splitters (relabelSample), send each id to
// the owner of its range (Alltoallv), which merges what it receives
// (sendToOwners); an allreduce of the per-owner counts gives each owner its
// first dense id (ownerOffsets), and the owners answer the ids they
// received, in the order received, as 32-bit dense ids written over the ids
// (a second Alltoallv, answerIDs). A last Alltoallv moves the inverse map to
// the block partition (moveOriginal).
func relabelIDs(ctx context.Context, c comm.Comm, ids []uint64, col *idCollector) (dense []uint32, original []int64, numVertices int64, err error) {
	if col.bad >= 0 {
		ids = nil
	}
	splitters, err := relabelSample(ctx, c, ids, col)
	if err != nil {
		return nil, nil, 0, err
	}
	x, err := sendToOwners(ctx, c, ids, splitters)
	if err != nil {
		return nil, nil, 0, err
	}
	first, numVertices, err := ownerOffsets(ctx, c, len(x.mine))
	if err != nil {
		return nil, nil, 0, err
	}
	dense, got, err := answerIDs(ctx, c, x, first, len(ids))
	if err != nil {
		return nil, nil, 0, err
	}
	if numVertices == 0 {
		return dense, nil, 0, nil
	}
	original, err = moveOriginal(ctx, c, x, got, first, numVertices)
	if err != nil {
		return nil, nil, 0, err
	}
	return dense, original, numVertices, nil
}

// relabelSample allgathers each rank's weighted samples of its ids and
// returns the splitters every rank computes from them (relabelSplitters).
// Each sample covers a run of the rank's ids and carries its last id and
// its length; the first byte of a rank's message flags bad input, which
// fails every rank.
func relabelSample(ctx context.Context, c comm.Comm, ids []uint64, col *idCollector) ([]int64, error) {
	p, rank := c.Size(), c.Rank()
	k := min(len(ids), relabelOversample*p)
	msg := make([]byte, 1, 1+16*k)
	if col.bad >= 0 {
		msg[0] = 1
	}
	for j := range k {
		a, b := int(ShareStart(int64(len(ids)), j, k)), int(ShareStart(int64(len(ids)), j+1, k))
		msg = binary.LittleEndian.AppendUint64(msg, ids[b-1])
		msg = binary.LittleEndian.AppendUint64(msg, uint64(b-a))
	}
	all, err := c.Allgatherv(ctx, relabelSamplePhase, msg, nil)
	if err != nil {
		return nil, fmt.Errorf("relabel: %w", err)
	}
	for r, m := range all {
		if len(m) == 0 || (len(m)-1)%16 != 0 {
			return nil, fmt.Errorf("relabel: corrupt sample message from rank %d (%d bytes)", r, len(m))
		}
		if m[0] != 0 {
			if r == rank {
				return nil, col.negativeID()
			}
			return nil, fmt.Errorf("relabel: rank %d has an edge with a negative vertex id", r)
		}
	}
	return relabelSplitters(all, p), nil
}

// ownersExchange is the rank's side of the ids sent to their range owners:
// bounds[d]..bounds[d+1] are the rank's ids sent to owner d (send[d]),
// recv[s] the ids rank s sent it, mine their sorted distinct union.
type ownersExchange struct {
	bounds     []int
	send, recv [][]byte
	mine       []uint64
}

// sendToOwners sends every id to the owner of its range (rank d owns
// (splitters[d−1], splitters[d]]) and merges what the rank receives.
func sendToOwners(ctx context.Context, c comm.Comm, ids []uint64, splitters []int64) (*ownersExchange, error) {
	p := c.Size()
	x := &ownersExchange{bounds: make([]int, p+1), send: make([][]byte, p)}
	for d, s := range splitters {
		x.bounds[d+1] = sort.Search(len(ids), func(i int) bool { return ids[i] > uint64(s) })
	}
	for d := len(splitters) + 1; d <= p; d++ {
		x.bounds[d] = len(ids)
	}
	for d := range p {
		x.send[d] = appendUint64s(nil, ids[x.bounds[d]:x.bounds[d+1]])
	}
	recv, err := c.Alltoallv(ctx, relabelIDsPhase, x.send, nil)
	if err != nil {
		return nil, fmt.Errorf("relabel: %w", err)
	}
	x.recv = recv
	total := 0
	for s, m := range recv {
		if len(m)%8 != 0 {
			return nil, fmt.Errorf("relabel: ids from rank %d: message of %d bytes is not a list of 64-bit ids", s, len(m))
		}
		total += len(m) / 8
	}
	mine := make([]uint64, 0, total)
	for _, m := range recv {
		for i := 0; i < len(m); i += 8 {
			mine = append(mine, binary.LittleEndian.Uint64(m[i:]))
		}
	}
	radix.Sort(mine, 64, 1)
	x.mine = radix.Dedupe(mine)
	return x, nil
}

// ownerOffsets returns, from the count of distinct ids each owner holds
// (an allreduce), the rank's first dense id and the vertex count.
func ownerOffsets(ctx context.Context, c comm.Comm, owned int) (first, numVertices int64, err error) {
	rank := c.Rank()
	counts := make([]int64, c.Size())
	counts[rank] = int64(owned)
	if err := c.AllreduceInt64(ctx, relabelCountsPhase, counts, comm.Sum); err != nil {
		return 0, 0, fmt.Errorf("relabel: %w", err)
	}
	for r, n := range counts {
		if r < rank {
			first += n
		}
		numVertices += n
	}
	if numVertices > MaxLabelledVertices {
		return 0, 0, fmt.Errorf("relabel: %d vertices: at most 2^32 are supported", numVertices)
	}
	return first, numVertices, nil
}

// answerIDs answers every rank's ids with their dense ids, in the order
// received, over the ids themselves (4 bytes of the 8 each took), and
// returns the dense ids of the rank's own n ids, in their order, with the
// buffers of the answers it received (for moveOriginal to reuse).
func answerIDs(ctx context.Context, c comm.Comm, x *ownersExchange, first int64, n int) ([]uint32, [][]byte, error) {
	mine, recv := x.mine, x.recv
	for s, m := range recv {
		q := len(m) / 8
		if q == 0 {
			continue
		}
		walk := q*bits.Len(uint(len(mine))) > q+len(mine)
		pos := 0
		for i := range q {
			v := binary.LittleEndian.Uint64(m[8*i:])
			if walk {
				for pos < len(mine) && mine[pos] < v {
					pos++
				}
			} else {
				pos, _ = slices.BinarySearch(mine, v)
			}
			if pos == len(mine) || mine[pos] != v {
				return nil, nil, fmt.Errorf("relabel: ids from rank %d are not sorted", s)
			}
			binary.LittleEndian.PutUint32(m[4*i:], uint32(first+int64(pos)))
		}
		recv[s] = m[:4*q]
	}
	got, err := c.Alltoallv(ctx, relabelAnswerPhase, recv, x.send)
	if err != nil {
		return nil, nil, fmt.Errorf("relabel: %w", err)
	}
	dense := make([]uint32, 0, n)
	for d, m := range got {
		want := x.bounds[d+1] - x.bounds[d]
		if len(m) != 4*want {
			return nil, nil, fmt.Errorf("relabel: corrupt answer from rank %d: %d bytes for %d ids", d, len(m), want)
		}
		for i := 0; i < len(m); i += 4 {
			dense = append(dense, binary.LittleEndian.Uint32(m[i:]))
		}
	}
	return dense, got, nil
}

// moveOriginal moves the inverse map, held by the range owners (the rank
// holds dense ids first.. of its ids x.mine), to the owners of the
// partition.Block1D of numVertices, and returns the rank's share of it.
// got and x.recv are reused as the send and receive buffers.
func moveOriginal(ctx context.Context, c comm.Comm, x *ownersExchange, got [][]byte, first, numVertices int64) ([]int64, error) {
	p, rank, mine := c.Size(), c.Rank(), x.mine
	part, err := partition.NewBlock1D(numVertices, p)
	if err != nil {
		return nil, fmt.Errorf("relabel: %w", err)
	}
	for b := range p {
		lo := max(part.First(b), first)
		hi := min(part.First(b)+int64(part.Count(b)), first+int64(len(mine)))
		got[b] = got[b][:0]
		if lo < hi {
			got[b] = appendUint64s(got[b], mine[lo-first:hi-first])
		}
	}
	back, err := c.Alltoallv(ctx, relabelOriginalPhase, got, x.recv)
	if err != nil {
		return nil, fmt.Errorf("relabel: %w", err)
	}
	original := make([]int64, 0, part.Count(rank))
	for s, m := range back {
		if len(m)%8 != 0 {
			return nil, fmt.Errorf("relabel: original ids from rank %d: message of %d bytes is not a list of 64-bit ids", s, len(m))
		}
		for i := 0; i < len(m); i += 8 {
			original = append(original, int64(binary.LittleEndian.Uint64(m[i:])))
		}
	}
	if len(original) != part.Count(rank) {
		return nil, fmt.Errorf("relabel: received %d original ids, own %d vertices", len(original), part.Count(rank))
	}
	return original, nil
}

// Relabel gives the vertices of a distributed edge list dense ids. Every
// rank passes its own edges (original non-negative ids, as read); the
// vertices are the distinct ids that occur in any rank's edges, and they get
// the dense ids 0..numVertices−1 in increasing order of original id. The
// labelling therefore depends only on the set of ids, never on the rank
// count or on how the edges are spread over the ranks.
//
// dense is edges with both ends relabelled, in the same order (edges is not
// modified). original is the rank's share of the inverse map in the
// partition.Block1D of numVertices over the ranks (the partition the CSR
// uses): original[l] is the original id of dense vertex
// partition.Block1D.Global(rank, l).
//
// It is RelabelShare over the edges in memory; its collectives are counted
// under the phases "relabel.sample", "relabel.ids", "relabel.counts",
// "relabel.answer" and "relabel.original". Without any edge numVertices is
// 0 and original nil. A negative id on any rank makes every rank return an
// error, as do more than MaxLabelledVertices vertices.
func Relabel(ctx context.Context, c comm.Comm, edges []Edge) (dense []Edge, original []int64, numVertices int64, err error) {
	l, err := RelabelShare(ctx, c, EdgeChunks{edges})
	if err != nil {
		return nil, nil, 0, err
	}
	dense = make([]Edge, len(edges))
	buf := make([]uint64, min(len(edges), ScanChunk))
	for lo := 0; lo < len(edges); lo += len(buf) {
		chunk := edges[lo:min(lo+len(buf), len(edges))]
		if err := l.Map(chunk, buf); err != nil {
			return nil, nil, 0, err
		}
		for i, k := range buf[:len(chunk)] {
			dense[lo+i] = Edge{U: int64(k >> 32), V: int64(k & math.MaxUint32)}
		}
	}
	return dense, l.Original, l.N, nil
}

// relabelSplitters chooses the p−1 splitters of the id range from the
// ranks' weighted samples: rank d owns the ids in (splitters[d−1],
// splitters[d]]. Every rank computes the same splitters from the same
// samples. Without samples there are none and rank 0 owns everything.
func relabelSplitters(all [][]byte, p int) []int64 {
	type sample struct{ id, weight int64 }
	var samples []sample
	var total int64
	for _, m := range all {
		for i := 1; i+16 <= len(m); i += 16 {
			s := sample{int64(binary.LittleEndian.Uint64(m[i:])), int64(binary.LittleEndian.Uint64(m[i+8:]))}
			samples = append(samples, s)
			total += s.weight
		}
	}
	if len(samples) == 0 {
		return nil
	}
	slices.SortFunc(samples, func(a, b sample) int {
		return cmp.Or(cmp.Compare(a.id, b.id), cmp.Compare(a.weight, b.weight))
	})
	splitters := make([]int64, 0, p-1)
	var cum int64
	j := 0
	for d := 1; d < p; d++ {
		target := ShareStart(total, d, p)
		for j < len(samples)-1 && cum+samples[j].weight < target {
			cum += samples[j].weight
			j++
		}
		splitters = append(splitters, samples[j].id)
	}
	return splitters
}

// appendUint64s appends xs to buf as little-endian 64-bit words.
func appendUint64s(buf []byte, xs []uint64) []byte {
	buf = slices.Grow(buf, 8*len(xs))
	for _, x := range xs {
		buf = binary.LittleEndian.AppendUint64(buf, x)
	}
	return buf
}

// appendInt64s appends xs to buf as little-endian 64-bit words.
func appendInt64s(buf []byte, xs []int64) []byte {
	buf = slices.Grow(buf, 8*len(xs))
	for _, x := range xs {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(x))
	}
	return buf
}
