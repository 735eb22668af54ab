package pagerank

// Edge weights for PageRank, as NetworkX's pagerank(G, weight='weight'):
// a vertex's out-edges share its rank in proportion to their weights,
// w(u, v)/W(u) with W(u) its total out-weight, and a vertex whose W is 0
// is dangling. The kernel keeps x_u = r_u/W(u), so the update at home is
// the unweighted one with W for the out-degree, and only the column sums
// change: Σ w(u, v)·x_u (weightedSumRun) instead of Σ x_u.
//
// The inputs (a WeightedShare): an edge list's weights as the reader
// gives them (float32), or a Kronecker graph's generated weights (kernel
// 3's, gen/kronecker). The weights travel with their keys through the
// routing (pagerank_route.go) and are sorted with them (sortWeighted).
//
// Duplicates: an edge given several times is one edge, whose weight is
// the smallest of its copies' (as kernel 3's graph.BuildWeights): the
// result then depends on no read order or rank count. NetworkX's DiGraph
// keeps the last copy's weight instead; the two agree whenever the copies
// carry the same weight. An edge of weight 0 carries no rank and is left
// out of the matrix (its vertices stay), so a vertex whose out-edges all
// weigh 0 is dangling, as in NetworkX.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"unsafe"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
)

// WeightedShare is a rank's share of a weighted input, read from the start
// as many times as a consumer needs: Scan hands out the edges, ScanWeighted
// the same edges in the same chunks with their weights.
type WeightedShare interface {
	graph.EdgeShare
	// ScanWeighted is Scan with each chunk's weights: ws[i] is es[i]'s.
	ScanWeighted(ctx context.Context, emit func(es []graph.Edge, ws []float32) error) error
}

// WeightedEdges is a weighted share held in memory: Weights[i] is the
// weight of Edges[i].
type WeightedEdges struct {
	Edges   []graph.Edge
	Weights []float32
}

// Scan hands the edges to emit in chunks of at most graph.ScanChunk.
func (s WeightedEdges) Scan(ctx context.Context, emit func([]graph.Edge) error) error {
	return graph.EdgeChunks{s.Edges}.Scan(ctx, emit)
}

// ScanWeighted hands the edges and their weights to emit in chunks of at
// most graph.ScanChunk.
func (s WeightedEdges) ScanWeighted(ctx context.Context, emit func([]graph.Edge, []float32) error) error {
	if len(s.Weights) != len(s.Edges) {
		return fmt.Errorf("pagerank: %d weights for %d edges", len(s.Weights), len(s.Edges))
	}
	for lo := 0; lo < len(s.Edges); lo += graph.ScanChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+graph.ScanChunk, len(s.Edges))
		if err := emit(s.Edges[lo:hi], s.Weights[lo:hi]); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// kronWeighted is a Kronecker share with its generated weights (kernel 3's,
// uniform in [0, 1), a function of the seed and the tuple's index).
type kronWeighted struct {
	graph.EdgeShare
	s   kronecker.Share
	buf []graph.Edge
	ws  []float32
}

// kronChunk is the number of tuples a weighted Kronecker scan generates at
// once.
const kronChunk = 1 << 17

// newKronWeighted is s as a WeightedShare.
func newKronWeighted(s kronecker.Share) *kronWeighted {
	return &kronWeighted{EdgeShare: s.Edges(), s: s}
}

// ScanWeighted generates the share's tuples and their weights a chunk at a
// time: the tuples Scan gives, in the same order.
func (k *kronWeighted) ScanWeighted(ctx context.Context, emit func([]graph.Edge, []float32) error) error {
	if k.buf == nil {
		n := min(k.s.Len(), kronChunk)
		k.buf, k.ws = make([]graph.Edge, n), make([]float32, n)
	}
	for done := int64(0); done < k.s.Len(); {
		n := min(int64(len(k.buf)), k.s.Len()-done)
		if err := k.s.Read(ctx, done, k.buf[:n]); err != nil {
			return err
		}
		if err := k.s.ReadWeights(ctx, done, k.ws[:n]); err != nil {
			return err
		}
		if err := emit(k.buf[:n], k.ws[:n]); err != nil {
			return err
		}
		done += n
	}
	return nil
}

