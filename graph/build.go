package graph

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// BuildStats describes one rank's kernel 1.
type BuildStats struct {
	Rounds      int              // exchange rounds of each pass
	ChunkTuples int64            // tuples this rank reads per round (the last may be shorter)
	ReadTime    [2]time.Duration // time spent in the source's Read: count pass, fill pass
}

// BuildUndirected is kernel 1 over tuples already in memory: it is
// BuildUndirectedFrom with an EdgeSlice source.
func BuildUndirected(ctx context.Context, c comm.Comm, part partition.Block1D, edges []Edge, threads int) (*CSR, error) {
	g, _, err := BuildUndirectedFrom(ctx, c, part, EdgeSlice(edges), threads)
	return g, err
}

// BuildUndirectedFrom is Graph500 kernel 1 for one rank: it turns the input
// tuples of every rank into the CSR of the vertices this rank owns under the
// 1D block partition part (paper 004 §III-B: rank i stores the row block A_i
// of the adjacency matrix; its neighbours are global ids). Every rank of c
// must call it with the same part; part.P must equal c.Size().
//
// The tuple list is never held whole. src is read twice, in rounds of a
// bounded chunk (chunkTuples): the counting pass routes the row of every
// half-edge (u→v to Owner(u), v→u to Owner(v); a self-loop (u,u) only counts
// at Owner(u)) and the owner counts its row lengths; it then allocates the
// columns exactly, and the filling pass routes every half-edge again with its
// neighbour, which the owner writes straight into its final slot (the row
// offsets serve as cursors). Each round is one Alltoallv (phases
// RoutePhaseCount and RoutePhaseFill, wire format in route.go: Rice-coded row
// gaps and ⌈log2 n⌉-bit neighbours, ≈ 3 bytes per half-edge at scale 22);
// half-edges for the rank itself never leave it. Rows are then sorted in
// descending order of neighbour id and deduplicated in place (TupleDegree
// keeps the row length before that), and the columns stored as Cols32 when
// part.N ≤ 2^32, as Cols64 otherwise. TupleDegree and SelfLoops let the
// driver count traversed edges as paper 004 §VII-B and Graph500 do: input
// tuples, duplicates and self-loops included.
//
// Memory per rank: the CSR at its final size before deduplication (one 4-
// or 8-byte column per half-edge, 8 bytes of offsets and 4 of TupleDegree
// per owned vertex) plus the round buffers (about 50 bytes per chunk tuple,
// reused by every round; BuildStats.PeakChunkBytes).
//
// Ids outside [0, part.N) are an error naming the tuple's index in the
// share, returned before the round's exchange, so the job aborts (the other
// ranks' exchange fails with comm.ErrAborted). A malformed or inconsistent
// message from a peer is an error naming it. threads goroutines share the
// local work (threads < 1 means GOMAXPROCS); no pass allocates, locks or
// calls through an interface per edge.
func BuildUndirectedFrom(ctx context.Context, c comm.Comm, part partition.Block1D, src TupleSource, threads int) (*CSR, BuildStats, error) {
	return buildUndirected(ctx, c, part, src, threads, !fitsCols32(part.N), 0)
}

// fitsCols32 reports whether every global id of an n-vertex graph fits in a
// uint32 column entry.
func fitsCols32(n int64) bool { return n <= 1<<32 }

// buildUndirected is BuildUndirectedFrom with the column width chosen by the
// caller (wide selects Cols64) and, when chunk > 0, the tuples per round, so
// tests can run the 64-bit path and many rounds on small graphs.
func buildUndirected(ctx context.Context, c comm.Comm, part partition.Block1D, src TupleSource, threads int, wide bool, chunk int64) (*CSR, BuildStats, error) {
	if err := checkPartition(part, c.Size()); err != nil {
		return nil, BuildStats{}, err
	}
	if !wide && !fitsCols32(part.N) {
		return nil, BuildStats{}, fmt.Errorf("graph: kernel 1: %d vertices do not fit 32-bit columns", part.N)
	}
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	if wide {
		return build[int64](ctx, c, part, src, threads, chunk)
	}
	return build[uint32](ctx, c, part, src, threads, chunk)
}

