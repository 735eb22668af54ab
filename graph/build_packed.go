package graph

// Kernel 1 into the compressed layout (compressed.go) without ever holding
// the plain rows: after the counting pass, the rows are filled, sorted,
// deduplicated and packed a range of buckets at a time through one bounded
// buffer, the tuple source being read once more per range.

import (
	"context"
	"fmt"
	"runtime"
	"sort"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// PackedRanges is the number of row ranges BuildPackedFrom fills one after
// the other when the caller leaves it to choose: the buffer of a range then
// holds about a quarter of the rank's half-edges, 4 bytes each, a byte per
// half-edge: about what the searches hold besides the graph (parent,
// level, queues and bitmaps, and the records of the largest top-down
// level, 1 to 1.5 bytes per half-edge at edgefactor 16), so that kernel
// 1's peak stays near the searches' (graph500's memory model) with the
// fewest readings of the source.
const PackedRanges = 4

// BuildPackedFrom is BuildUndirectedFrom building the rows straight into
// the compressed layout (CSR.Packed, byte offsets, PackedEdges). The
// counting pass is the same; then the rows are cut into about ranges
// ranges of buckets of equal volume (ranges < 1: PackedRanges), the same on
// every rank (the largest volume of each bucket over the ranks), and each
// range is one fill pass over the source (every rank routes only the
// half-edges of rows in the range), whose rows are then sorted,
// deduplicated and coded into the packed bytes. Memory per rank: the
// packed rows, reserved at a bound from the counted row lengths
// (packedRowBound; the reserve's untouched pages cost no memory), 8 bytes
// of offsets and 4 of TupleDegree per owned vertex, and one range's
// uncompressed rows (4 bytes per half-edge, 8 above 2^32 vertices) plus
// the round buffers. The source is read 1 + ranges times.
func BuildPackedFrom(ctx context.Context, c comm.Comm, part partition.Block1D, src TupleSource, threads, ranges int) (*CSR, BuildStats, error) {
	if err := checkPartition(part, c.Size()); err != nil {
		return nil, BuildStats{}, err
	}
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	if ranges < 1 {
		ranges = PackedRanges
	}
	if fitsCols32(part.N) {
		return buildPacked[uint32](ctx, c, part, src, threads, ranges, 0)
	}
	return buildPacked[int64](ctx, c, part, src, threads, ranges, 0)
}

// buildPacked is BuildPackedFrom with the range buffer's column type and,
// when chunk > 0, the tuples per round.
func buildPacked[C uint32 | int64](ctx context.Context, c comm.Comm, part partition.Block1D, src TupleSource, threads, ranges int, chunk int64) (*CSR, BuildStats, error) {
	b := newBuilder1D[C](c, part, src, threads)
	if err := b.plan(ctx, chunk); err != nil {
		return nil, b.stats, err
	}
	b.degree = make([]uint32, b.nLocal)
	if err := b.pass(ctx, passCount); err != nil {
		return nil, b.stats, err
	}
	b.rowStarts()
	spans, err := b.bucketRanges(ctx, ranges)
	if err != nil {
		return nil, b.stats, err
	}
	pk := packer{n: part.N, first: b.first}
	pk.reserve(b.degree, threads)
	b.stats.PackedRanges = len(spans) - 1
	for k := range len(spans) - 1 {
		if err := b.fillRange(ctx, spans[k], spans[k+1], &pk); err != nil {
			return nil, b.stats, err
		}
	}
	b.release()
	b.offsets[b.nLocal] = pk.at
	clear(pk.bytes[pk.at : pk.at+PackedPad]) // the slots' moves may have left bytes there
	g := &CSR{NumGlobal: part.N, FirstGlobal: b.first, NumLocal: b.nLocal, Offsets: b.offsets,
		Packed: pk.bytes[:pk.at+PackedPad], PackedEdges: pk.entries, TupleDegree: b.degree, SelfLoops: b.selfLoops}
	return g, b.stats, nil
}

// bucketRanges cuts the buckets [0, nb) into at most ranges consecutive
// spans of about equal volume, the same on every rank: the volume of a
// bucket is its largest row volume over the ranks. It returns the span
// boundaries (bucket indices, the first 0, the last nb).
func (b *builder[C]) bucketRanges(ctx context.Context, ranges int) ([]int, error) {
	nb, shift := b.lay.nb, b.lay.bshift
	vol := make([]int64, nb)
	for j := range nb {
		lo := min(int64(j)<<shift, int64(b.nLocal))
		hi := min(int64(j+1)<<shift, int64(b.nLocal))
		vol[j] = b.offsets[hi] - b.offsets[lo]
	}
	if err := b.c.AllreduceInt64(ctx, RoutePhasePlan, vol, comm.Max); err != nil {
		return nil, fmt.Errorf("graph: kernel 1 %s: %w", RoutePhasePlan, err)
	}
	acc := make([]int64, nb+1)
	for j, v := range vol {
		acc[j+1] = acc[j] + v
	}
	spans := []int{0}
	for k := 1; k < ranges; k++ {
		target := acc[nb] * int64(k) / int64(ranges)
		j := sort.Search(nb, func(j int) bool { return acc[j] >= target })
		if j > spans[len(spans)-1] && j < nb {
			spans = append(spans, j)
		}
	}
	return append(spans, nb), nil
}

// fillRange fills, sorts, deduplicates and packs the rows of buckets
// [jLo, jHi).
func (b *builder[C]) fillRange(ctx context.Context, jLo, jHi int, pk *packer) error {
	shift := b.lay.bshift
	rLo := min(jLo<<shift, b.nLocal)
	rHi := min(jHi<<shift, b.nLocal)
	colBase := b.offsets[rLo]
	size := b.offsets[rHi] - colBase
	if int64(cap(b.cols)) < size {
		b.cols = nil // the previous range's buffer goes before the larger one comes
		b.cols = make([]C, size)
	}
	b.cols = b.cols[:size]
	for v := rLo; v < rHi; v++ {
		b.offsets[v] -= colBase // the range's cursors index its buffer
	}
	b.ranged, b.bLo, b.bSpan = true, uint64(jLo), uint64(jHi-jLo)
	if err := b.pass(ctx, passFill); err != nil {
		return err
	}
	// Every cursor must have reached the next row's start; the cursors
	// become the row starts in the buffer again.
	var at int64
	for v := rLo; v < rHi; v++ {
		d := int64(b.degree[v])
		if b.offsets[v] != at+d {
			return fmt.Errorf("graph: kernel 1: %w: row of vertex %d filled to %d, counted %d",
				errRoute, b.first+int64(v), b.offsets[v]-at, d)
		}
		b.offsets[v] = at
		at += d
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("graph: kernel 1: %w", err)
	}
	return packRange(b, pk, rLo, rHi, colBase)
}

// packer is the packed rows in the making.
type packer struct {
	n, first int64  // vertices of the graph, global id of row 0
	bytes    []byte // reserved at the rows' bound
	at       int64  // bytes written
	entries  int64  // entries written
}

// reserve allocates the packed bytes at the bound of rows of the counted
// lengths degree (duplicates included, so at least the stored ones).
func (pk *packer) reserve(degree []uint32, threads int) {
	nt := max(1, min(threads, len(degree)/4096))
	sums := make([]int64, nt)
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(len(degree), t, nt)
		for _, d := range degree[lo:hi] {
			sums[t] += packedRowBound(int64(d), pk.n)
		}
	})
	var total int64
	for _, s := range sums {
		total += s
	}
	pk.bytes = make([]byte, total+PackedPad)
}