// ErrWeight is wrapped by the error of an edge weight PageRank cannot use.
var ErrWeight = errors.New("pagerank: invalid edge weight")

// checkWeights refuses a weight PageRank cannot use: negative or not
// finite. e are the weights' edges, by original id.
func checkWeights(e []graph.Edge, ws []float32) error {
	for i, w := range ws {
		if !(w >= 0) || math.IsInf(float64(w), 1) {
			return fmt.Errorf("%w: edge (%d, %d) has weight %g (finite weights ≥ 0 only)", ErrWeight, e[i].U, e[i].V, w)
		}
	}
	return nil
}

// weightSorter sorts keys with their weights (an LSD radix sort, stable),
// reusing its buffers between sorts.
type weightSorter struct {
	keys  []uint64
	ws    []float32
	count []int
}

// sortDigit is the bits of one pass of sortWeighted.
const sortDigit = 11

// sort orders keys (of width bits) ascending and ws with them.
func (s *weightSorter) sort(keys []uint64, ws []float32, width uint) {
	if cap(s.keys) < len(keys) {
		s.keys, s.ws = make([]uint64, len(keys)), make([]float32, len(keys))
	}
	if s.count == nil {
		s.count = make([]int, 1<<sortDigit)
	}
	src, srcW := keys, ws
	dst, dstW := s.keys[:len(keys)], s.ws[:len(keys)]
	for shift := uint(0); shift < width; shift += sortDigit {
		clear(s.count)
		for _, k := range src {
			s.count[k>>shift&(1<<sortDigit-1)]++
		}
		sum := 0
		for d, c := range s.count {
			s.count[d], sum = sum, sum+c
		}
		for i, k := range src {
			d := k >> shift & (1<<sortDigit - 1)
			j := s.count[d]
			s.count[d]++
			dst[j], dstW[j] = k, srcW[i]
		}
		src, srcW, dst, dstW = dst, dstW, src, srcW
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
		copy(ws, srcW)
	}
}

// release drops the sorter's buffers.
func (s *weightSorter) release() { s.keys, s.ws = nil, nil }

// dedupeMin keeps one copy of each key of sorted keys with the smallest of
// its copies' weights, drops the keys whose weight is 0, and returns the
// rest in order (in place) and the number dropped.
func dedupeMin(keys []uint64, ws []float32) ([]uint64, []float32, int) {
	n, zero := 0, 0
	for i := 0; i < len(keys); {
		k, w := keys[i], ws[i]
		for i++; i < len(keys) && keys[i] == k; i++ {
			w = min(w, ws[i])
		}
		if w != 0 {
			keys[n], ws[n] = k, w
			n++
		} else {
			zero++
		}
	}
	return keys[:n], ws[:n], zero
}

// buildPRMatrixWeighted is buildPRMatrix for weighted keys: ws[i] is the
// weight of keys[i]. Duplicates keep their smallest weight, edges of
// weight 0 are dropped (counted in zeroEdges), localDeg is the local out-weight, and wts holds
// each edge's weight beside src. The sorts run beside the keys (the
// set-up holds two copies of the keys and weights, unlike the unweighted
// in-place sorts).
func buildPRMatrixWeighted(keys []uint64, ws []float32, sh uint, first, cnt int64, threads int) *prMatrix {
	var s weightSorter
	if len(keys) > 0 {
		s.sort(keys, ws, 2*sh)
	}
	keys, ws, zero := dedupeMin(keys, ws)
	nIn := 0
	for i, k := range keys {
		if i == 0 || k>>sh != keys[i-1]>>sh {
			nIn++
		}
	}
	a := &prMatrix{in: make([]int64, 0, nIn), localDeg: make([]float64, nIn)}
	weight := make([]float64, nIn)
	sb := uint(bits.Len(uint(max(nIn-1, 0))))
	vmask := uint64(1)<<sh - 1
	for i, k := range keys {
		if u := int64(k >> sh); len(a.in) == 0 || a.in[len(a.in)-1] != u {
			a.in = append(a.in, u)
		}
		l := len(a.in) - 1
		a.localDeg[l]++
		weight[l] += float64(ws[i])
		keys[i] = (k&vmask)<<sb | uint64(l)
	}
	a.slot = degreeSlots(a.localDeg, sb, threads)
	a.localDeg = weight
	a.toSlots(keys, sb, threads)
	if len(keys) > 0 {
		s.sort(keys, ws, sh+sb)
	}
	s.release()
	a.columns(keys, sb, first, cnt, threads)
	a.wts, a.zeroEdges = ws, zero
	return a
}