// checkPartition rejects a partition that BuildUndirected cannot use with p
// ranks (a literal Block1D need not come from partition.NewBlock1D).
func checkPartition(part partition.Block1D, p int) error {
	switch {
	case part.P != p:
		return fmt.Errorf("graph: kernel 1: partition is over %d ranks, the job has %d", part.P, p)
	case part.N < 1:
		return fmt.Errorf("graph: kernel 1: vertex count %d < 1", part.N)
	case part.Block < 64 || part.Block%64 != 0 || part.Block > 1<<32:
		return fmt.Errorf("graph: kernel 1: block of %d vertices is not a multiple of 64 that fits uint32 local ids", part.Block)
	case (part.N-1)/part.Block >= int64(p):
		return fmt.Errorf("graph: kernel 1: %d ranks of %d vertices do not cover %d vertices", p, part.Block, part.N)
	}
	return nil
}

// Chunk bounds, in tuples per round: a rank's share is read in about
// chunkRounds rounds, each of at least minChunk and at most maxChunk tuples
// (50 MB of round buffers), so that the buffers stay a small fraction of
// the CSR they build.
const (
	chunkRounds = 32
	minChunk    = 1 << 14
	maxChunk    = 1 << 20
)

// chunkTuples is the chunk size for a largest share of maxShare tuples.
func chunkTuples(maxShare int64) int64 {
	return max(1, min(maxShare, max(minChunk, min(maxChunk, maxShare/chunkRounds))))
}

// maxColumnBytes bounds one rank's column array (Go's heap allocates at
// most 2^48 bytes in one piece on 64-bit systems).
const maxColumnBytes = 1 << 47

// Passes of kernel 1.
const (
	passCount = 0
	passFill  = 1
)

// builder is one rank's kernel 1 in progress.
type builder[C uint32 | int64] struct {
	c       comm.Comm
	lay     routeLayout
	rank    int
	threads int
	src     TupleSource
	rounds  int
	keys    int // destinations × buckets

	// Round buffers, reused by every round of both passes.
	edges    []Edge
	recs     []uint64 // the round's half-edges, grouped by (destination, bucket)
	counts   []int    // per thread and key, then the thread's cursors
	keyStart []int    // key k's records are recs[keyStart[k]:keyStart[k+1]]
	loops    []int64  // per thread and destination: self-loop tuples
	bad      []int64  // per thread: first invalid tuple, or −1
	segK     []uint8  // per key: the Rice parameter of its segment
	segSize  []int    // per key: the segment's bytes (remote destinations)
	segOff   []int    // per key: the segment's offset in its message
	send     [][]byte
	recv     [][]byte
	segs     [][]segRef   // per source: its message's segments
	sorters  []rowSorter  // per thread
	errs     []error      // per thread
	next     atomic.Int64 // work queue of the parallel passes

	// This rank's rows.
	first     int64          // 1D: global id of row 0
	nLocal    int            // rows
	grid      *recordChecker // 2D: checks received entries (nil in 1D)
	degree    []uint32       // TupleDegree: row lengths counted by the first pass
	offsets   []int64        // row starts; cursors during the fill pass
	cols      []C
	selfLoops int64

	stats BuildStats
}

func build[C uint32 | int64](ctx context.Context, c comm.Comm, part partition.Block1D, src TupleSource, threads int, chunk int64) (*CSR, BuildStats, error) {
	rank := c.Rank()
	b := &builder[C]{
		c: c, lay: newRouteLayout1D(part), rank: rank, threads: threads, src: src,
		first: part.First(rank), nLocal: part.Count(rank),
	}
	if err := b.run(ctx, chunk); err != nil {
		return nil, b.stats, err
	}
	g := &CSR{NumGlobal: part.N, FirstGlobal: b.first, NumLocal: b.nLocal,
		Offsets: b.offsets, TupleDegree: b.degree, SelfLoops: b.selfLoops}
	switch cols := any(b.cols).(type) {
	case []uint32:
		g.Cols32 = cols
	case []int64:
		g.Cols64 = cols
	}
	return g, b.stats, nil
}

// run builds the rows: both passes, then sorted, deduplicated rows.
func (b *builder[C]) run(ctx context.Context, chunk int64) error {
	if err := b.plan(ctx, chunk); err != nil {
		return err
	}
	b.degree = make([]uint32, b.nLocal)
	if err := b.pass(ctx, passCount); err != nil {
		return err
	}
	total := b.rowStarts()
	if total > maxColumnBytes/int64(unsafe.Sizeof(C(0))) {
		return fmt.Errorf("graph: kernel 1: rank %d would store %d adjacency entries, more than one array can hold", b.rank, total)
	}
	b.cols = make([]C, total)
	if err := b.pass(ctx, passFill); err != nil {
		return err
	}
	b.release()
	if err := b.checkFilled(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("graph: kernel 1: %w", err)
	}
	b.sortRows()
	return nil
}

