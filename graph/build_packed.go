package graph

// Kernel 1 into the compressed layout (compressed.go) without ever holding
// the plain rows: after the counting pass, the rows are filled, sorted,
// deduplicated and packed a range of buckets at a time through one buffer
// sized from a memory budget, the tuple source being read once more per
// range.

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"unsafe"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// MaxPackedRanges bounds the fill passes of BuildPackedFrom: whatever the
// budget, a range holds at least 1/MaxPackedRanges of the rows' volume.
const MaxPackedRanges = 16

// packBatch is the volume (half-edges) of the rows packRange codes at a
// time: the threads' slots of a batch are reserved at the rows' bound, so
// the reserve's pages a batch touches beyond the bytes written stay within
// a batch's share, however large the range.
const packBatch = 1 << 22

// BuildPackedFrom is BuildUndirectedFrom building the rows straight into
// the compressed layout (CSR.Packed, byte offsets, PackedEdges). The
// counting pass is the same; then the rows are filled a range of buckets
// at a time, each range one fill pass over the source (every rank routes
// only the half-edges of rows in the range) whose rows are then sorted,
// deduplicated and coded into the packed bytes. The ranges are the same on
// every rank and as large as budget allows: budget is the bytes a rank may
// hold at once in packed rows, one range's uncompressed rows (4 bytes per
// half-edge, 8 above 2^32 vertices; the volume of a bucket being its
// largest over the ranks) and their packed bytes (estimated from the
// ranges before, the largest ratio over the ranks), so a range is cut
// after the previous one is packed, from the budget less the largest
// packed bytes of any rank; the first ranges, with little packed beside
// them, are the largest. A range holds at least 1/MaxPackedRanges of the
// volume (up to a bucket's end past it, so the budget is exceeded by at
// most that); budget < 1 fills every row in one pass. Memory per rank: the
// packed rows, reserved at a bound from the counted row lengths
// (packedRowBound; the reserve's untouched pages cost no memory), 8 bytes
// of offsets and 4 of TupleDegree per owned vertex, one range's
// uncompressed rows (released, with memstat.Release, before the next
// range's are allocated) and the round buffers. The source is read
// 1 + BuildStats.PackedRanges times: a fill pass costs about a quarter of
// the plain build (BenchmarkBuildPacked; the generator is 40 % of it), so
// the fewer ranges a larger budget gives are what makes kernel 1 fast.
func BuildPackedFrom(ctx context.Context, c comm.Comm, part partition.Block1D, src TupleSource, threads int, budget int64) (*CSR, BuildStats, error) {
	if err := checkPartition(part, c.Size()); err != nil {
		return nil, BuildStats{}, err
	}
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	if fitsCols32(part.N) {
		return buildPacked[uint32](ctx, c, part, src, threads, budget, 0)
	}
	return buildPacked[int64](ctx, c, part, src, threads, budget, 0)
}