// packRange sorts and deduplicates the filled rows [rLo, rHi) of b's
// range buffer (offsets[rHi] is colBase plus its length) and codes them after the bytes written: each thread codes a
// part of about equal volume into its slot (the part's bound), then the
// slots move down one after the other. Row starts become byte offsets.
func packRange[C uint32 | int64](b *builder[C], pk *packer, rLo, rHi int, colBase int64) error {
	offsets, degree := b.offsets, b.degree
	nt := max(1, min(b.threads, (rHi-rLo)/1024))
	offsets[rHi] -= colBase // the range's end in its buffer, for the bounds
	bounds := volumeBounds(offsets[rLo:rHi+1], nt)
	offsets[rHi] += colBase
	slot := make([]int64, nt+1) // slot t starts at pk.at + slot[t]
	parallel.For(nt, func(t int) {
		for _, d := range degree[rLo+bounds[t] : rLo+bounds[t+1]] {
			slot[t+1] += packedRowBound(int64(d), pk.n)
		}
	})
	for t := range nt {
		slot[t+1] += slot[t]
	}
	used := make([]int64, nt)
	entries := make([]int64, nt)
	errs := make([]error, nt)
	parallel.For(nt, func(t int) {
		lo, hi := pk.at+slot[t], pk.at+slot[t+1]
		dst := pk.bytes[lo:lo:hi]
		var scratch []C
		for v := rLo + bounds[t]; v < rLo+bounds[t+1]; v++ {
			start := offsets[v]
			row := b.cols[start : start+int64(degree[v])]
			if len(row) >= radixMin && len(scratch) < len(row) {
				scratch = make([]C, len(row)+len(row)/4)
			}
			k := sortDedupe(row, scratch)
			row = row[:k]
			for i, x := range row {
				row[i] = ^x // ascending complements: descending ids
			}
			offsets[v] = lo + int64(len(dst))
			dst = AppendPackedRow(dst, pk.first+int64(v), row)
			entries[t] += int64(k)
		}
		if int64(cap(dst)) != hi-lo {
			errs[t] = fmt.Errorf("graph: kernel 1: packed rows of vertices [%d, %d) above their bound", pk.first+int64(rLo+bounds[t]), pk.first+int64(rLo+bounds[t+1]))
		}
		used[t] = int64(len(dst))
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	base := pk.at
	for t := range nt {
		from := base + slot[t]
		copy(pk.bytes[pk.at:pk.at+used[t]], pk.bytes[from:from+used[t]])
		if shift := from - pk.at; shift != 0 {
			for v := rLo + bounds[t]; v < rLo+bounds[t+1]; v++ {
				offsets[v] -= shift
			}
		}
		pk.at += used[t]
		pk.entries += entries[t]
	}
	return nil
}

// placeRange is place for a ranged fill pass (1D): only the half-edges of
// rows in buckets [bLo, bLo+bSpan) of their owners are counted and placed
// (the range's buckets are the same on every rank), so that a round's
// records, and the passes over them, are about a range's share of
// place's. Self-loops are left out, as a fill pass does. It is place's 1D
// loops with the range's test, kept apart so that the plain build's loops
// pay nothing for it (callgrind: +5 % instructions in kernel 1 with the
// test in place's loops).
func (b *builder[C]) placeRange(edges []Edge, first int64) error {
	lay := &b.lay
	nb, keys := lay.nb, b.keys
	nt := max(1, min(b.threads, len(edges)/1024))
	n, block := uint64(lay.n), uint64(lay.block)
	bshift, w := lay.bshift, lay.w
	bLo, bSpan := b.bLo, b.bSpan
	clear(b.counts[:nt*keys])
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(len(edges), t, nt)
		cnt := b.counts[t*keys : (t+1)*keys]
		b.bad[t] = -1
		for i := lo; i < hi; i++ {
			u, v := uint64(edges[i].U), uint64(edges[i].V)
			if u >= n || v >= n {
				b.bad[t] = int64(i)
				return
			}
			if u == v {
				continue
			}
			ku, kv := lay.div.div(u), lay.div.div(v)
			if ju := (u - ku*block) >> bshift; ju-bLo < bSpan {
				cnt[int(ku)*nb+int(ju)]++
			}
			if jv := (v - kv*block) >> bshift; jv-bLo < bSpan {
				cnt[int(kv)*nb+int(jv)]++
			}
		}
	})
	if err := b.countsToCursors(edges, first, nt); err != nil {
		return err
	}
	rowMask := lay.rowCap - 1
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(len(edges), t, nt)
		cur := b.counts[t*keys : (t+1)*keys]
		recs := b.recs
		for i := lo; i < hi; i++ {
			u, v := uint64(edges[i].U), uint64(edges[i].V)
			if u == v {
				continue
			}
			ku, kv := lay.div.div(u), lay.div.div(v)
			if lu := u - ku*block; (lu>>bshift)-bLo < bSpan {
				k := int(ku)*nb + int(lu>>bshift)
				recs[cur[k]] = (lu&rowMask)<<w | v
				cur[k]++
			}
			if lv := v - kv*block; (lv>>bshift)-bLo < bSpan {
				k := int(kv)*nb + int(lv>>bshift)
				recs[cur[k]] = (lv&rowMask)<<w | u
				cur[k]++
			}
		}
	})
	return nil
}