// plan agrees with the other ranks on the number of rounds (every rank calls
// the same number of exchanges) and allocates the round buffers.
func (b *builder[C]) plan(ctx context.Context, chunk int64) error {
	share := b.src.Len()
	if share < 0 {
		return fmt.Errorf("graph: kernel 1: tuple source of negative length %d", share)
	}
	largest := []int64{share}
	if err := b.c.AllreduceInt64(ctx, RoutePhasePlan, largest, comm.Max); err != nil {
		return fmt.Errorf("graph: kernel 1 %s: %w", RoutePhasePlan, err)
	}
	if largest[0] == 0 {
		return nil // no tuples anywhere: no rounds
	}
	if chunk <= 0 {
		chunk = chunkTuples(largest[0])
	}
	b.rounds = int((largest[0] + chunk - 1) / chunk)
	mine := (share + int64(b.rounds) - 1) / int64(b.rounds)
	b.stats.Rounds, b.stats.ChunkTuples = b.rounds, mine
	p, nb := b.lay.p, b.lay.nb
	b.keys = p * nb
	b.edges = make([]Edge, mine)
	b.recs = make([]uint64, 2*mine)
	b.counts = make([]int, b.threads*b.keys)
	b.keyStart = make([]int, b.keys+1)
	b.loops = make([]int64, b.threads*p)
	b.bad = make([]int64, b.threads)
	b.segK = make([]uint8, b.keys)
	b.segSize = make([]int, b.keys)
	b.segOff = make([]int, b.keys)
	b.send = make([][]byte, p)
	b.segs = make([][]segRef, p)
	for s := range b.segs {
		b.segs[s] = make([]segRef, nb)
	}
	b.sorters = make([]rowSorter, b.threads)
	b.errs = make([]error, b.threads)
	return nil
}

// release drops the round buffers.
func (b *builder[C]) release() {
	b.edges, b.recs, b.counts, b.send, b.recv, b.sorters = nil, nil, nil, nil, nil, nil
}

// pass runs every round of one pass.
func (b *builder[C]) pass(ctx context.Context, pass int) error {
	phase := RoutePhaseCount
	if pass == passFill {
		phase = RoutePhaseFill
	}
	share := b.src.Len()
	for r := range b.rounds {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("graph: kernel 1: %w", err)
		}
		lo := share * int64(r) / int64(b.rounds)
		hi := share * int64(r+1) / int64(b.rounds)
		edges := b.edges[:hi-lo]
		t0 := time.Now()
		if err := b.src.Read(ctx, lo, edges); err != nil {
			return fmt.Errorf("graph: kernel 1: reading tuples [%d, %d): %w", lo, hi, err)
		}
		b.stats.ReadTime[pass] += time.Since(t0)
		if err := b.place(edges, lo); err != nil {
			return err
		}
		b.encode(pass)
		recv, err := b.c.Alltoallv(ctx, phase, b.send, b.recv)
		if err != nil {
			return fmt.Errorf("graph: kernel 1 %s exchange: %w", phase, err)
		}
		b.recv = recv
		if err := b.receive(pass); err != nil {
			return err
		}
	}
	return nil
}