// buildPacked is BuildPackedFrom with the range buffer's column type and,
// when chunk > 0, the tuples per round.
func buildPacked[C uint32 | int64](ctx context.Context, c comm.Comm, part partition.Block1D, src TupleSource, threads int, budget, chunk int64) (*CSR, BuildStats, error) {
	b := newBuilder1D[C](c, part, src, threads)
	if err := b.plan(ctx, chunk); err != nil {
		return nil, b.stats, err
	}
	b.degree = make([]uint32, b.nLocal)
	if err := b.pass(ctx, passCount); err != nil {
		return nil, b.stats, err
	}
	b.rowStarts()
	acc, err := b.bucketVolumes(ctx)
	if err != nil {
		return nil, b.stats, err
	}
	pk := packer{n: part.N, first: b.first}
	pk.reserve(b.degree, threads)
	nb := len(acc) - 1
	minVol := (acc[nb] + MaxPackedRanges - 1) / MaxPackedRanges
	cb := int64(unsafe.Sizeof(C(0)))
	for jLo := 0; jLo < nb; {
		room := acc[nb]
		if budget >= 1 {
			// The packed bytes written and, in 1/1024 bytes, those per unit
			// of volume (before any range, a guess above the Kronecker
			// graphs' 1.8 to 2.3 bytes per 4-byte entry), the largest over
			// the ranks: the range's rows and their packed bytes must fit
			// beside the packed bytes.
			done := min(jLo<<b.lay.bshift, b.nLocal)
			st := []int64{pk.at, 3 * cb << 10 / 4}
			if jLo > 0 && b.offsets[done] > 0 {
				st[1] = pk.at << 10 / b.offsets[done]
			}
			if err := b.c.AllreduceInt64(ctx, RoutePhasePlan, st, comm.Max); err != nil {
				return nil, b.stats, fmt.Errorf("graph: kernel 1 %s: %w", RoutePhasePlan, err)
			}
			room = max(minVol, (budget-st[0])<<10/(cb<<10+st[1]))
		}
		// The most buckets from jLo whose volume fits the room, and at
		// least those that reach minVol (so at most MaxPackedRanges ranges).
		jHi := jLo + sort.Search(nb-jLo, func(i int) bool { return acc[jLo+i+1]-acc[jLo] > room })
		jHi = max(jHi, jLo+1+sort.Search(nb-jLo-1, func(i int) bool { return acc[jLo+i+1]-acc[jLo] >= minVol }))
		if err := b.fillRange(ctx, jLo, jHi, &pk); err != nil {
			return nil, b.stats, err
		}
		b.stats.PackedRanges++
		jLo = jHi
	}
	b.cols = nil
	b.release()
	b.offsets[b.nLocal] = pk.at
	clear(pk.bytes[pk.at : pk.at+PackedPad]) // the slots' moves may have left bytes there
	g := &CSR{NumGlobal: part.N, FirstGlobal: b.first, NumLocal: b.nLocal, Offsets: b.offsets,
		Packed: pk.bytes[:pk.at+PackedPad], PackedEdges: pk.entries, TupleDegree: b.degree, SelfLoops: b.selfLoops}
	return g, b.stats, nil
}

// bucketVolumes returns the prefix sums of the buckets' volumes, the same
// on every rank: acc[j] is the volume of buckets [0, j), the volume of a
// bucket being its largest row volume over the ranks.
func (b *builder[C]) bucketVolumes(ctx context.Context) ([]int64, error) {
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
	return acc, nil
}

// fillRange fills, sorts, deduplicates and packs the rows of buckets
// [jLo, jHi).
func (b *builder[C]) fillRange(ctx context.Context, jLo, jHi int, pk *packer) error {
	shift := b.lay.bshift
	rLo := min(jLo<<shift, b.nLocal)
	rHi := min(jHi<<shift, b.nLocal)
	colBase := b.offsets[rLo]
	size := b.offsets[rHi] - colBase
	if b.cols != nil {
		// The previous range's buffer goes back to the system before this
		// one comes: the budget counts one range's rows.
		b.cols = nil
		memstat.Release()
	}
	b.cols = make([]C, size)
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
// range buffer (offsets[rHi] is colBase plus its length) and codes them
// after the bytes written, packBatch half-edges at a time. Row starts
// become byte offsets.
func packRange[C uint32 | int64](b *builder[C], pk *packer, rLo, rHi int, colBase int64) error {
	end := b.offsets[rHi]
	b.offsets[rHi] -= colBase // the range's end in its buffer, for the bounds
	defer func() { b.offsets[rHi] = end }()
	for lo := rLo; lo < rHi; {
		hi, vol := lo+1, int64(b.degree[lo])
		for ; hi < rHi && vol < packBatch; hi++ {
			vol += int64(b.degree[hi])
		}
		if err := packRows(b, pk, lo, hi); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// packRows codes the filled rows [rLo, rHi) of the range buffer
// (offsets[rHi] their end in it) after the bytes written: each thread codes
// a part of about equal volume into its slot (the part's bound), then the
// slots move down one after the other.
func packRows[C uint32 | int64](b *builder[C], pk *packer, rLo, rHi int) error {
	offsets, degree := b.offsets, b.degree
	nt := max(1, min(b.threads, (rHi-rLo)/1024))
	bounds := volumeBounds(offsets[rLo:rHi+1], nt)
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