// sumWeighted writes block b's weighted column sums into y (y[p − start]
// for position p): weightedSumRun over the block's runs, long columns
// summed in Go.
func (r *columnRuns) sumWeighted(b int, colStart []int, src []uint32, wts []float32, x, y []float64) {
	lo := r.blockStart[b]
	p, e := lo, colStart[lo]
	for k := r.first[b]; k < r.first[b+1]; k++ {
		end, w := r.end[k], r.width[k]
		n := w * (end - p)
		weightedSumRun(src[e:e+n], wts[e:e+n], w, x, y[p-lo:end-lo], false)
		p, e = end, e+n
	}
}

// weightedSumRun is sumRun with weights: column i's sum is Σ wts[k]·x[src[k]]
// over k in [w·i, w·i+w), in edge order below longColumn edges, else in
// four interleaved sums (weightedLongColumnSum, with gathers if gather).
// Each product is rounded before it is added (the explicit conversions:
// no fused multiply-add on any architecture), so that the Go loops and
// the gathers give the same bits.
func weightedSumRun(src []uint32, wts []float32, w int, xs, y []float64, gather bool) {
	src, wts = src[:w*len(y)], wts[:w*len(y)]
	x := vec(xs)
	switch w {
	case 0:
		clear(y)
	case 1:
		for i := range y {
			y[i] = float64(wts[i]) * at(x, src[i])
		}
	case 2:
		for i := range y {
			c, ws := src[2*i:2*i+2], wts[2*i:2*i+2]
			y[i] = float64(float64(ws[0])*at(x, c[0])) + float64(float64(ws[1])*at(x, c[1]))
		}
	case 3:
		for i := range y {
			c, ws := src[3*i:3*i+3], wts[3*i:3*i+3]
			s := float64(float64(ws[0])*at(x, c[0])) + float64(float64(ws[1])*at(x, c[1]))
			y[i] = s + float64(float64(ws[2])*at(x, c[2]))
		}
	case 4:
		for i := range y {
			c, ws := src[4*i:4*i+4], wts[4*i:4*i+4]
			s := float64(float64(ws[0])*at(x, c[0])) + float64(float64(ws[1])*at(x, c[1]))
			s += float64(float64(ws[2]) * at(x, c[2]))
			y[i] = s + float64(float64(ws[3])*at(x, c[3]))
		}
	default:
		if w < longColumn {
			for i := range y {
				y[i] = weightedShortColumnSum(src[w*i:w*i+w], wts[w*i:w*i+w], x)
			}
			return
		}
		for i := range y {
			col, ws := src[w*i:w*i+w], wts[w*i:w*i+w]
			if gather {
				y[i] = weightedLongColumnSumAVX2(col, wvec(ws), x)
			} else {
				y[i] = weightedLongColumnSumGo(col, wvec(ws), x)
			}
		}
	}
}

// weightedShortColumnSum is Σ ws[k]·x[col[k]] in edge order; ws is at
// least as long as col.
func weightedShortColumnSum(col []uint32, ws []float32, x unsafe.Pointer) float64 {
	w := wvec(ws[:len(col)])
	var s float64
	for k, u := range col {
		s += float64(wat(w, k) * at(x, u))
	}
	return s
}

