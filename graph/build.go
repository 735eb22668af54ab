package graph

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
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
	ReadTime    [2]time.Duration // time spent in the source's Read: count pass, fill pass(es)
	// PackedRanges is the number of fill passes of the compressed build
	// (BuildPackedFrom), each over a range of rows; 0 for the plain build.
	PackedRanges int
}

// BuildUndirected is kernel 1 over tuples already in memory: it is
// BuildUndirectedFrom with an EdgeSlice source.
func BuildUndirected(ctx context.Context, c comm.Comm, part partition.Block1D, edges []Edge, threads int) (*CSR, error) {
	g, _, err := BuildUndirectedFrom(ctx, c, part, EdgeSlice(edges), threads)
	return g, err
}

// BuildUndirectedFrom is Graph500 kernel 1 for one rank: it turns the input
// tuples of every rank into the CSR of the vertices this rank owns under the
// 1D block partition part (Lv et al. §III-B: rank i stores the row block A_i
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
// driver count traversed edges as Lv et al. §VII-B and Graph500 do: input
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

	// The fill pass of the compressed build (build_packed.go) fills the rows
	// of a range of buckets at a time: senders send, and receivers apply,
	// only the half-edges of rows in buckets [bLo, bLo+bSpan) (a test per
	// bucket, not per half-edge), whose cursors then index cols, the
	// range's buffer. The plain build (ranged false) fills every row.
	ranged     bool
	bLo, bSpan uint64

	stats BuildStats
}

func build[C uint32 | int64](ctx context.Context, c comm.Comm, part partition.Block1D, src TupleSource, threads int, chunk int64) (*CSR, BuildStats, error) {
	b := newBuilder1D[C](c, part, src, threads)
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

// newBuilder1D is the builder of rank c.Rank()'s rows of part, filling
// every row in one pass.
func newBuilder1D[C uint32 | int64](c comm.Comm, part partition.Block1D, src TupleSource, threads int) *builder[C] {
	rank := c.Rank()
	return &builder[C]{
		c: c, lay: newRouteLayout1D(part), rank: rank, threads: threads, src: src,
		first: part.First(rank), nLocal: part.Count(rank),
	}
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
	if b.ranged {
		return b.placeRange(edges, first) // the compressed build's fill pass
	}
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

// countsToCursors reports the round's first tuple outside the graph, if a
// thread of place found one, and turns the nt threads' counts per key into
// their cursors in recs (key-major, then thread) and the keys' starts.
func (b *builder[C]) countsToCursors(edges []Edge, first int64, nt int) error {
	for _, i := range b.bad[:nt] {
		if i >= 0 {
			e := edges[i]
			return fmt.Errorf("graph: kernel 1: tuple %d (%d,%d): vertex id outside [0,%d)", first+i, e.U, e.V, b.lay.n)
		}
	}
	keys := b.keys
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
		if k/nb == b.rank || len(recs) == 0 || b.skipBucket(pass, k%nb) {
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
			if b.skipBucket(pass, j) {
				e = 0
			}
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
		if d != b.rank && b.keyStart[k] != b.keyStart[k+1] && !b.skipBucket(pass, k%nb) {
			seg := b.send[d][b.segOff[k] : b.segOff[k]+b.segSize[k]]
			encodeSegment(seg, b.recs[b.keyStart[k]:b.keyStart[k+1]], lay.w, uint(b.segK[k]), nbrBits)
		}
		return nil
	})
}

// skipBucket reports whether a pass leaves bucket j's rows out: a ranged
// fill pass, those outside its range.
func (b *builder[C]) skipBucket(pass, j int) bool {
	return b.ranged && pass == passFill && uint64(j)-b.bLo >= b.bSpan
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