// place checks a round's tuples and groups their half-edges by key
// (destination × bucket) in recs: a counting pass per thread, prefix sums
// (key-major, then thread), and a placing pass. first is the index of
// edges[0] in the share, for error messages.
func (b *builder[C]) place(edges []Edge, first int64) error {
	lay := &b.lay
	p, nb, keys := lay.p, lay.nb, b.keys
	nt := max(1, min(b.threads, len(edges)/1024))
	n := uint64(lay.n)
	block := uint64(lay.block)
	bshift, w := lay.bshift, lay.w
	oneD := b.grid == nil
	clear(b.counts[:nt*keys])
	clear(b.loops[:nt*p])
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(len(edges), t, nt)
		cnt := b.counts[t*keys : (t+1)*keys]
		loops := b.loops[t*p : (t+1)*p]
		b.bad[t] = -1
		for i := lo; i < hi; i++ {
			u, v := uint64(edges[i].U), uint64(edges[i].V)
			if u >= n || v >= n {
				b.bad[t] = int64(i)
				return
			}
			ku := lay.div.div(u)
			if u == v {
				loops[ku]++ // at the owner, in 1D and 2D
				continue
			}
			kv := lay.div.div(v)
			if oneD { // dispatched per round: the table lookups cost a third of the loop
				cnt[int(ku)*nb+int((u-ku*block)>>bshift)]++
				cnt[int(kv)*nb+int((v-kv*block)>>bshift)]++
				continue
			}
			cnt[(lay.destRow[ku]+lay.destCol[kv])*nb+int((u-lay.rowFirst[ku])>>bshift)]++
			cnt[(lay.destRow[kv]+lay.destCol[ku])*nb+int((v-lay.rowFirst[kv])>>bshift)]++
		}
	})
	for _, i := range b.bad[:nt] {
		if i >= 0 {
			e := edges[i]
			return fmt.Errorf("graph: kernel 1: tuple %d (%d,%d): vertex id outside [0,%d)", first+i, e.U, e.V, lay.n)
		}
	}
	// Counts become cursors: key-major, then thread.
	off := 0
	for k := range keys {
		b.keyStart[k] = off
		for t := range nt {
			c := b.counts[t*keys+k]
			b.counts[t*keys+k] = off
			off += c
		}
	}
	b.keyStart[keys] = off
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
			if oneD {
				lu, lv := u-ku*block, v-kv*block
				keyU := int(ku)*nb + int(lu>>bshift)
				recs[cur[keyU]] = (lu&rowMask)<<w | v
				cur[keyU]++
				keyV := int(kv)*nb + int(lv>>bshift)
				recs[cur[keyV]] = (lv&rowMask)<<w | u
				cur[keyV]++
				continue
			}
			ru, rv := u-lay.rowFirst[ku], v-lay.rowFirst[kv] // rows at the destinations
			cu := lay.colBase[ku] + (u - ku*block)           // values at the destinations
			cv := lay.colBase[kv] + (v - kv*block)
			keyU := (lay.destRow[ku]+lay.destCol[kv])*nb + int(ru>>bshift)
			recs[cur[keyU]] = (ru&rowMask)<<w | cv
			cur[keyU]++
			keyV := (lay.destRow[kv]+lay.destCol[ku])*nb + int(rv>>bshift)
			recs[cur[keyV]] = (rv&rowMask)<<w | cu
			cur[keyV]++
		}
	})
	// Self-loop counts per destination, summed over threads.
	for t := 1; t < nt; t++ {
		for d := range p {
			b.loops[d] += b.loops[t*p+d]
		}
	}
	return nil
}

// encode sorts every remote key's records by row and writes one message per
// remote destination (route.go's format) into b.send.
func (b *builder[C]) encode(pass int) {
	lay := &b.lay
	p, nb := lay.p, lay.nb
	nbrBits := uint(0)
	if pass == passFill {
		nbrBits = lay.w
	}
	// Sort and size every remote segment.
	b.parallelItems(b.keys, func(t, k int) error {
		recs := b.recs[b.keyStart[k]:b.keyStart[k+1]]
		b.segSize[k] = 0
		if k/nb == b.rank || len(recs) == 0 {
			return nil
		}
		b.sorters[t].sort(recs, lay.w)
		kk, size := segmentSize(recs, lay.w, nbrBits)
		b.segK[k], b.segSize[k] = uint8(kk), size
		return nil
	})
	// Headers, and the segments' places.
	for d := range p {
		b.send[d] = b.send[d][:0]
		if d == b.rank {
			continue
		}
		keys := b.keyStart[d*nb : (d+1)*nb+1]
		loops := int64(0)
		if pass == passCount {
			loops = b.loops[d]
		}
		if keys[nb] == keys[0] && loops == 0 {
			continue // nothing for d: an empty message
		}
		msg := binary.AppendUvarint(b.send[d], uint64(loops))
		total := 0
		for j := range nb {
			k := d*nb + j
			e := keys[j+1] - keys[j]
			msg = binary.AppendUvarint(msg, uint64(e))
			if e > 0 {
				msg = binary.AppendUvarint(msg, uint64(b.segSize[k]))
				b.segOff[k] = total
				total += b.segSize[k]
			}
		}
		h := len(msg)
		msg = slices.Grow(msg, total)[:h+total]
		for j := range nb {
			b.segOff[d*nb+j] += h
		}
		b.send[d] = msg
	}
	// Encode every remote segment in place.
	b.parallelItems(b.keys, func(_, k int) error {
		d := k / nb
		if d != b.rank && b.keyStart[k] != b.keyStart[k+1] {
			seg := b.send[d][b.segOff[k] : b.segOff[k]+b.segSize[k]]
			encodeSegment(seg, b.recs[b.keyStart[k]:b.keyStart[k+1]], lay.w, uint(b.segK[k]), nbrBits)
		}
		return nil
	})
}