// weightedLongColumnSumGo is Σ ws[k]·x[col[k]] in four running sums (edge
// k below len &^ 3 to sum k mod 4, the rest to sum 0, added as
// (s0+s1)+(s2+s3)), as longColumnSumGo adds; w points to a weight per
// source (wat: no bounds checks), x to every source's value.
func weightedLongColumnSumGo(col []uint32, w, x unsafe.Pointer) float64 {
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+3 < len(col); k += 4 {
		c := col[k : k+4 : k+4]
		s0 += float64(wat(w, k) * at(x, c[0]))
		s1 += float64(wat(w, k+1) * at(x, c[1]))
		s2 += float64(wat(w, k+2) * at(x, c[2]))
		s3 += float64(wat(w, k+3) * at(x, c[3]))
	}
	for ; k < len(col); k++ {
		s0 += float64(wat(w, k) * at(x, col[k]))
	}
	return (s0 + s1) + (s2 + s3)
}

// wat is the k-th float32 of the array w points to, as a float64, without
// a bounds check (at's reason; callers check the length once).
func wat(w unsafe.Pointer, k int) float64 {
	return float64(*(*float32)(unsafe.Add(w, uintptr(k)*4)))
}

// wvec is the address of ws's first element, for wat.
func wvec(ws []float32) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(ws)) }

// sortColumn copies a column's weights from into ws and sorts the column
// col (distinct positions) ascending with its weights.
func sortColumn(col []uint32, ws, from []float32) {
	copy(ws, from)
	if !slices.IsSorted(col) {
		sort.Sort(columnPairs{col, ws[:len(col)]})
	}
}

// columnPairs sorts a column's sources with their weights.
type columnPairs struct {
	col []uint32
	ws  []float32
}

func (c columnPairs) Len() int           { return len(c.col) }
func (c columnPairs) Less(i, j int) bool { return c.col[i] < c.col[j] }
func (c columnPairs) Swap(i, j int) {
	c.col[i], c.col[j] = c.col[j], c.col[i]
	c.ws[i], c.ws[j] = c.ws[j], c.ws[i]
}

// keepWeights appends the round's weights to this rank's (each twice when
// undirected: an edge and its reverse), as keepAll appends their keys.
func (r *prRouter) keepWeights(ws []float32) {
	if !r.undirected {
		r.ws = append(r.ws, ws...)
		return
	}
	for _, w := range ws {
		r.ws = append(r.ws, w, w)
	}
}

// routeWeights sends the round's weights to the owners of their keys by
// one Alltoallv, before pack and exchange route the keys: this rank's
// own weights and then those received, by sender, are appended to r.ws in
// the order in which pack and exchange append their keys.
func (r *prRouter) routeWeights(ctx context.Context, dest []int32, ws []float32) error {
	counts := r.counts
	off := 0
	for d, n := range counts {
		r.offs[d] = off
		if d != r.rank {
			off += 4 * n
		}
	}
	if cap(r.wsendBuf) < off {
		r.wsendBuf = make([]byte, off, off+off/4)
	}
	if r.wsend == nil {
		r.wsend = make([][]byte, r.p)
	}
	buf, offs, self := r.wsendBuf[:off], r.offs, int32(r.rank)
	half := uint(perKeys(r.undirected) - 1) // key i is edge i>>half's
	for i, d := range dest {
		w := ws[i>>half]
		if d == self {
			r.ws = append(r.ws, w)
			continue
		}
		binary.LittleEndian.PutUint32(buf[offs[d]:], math.Float32bits(w))
		offs[d] += 4
	}
	for d := range r.wsend {
		r.wsend[d] = nil
		if d != r.rank {
			r.wsend[d] = buf[offs[d]-4*counts[d] : offs[d]]
		}
	}
	var err error
	if r.wrecv, err = r.c.Alltoallv(ctx, PhaseRoute, r.wsend, r.wrecv); err != nil {
		return err
	}
	for s, m := range r.wrecv {
		if len(m)%4 != 0 {
			return fmt.Errorf("%d bytes of weights from rank %d is not a list of weights", len(m), s)
		}
		for j := 0; j < len(m); j += 4 {
			w := math.Float32frombits(binary.LittleEndian.Uint32(m[j:]))
			if !(w >= 0) || math.IsInf(float64(w), 1) {
				return fmt.Errorf("weight %g from rank %d: %w", w, s, ErrWeight)
			}
			r.ws = append(r.ws, w)
		}
	}
	return nil
}