// parallelItems calls fn(t, i) for every item i in [0, n), on b.threads
// goroutines t that take the items in turn (the work per item is skewed);
// it returns the errors, a thread stopping at its first.
func (b *builder[C]) parallelItems(n int, fn func(t, i int) error) error {
	clear(b.errs)
	b.next.Store(0)
	parallel.For(b.threads, func(t int) {
		for {
			i := int(b.next.Add(1) - 1)
			if i >= n {
				return
			}
			if err := fn(t, i); err != nil {
				b.errs[t] = err
				return
			}
		}
	})
	return errors.Join(b.errs...)
}

// rowSorter sorts a bucket's records by their row offset (the bits above
// w) with an LSD radix sort of the row bits, keeping its buffers between
// calls. A bucket holds about as many records as rows at chunk density, so
// the digits are as wide as about 4× the records (at most 16 bits): one
// counting pass usually sorts it.
type rowSorter struct {
	tmp []uint64
	cnt []uint32
}

func (rs *rowSorter) sort(recs []uint64, w uint) {
	if len(recs) < 48 {
		slices.Sort(recs) // row above the value: value order is row order
		return
	}
	var diff uint64
	f := recs[0] >> w
	for _, r := range recs {
		diff |= (r >> w) ^ f
	}
	if diff == 0 {
		return
	}
	rowBits := uint(bits.Len64(diff))
	maxDigit := min(16, max(11, uint(bits.Len(4*uint(len(recs))))))
	passes := (rowBits + maxDigit - 1) / maxDigit
	digit := (rowBits + passes - 1) / passes
	if cap(rs.tmp) < len(recs) {
		rs.tmp = make([]uint64, len(recs)+len(recs)/2)
	}
	if len(rs.cnt) < 1<<digit {
		rs.cnt = make([]uint32, 1<<digit)
	}
	src, dst := recs, rs.tmp[:len(recs)]
	mask := uint64(1)<<digit - 1
	for sh := w; sh < w+rowBits; sh += digit {
		c := rs.cnt[:1<<digit]
		clear(c)
		for _, r := range src {
			c[(r>>sh)&mask]++
		}
		var sum uint32
		for i, x := range c {
			c[i] = sum
			sum += x
		}
		for _, r := range src {
			d := (r >> sh) & mask
			dst[c[d]] = r
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &recs[0] {
		copy(recs, src)
	}
}

// receive applies a round's half-edges: the rank's own records and every
// received message, bucket by bucket, a thread owning a bucket's rows.
func (b *builder[C]) receive(pass int) error {
	lay := &b.lay
	nb := lay.nb
	nbrBits := uint(0)
	if pass == passFill {
		nbrBits = lay.w
	}
	for s, msg := range b.recv {
		if s == b.rank || len(msg) == 0 {
			clear(b.segs[s])
			continue
		}
		loops, err := parseRouteHeader(msg, b.segs[s], nbrBits)
		if err != nil {
			return fmt.Errorf("graph: kernel 1: message from rank %d: %w", s, err)
		}
		if pass == passFill && loops != 0 {
			return fmt.Errorf("graph: kernel 1: message from rank %d: %w: self-loops in the fill pass", s, errRoute)
		}
		b.selfLoops += loops
	}
	if pass == passCount {
		b.selfLoops += b.loops[b.rank]
	}
	buckets := int((int64(b.nLocal) + int64(lay.rowCap) - 1) >> lay.bshift)
	return b.parallelItems(nb, func(_, j int) error { return b.receiveBucket(pass, j, buckets, nbrBits) })
}

// receiveBucket applies bucket j's half-edges of this round.
func (b *builder[C]) receiveBucket(pass, j, buckets int, nbrBits uint) error {
	lay := &b.lay
	k := b.rank*lay.nb + j
	own := b.recs[b.keyStart[k]:b.keyStart[k+1]]
	if j >= buckets {
		// No rows here; only a malformed message has entries.
		for s := range b.recv {
			if s != b.rank && b.segs[s][j].entries > 0 {
				return fmt.Errorf("graph: kernel 1: message from rank %d: %w: entries for bucket %d beyond the rank's %d rows", s, errRoute, j, b.nLocal)
			}
		}
		return nil
	}
	base := uint64(j) << lay.bshift
	rows := min(lay.rowCap, uint64(b.nLocal)-base)
	w := lay.w
	nmask := uint64(1)<<w - 1
	if pass == passCount {
		deg := b.degree[base : base+rows]
		for _, r := range own {
			l := r >> w
			if deg[l] == math.MaxUint32 {
				return b.degreeOverflow(base + l)
			}
			deg[l]++
		}
	} else {
		cur := b.offsets[base : base+rows]
		for _, r := range own {
			l := r >> w
			x := cur[l]
			if x >= int64(len(b.cols)) {
				return fmt.Errorf("graph: kernel 1: the tuple source gave rank %d more half-edges on its second reading than on its first", b.rank)
			}
			b.cols[x] = ^C(r & nmask)
			cur[l] = x + 1
		}
	}
	for s := range b.recv {
		ref := b.segs[s][j]
		if s == b.rank || ref.entries == 0 {
			continue
		}
		var err error
		seg := b.recv[s][ref.off : ref.off+ref.size]
		if pass == passCount {
			err = b.countSegment(seg, ref.entries, base, rows)
		} else {
			err = b.fillSegment(seg, ref.entries, base, rows)
		}
		if err != nil {
			return fmt.Errorf("graph: kernel 1: message from rank %d, bucket %d: %w", s, j, err)
		}
	}
	return nil
}

func (b *builder[C]) degreeOverflow(l uint64) error {
	return fmt.Errorf("graph: kernel 1: vertex %d of rank %d has more half-edges than a uint32 TupleDegree holds",
		b.first+int64(l), b.rank)
}

// countSegment adds a segment's rows to the row lengths of bucket rows
// [base, base+rows).
func (b *builder[C]) countSegment(seg []byte, entries int, base, rows uint64) error {
	d, err := newSegmentDecoder(seg, entries, b.lay.rowCap, 0)
	if err != nil {
		return err
	}
	deg := b.degree[base : base+rows]
	var ls, vs [decodeBatchSize]uint64
	for d.left > 0 {
		k, err := d.decodeBatch(ls[:], vs[:])
		if err != nil {
			return err
		}
		for _, l := range ls[:k] {
			if l >= rows {
				return fmt.Errorf("%w: row %d beyond the rank's rows", errRoute, base+l)
			}
			if deg[l] == math.MaxUint32 {
				return b.degreeOverflow(base + l)
			}
			deg[l]++
		}
	}
	return d.done()
}

// decodeBatchSize is how many entries a received segment is decoded by at
// a time: a batch stays in the first-level cache.
const decodeBatchSize = 256

// fillSegment writes a segment's neighbours into their rows' next slots.
func (b *builder[C]) fillSegment(seg []byte, entries int, base, rows uint64) error {
	d, err := newSegmentDecoder(seg, entries, b.lay.rowCap, b.lay.w)
	if err != nil {
		return err
	}
	cur := b.offsets[base : base+rows]
	n := uint64(b.lay.n)
	first := uint64(b.first) + base
	var ls, vs [decodeBatchSize]uint64
	for d.left > 0 {
		k, err := d.decodeBatch(ls[:], vs[:])
		if err != nil {
			return err
		}
		for e, l := range ls[:k] {
			v := vs[e]
			if b.grid != nil { // 2D: a local column of an existing vertex, not the row's own
				if l >= rows || v >= 1<<32 {
					return fmt.Errorf("%w: entry (%d,%d) out of range", errRoute, base+l, v)
				}
				if ok, loop := b.grid.check(uint32(base+l), uint32(v)); !ok || loop {
					return fmt.Errorf("%w: entry (%d,%d) is out of range or a self-loop", errRoute, base+l, v)
				}
			} else if l >= rows || v >= n || v == first+l {
				return fmt.Errorf("%w: half-edge (%d,%d) is out of range or a self-loop", errRoute, first+l, v)
			}
			// The fill pass must repeat the count pass; a row that gets more
			// half-edges than it counted runs into the next row, which
			// checkFilled reports, or past the end, caught here.
			x := cur[l]
			if x >= int64(len(b.cols)) {
				return fmt.Errorf("%w: more half-edges than the counting pass announced", errRoute)
			}
			b.cols[x] = ^C(v)
			cur[l] = x + 1
		}
	}
	return d.done()
}

// rowStarts turns the row lengths into row starts (offsets[v], and
// offsets[nLocal] = the total) and returns the total.
func (b *builder[C]) rowStarts() int64 {
	n := b.nLocal
	b.offsets = make([]int64, n+1)
	nt := max(1, min(b.threads, n/4096))
	chunk := make([]int64, nt+1)
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(n, t, nt)
		var acc int64
		for v := lo; v < hi; v++ {
			b.offsets[v] = acc
			acc += int64(b.degree[v])
		}
		chunk[t+1] = acc
	})
	for t := range nt {
		chunk[t+1] += chunk[t]
	}
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(n, t, nt)
		for v := lo; v < hi; v++ {
			b.offsets[v] += chunk[t]
		}
	})
	b.offsets[n] = chunk[nt]
	return chunk[nt]
}

// checkFilled checks that the fill pass wrote exactly the counted half-edges
// of every row (each cursor ends where the next row starts) and turns the
// cursors back into row starts.
func (b *builder[C]) checkFilled() error {
	n := b.nLocal
	var end int64
	for v := range n {
		end += int64(b.degree[v])
		if b.offsets[v] != end {
			return fmt.Errorf("graph: kernel 1: %w: row of vertex %d filled to %d, counted %d",
				errRoute, b.first+int64(v), b.offsets[v]-(end-int64(b.degree[v])), b.degree[v])
		}
	}
	copy(b.offsets[1:], b.offsets[:n])
	b.offsets[0] = 0
	return nil
}

// sortRows sorts every row in descending order and removes duplicates, then
// compacts the rows in place: each thread first packs its rows to the start
// of its range, then the ranges move down one after the other.
func (b *builder[C]) sortRows() {
	n := b.nLocal
	offsets, cols := b.offsets, b.cols
	ns := max(1, min(b.threads, n))
	bounds := volumeBounds(offsets, ns)
	kept := make([]int64, ns) // per thread: entries kept
	parallel.For(ns, func(t int) {
		var scratch []C
		dst := offsets[bounds[t]]
		for v := bounds[t]; v < bounds[t+1]; v++ {
			row := cols[offsets[v]:offsets[v+1]]
			if len(row) >= radixMin && len(scratch) < len(row) {
				scratch = make([]C, len(row)+len(row)/4)
			}
			k := sortDedupe(row, scratch)
			d := cols[dst : dst+int64(k)]
			for i, x := range row[:k] {
				d[i] = ^x
			}
			if v > bounds[t] { // the first row stays where it is
				offsets[v] = dst // the row's start within the thread's packed range
			}
			dst += int64(k)
		}
		kept[t] = dst - offsets[bounds[t]]
	})
	// Move the packed ranges down; ranges are handled in order, so a range
	// only moves over space its predecessors have left.
	var at int64
	for t := range ns {
		lo := bounds[t]
		if lo == bounds[t+1] {
			continue
		}
		from := offsets[lo]
		copy(cols[at:at+kept[t]], cols[from:from+kept[t]])
		shift := from - at
		if shift != 0 {
			for v := lo; v < bounds[t+1]; v++ {
				offsets[v] -= shift
			}
		}
		at += kept[t]
	}
	offsets[n] = at
	b.cols = cols[:at:at]
}

// divider divides ids in [0, n) by a fixed block size d with a multiply and
// a shift instead of a hardware division (Granlund and Montgomery, "Division
// by invariant integers using multiplication", PLDI 1994, Thm. 4.2): with
// l = ⌈log2 d⌉, any N such that every dividend is < 2^N, and
// m = ⌊2^(N+l)/d⌋ + 1 (so that 2^(N+l) < m·d ≤ 2^(N+l) + 2^l),
// ⌊u/d⌋ = ⌊u·m / 2^(N+l)⌋. Taking N = max(bits(n-1), 64-l) makes N+l ≥ 64,
// so the quotient is the high word of the 128-bit product shifted right by
// N+l-64. It needs 64 ≤ d ≤ 2^32 (checkPartition) and n ≤ 2^63: then N ≤ 63,
// 2^(N+l-64) < d as bits.Div64 requires, and m < 2^64.
type divider struct {
	m  uint64
	sh uint
}

func newDivider(d, n uint64) divider {
	l := bits.Len64(d - 1)
	nb := max(bits.Len64(n-1), 64-l)
	sh := uint(nb + l - 64)
	q, _ := bits.Div64(1<<sh, 0, d) // ⌊2^(nb+l) / d⌋
	return divider{m: q + 1, sh: sh}
}

// div returns u / d.
func (v divider) div(u uint64) uint64 {
	hi, _ := bits.Mul64(u, v.m)
	return hi >> v.sh
}

// volumeBounds splits rows [0, len(offsets)-1) into parts ranges of about
// equal edge volume: part t is rows [b[t], b[t+1]).
func volumeBounds(offsets []int64, parts int) []int {
	nrows := len(offsets) - 1
	total := offsets[nrows]
	b := make([]int, parts+1)
	for t := 1; t < parts; t++ {
		target := int64(float64(total) * float64(t) / float64(parts))
		b[t] = sort.Search(nrows, func(v int) bool { return offsets[v] >= target })
	}
	b[parts] = nrows
	return b
}

// radixMin is the row length from which sortDedupe uses a radix sort: below
// it slices.Sort (insertion sort and pdqsort) is faster. Measured on rows of
// random 20-bit ids, ns per entry, pdqsort vs radix: 44 vs 56 at 32 entries,
// 46 vs 30 at 64, 64 vs 18 at 256, 101 vs 15 at 8192.
const radixMin = 64

// sortDedupe sorts row ascending, moves its distinct values to the front and
// returns their count. scratch must hold len(row) entries when len(row) ≥
// radixMin. All entries of row must have the same sign (they are complemented
// non-negative ids, see assemble), so their order is their unsigned order.
func sortDedupe[C uint32 | int64](row, scratch []C) int {
	if len(row) < 2 {
		return len(row)
	}
	if len(row) < radixMin {
		slices.Sort(row)
	} else {
		radixSort(row, scratch[:len(row)])
	}
	k := 1
	for _, x := range row[1:] {
		if x != row[k-1] {
			row[k] = x
			k++
		}
	}
	return k
}

// radixSort sorts row ascending by an LSD radix sort on bytes, using tmp
// (len(tmp) == len(row)) as the other buffer. Bytes in which all entries
// agree (the high bytes of ids far below 2^32 or 2^64) are skipped. Entries
// must share their sign bit. (Counting every byte position in one pass, or
// 10- and 11-bit digits, measured slower on rows of 64 to 65536 ids.)
func radixSort[C uint32 | int64](row, tmp []C) {
	var diff C
	f := row[0]
	for _, x := range row {
		diff |= x ^ f
	}
	src, dst := row, tmp
	for shift := 0; diff>>shift != 0; shift += 8 {
		if byte(diff>>shift) == 0 {
			continue
		}
		var cnt [256]int
		for _, x := range src {
			cnt[byte(x>>shift)]++
		}
		sum := 0
		for i, c := range cnt {
			cnt[i] = sum
			sum += c
		}
		for _, x := range src {
			d := byte(x >> shift)
			dst[cnt[d]] = x
			cnt[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &row[0] {
		copy(row, src)
	}
}

// rowOffsets turns the per-thread row counts cnt[t][v] into the row lengths
// (degree, the TupleDegree before deduplication), the row offsets, and, in
// place, every thread's absolute scatter cursors: thread t writes its
// half-edges of row v from offsets[v] + Σ_{t'<t} cnt[t'][v] on, so the scatter
// needs no atomics. Vertices are split among nt threads; a second parallel
// pass adds each chunk's base once the chunk totals are known.
func rowOffsets(cnt [][]int64, nLocal, rank, nt int) ([]uint32, []int64, error) {
	degree := make([]uint32, nLocal)
	offsets := make([]int64, nLocal+1)
	chunk := make([]int64, nt+1) // chunk[t+1]: half-edges of vertex chunk t, then prefix sums
	errs := make([]error, nt)
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(nLocal, t, nt)
		var acc int64
		for v := lo; v < hi; v++ {
			var sum int64
			for _, c := range cnt {
				k := c[v]
				c[v] = sum
				sum += k
			}
			if sum > math.MaxUint32 {
				errs[t] = fmt.Errorf("graph: kernel 1: vertex %d of rank %d has %d half-edges, more than a uint32 TupleDegree holds",
					v, rank, sum)
				return
			}
			degree[v] = uint32(sum)
			offsets[v] = acc // relative to the chunk for now
			acc += sum
		}
		chunk[t+1] = acc
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	for t := range nt {
		chunk[t+1] += chunk[t]
	}
	offsets[nLocal] = chunk[nt]
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(nLocal, t, nt)
		base := chunk[t]
		for v := lo; v < hi; v++ {
			o := offsets[v] + base
			offsets[v] = o
			for _, c := range cnt {
				c[v] += o
			}
		}
	})
	return degree, offsets, nil
}
