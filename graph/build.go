package graph

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// RoutePhase is the comm phase name of kernel 1's single edge exchange.
const RoutePhase = "kernel1.route"

// RecordSize is the size in bytes of one routed half-edge on the wire.
//
// Wire format of a kernel1.route message: a plain concatenation of records,
// each
//
//	bytes 0..3   uint32, little endian: local id (at the receiving rank) of the
//	             row vertex u
//	bytes 4..11  int64, little endian: global id of the neighbour v
//
// meaning "u has neighbour v". A record whose neighbour is the row vertex
// itself marks one self-loop tuple at u: it is counted in CSR.SelfLoops and
// never stored as adjacency. A message has no header; its record count is its
// length divided by RecordSize.
const RecordSize = 12

// BuildUndirected is Graph500 kernel 1 for one rank: it turns the input tuples
// held by every rank into the CSR of the vertices this rank owns under the 1D
// block partition part (paper 004 §III-B: rank i stores the row block A_i of
// the adjacency matrix; its neighbours are global ids). Every rank of c must
// call it with the same part; part.P must equal c.Size().
//
// edges is this rank's share of the tuples. A tuple (u,v) with u ≠ v is one
// undirected edge: half-edge u→v is sent to Owner(u) and v→u to Owner(v) in a
// single Alltoallv (phase RoutePhase; wire format at RecordSize). A self-loop
// (u,u) sends one marker record to Owner(u), so SelfLoops is exact for any rank
// count. Ids outside [0, part.N) are an error naming the tuple's index in
// edges; since the error is returned before the exchange, the job aborts (the
// other ranks' Alltoallv fails with comm.ErrAborted).
//
// The owner sorts every row in descending order of neighbour id, removes
// duplicates (TupleDegree keeps the row length before that) and stores the
// columns as Cols32 when part.N ≤ 2^32, as Cols64 otherwise. TupleDegree and
// SelfLoops let the driver count traversed edges as paper 004 §VII-B and
// Graph500 do: input tuples, duplicates and self-loops included.
//
// threads goroutines share the local work (threads < 1 means GOMAXPROCS);
// no pass allocates, locks or calls through an interface per edge. The sender
// makes two passes over edges: count the records per (thread, destination,
// row bucket), then fill one exactly sized buffer per destination, grouped by
// row bucket so that the receiver works on cache-sized windows of rows. The
// receiver counts row lengths in per-thread arrays, prefix-sums them into
// Offsets and per-thread cursors, scatters the columns without atomics, sorts
// and deduplicates the rows (insertion sort/pdqsort for short rows, radix sort
// for long ones; rows split among threads by edge volume, not vertex count,
// since degrees are skewed) and compacts them into exactly sized arrays.
//
// edges is not used once it is encoded, so a caller that holds no other
// reference to it lets the garbage collector reclaim the tuples during the
// exchange. Memory per input tuple with u ≠ v, averaged over ranks and not
// counting edges itself: while the exchange runs, 24 bytes of send buffers and 24 of
// receive buffers (48 B: the peak, as the in-process transport copies); the
// send buffers are then dropped. While scattering: the receive buffers, the
// unsorted columns (8 B, or 16 B with Cols64) and the per-thread cursors
// (8 bytes per owned vertex and counting thread; the number of counting
// threads is capped so that they take at most a quarter of the receive
// buffers, 6 B): at most 38 B (46 B). Each receive buffer is dropped after
// the scatter; while compacting, the unsorted and the final columns take at
// most 16 B (32 B). The CSR keeps at most 8 B (16 B) per tuple, less what
// deduplication removed, plus 12 B per owned vertex (Offsets, TupleDegree).
// A self-loop tuple costs one 12-byte record on each side of the exchange.
func BuildUndirected(ctx context.Context, c comm.Comm, part partition.Block1D, edges []Edge, threads int) (*CSR, error) {
	return buildUndirected(ctx, c, part, edges, threads, !fitsCols32(part.N))
}

// fitsCols32 reports whether every global id of an n-vertex graph fits in a
// uint32 column entry.
func fitsCols32(n int64) bool { return n <= 1<<32 }

// buildUndirected is BuildUndirected with the column width chosen by the
// caller (wide selects Cols64), so tests can run the 64-bit path on small
// graphs.
func buildUndirected(ctx context.Context, c comm.Comm, part partition.Block1D, edges []Edge, threads int, wide bool) (*CSR, error) {
	if err := checkPartition(part, c.Size()); err != nil {
		return nil, err
	}
	if !wide && !fitsCols32(part.N) {
		return nil, fmt.Errorf("graph: kernel 1: %d vertices do not fit 32-bit columns", part.N)
	}
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("graph: kernel 1: %w", err)
	}
	send, err := routeEdges(part, edges, threads)
	if err != nil {
		return nil, err
	}
	recv, err := c.Alltoallv(ctx, RoutePhase, send, nil)
	clear(send) // the send buffers are garbage from here on
	if err != nil {
		return nil, fmt.Errorf("graph: kernel 1 %s exchange: %w", RoutePhase, err)
	}
	rank := c.Rank()
	g := &CSR{
		NumGlobal:   part.N,
		FirstGlobal: part.First(rank),
		NumLocal:    part.Count(rank),
	}
	if wide {
		r, err := assemble[int64](ctx, part, rank, recv, threads)
		if err != nil {
			return nil, err
		}
		g.Offsets, g.Cols64, g.TupleDegree, g.SelfLoops = r.offsets, r.cols, r.degree, r.selfLoops
		return g, nil
	}
	r, err := assemble[uint32](ctx, part, rank, recv, threads)
	if err != nil {
		return nil, err
	}
	g.Offsets, g.Cols32, g.TupleDegree, g.SelfLoops = r.offsets, r.cols, r.degree, r.selfLoops
	return g, nil
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

// putRecord writes one RecordSize-byte record at buf[off:].
func putRecord(buf []byte, off int, local uint32, nbr int64) {
	b := buf[off : off+RecordSize : off+RecordSize]
	binary.LittleEndian.PutUint32(b[0:4], local)
	binary.LittleEndian.PutUint64(b[4:12], uint64(nbr))
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

// routeStreams is about how many output streams (destination × row bucket)
// the sender's fill pass writes at once: few enough that every stream's
// current cache line stays cached, many enough that a bucket is a small,
// cache-friendly window of the receiver's row arrays. On the benchmark (scale
// 20, 2 ranks) bucketing cut the receiver's count and scatter passes from
// 1.1 s to 0.3 s; 256 to 1024 streams measured alike, 2048 slower.
const routeStreams = 512

// rowBuckets returns how many row buckets per destination the sender orders
// its records by (a power of two) and the shift that maps a local id to its
// bucket.
func rowBuckets(part partition.Block1D) (buckets int, shift uint) {
	perDest := max(1, routeStreams/part.P)
	lb := bits.Len(uint(perDest)) - 1 // log2 of the largest power of two ≤ perDest
	lblock := bits.Len64(uint64(part.Block - 1))
	if lb > lblock {
		lb = lblock
	}
	return 1 << lb, uint(lblock - lb)
}

// routeEdges validates edges and encodes them into one send buffer per rank.
// Within a buffer, records are grouped by row bucket (ranges of the
// receiver's local ids, see rowBuckets) so that the receiver's counting and
// scatter passes, which walk the records in order, touch one cache-sized
// window of rows at a time instead of the whole row array.
//
// Pass 1 counts the records of every (thread, destination, bucket), prefix
// sums turn the counts into exact byte offsets, pass 2 writes each thread's
// records at its offsets. No allocation happens per edge.
func routeEdges(part partition.Block1D, edges []Edge, threads int) ([][]byte, error) {
	p := part.P
	nt := max(1, min(threads, len(edges)))
	n := uint64(part.N)
	block := uint64(part.Block)
	div := newDivider(block, n)
	nb, bshift := rowBuckets(part)
	keys := p * nb // key d*nb + bucket

	counts := make([]int, nt*keys) // counts[t*keys+k]: records of thread t with key k
	bad := make([]int, nt)         // first invalid tuple index seen by thread t, or -1
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(len(edges), t, nt)
		cnt := make([]int, keys) // private: no false sharing in the hot loop
		bad[t] = -1
		for i := lo; i < hi; i++ {
			u, v := uint64(edges[i].U), uint64(edges[i].V)
			if u >= n || v >= n {
				bad[t] = i
				break
			}
			du := div.div(u)
			cnt[int(du)*nb+int((u-du*block)>>bshift)]++
			if u != v {
				dv := div.div(v)
				cnt[int(dv)*nb+int((v-dv*block)>>bshift)]++
			}
		}
		copy(counts[t*keys:(t+1)*keys], cnt)
	})
	for _, i := range bad {
		if i >= 0 {
			return nil, fmt.Errorf("graph: kernel 1: tuple %d (%d,%d): vertex id outside [0,%d)",
				i, edges[i].U, edges[i].V, part.N)
		}
	}

	// counts become byte offsets inside send[d]: bucket-major, then thread.
	send := make([][]byte, p)
	for d := range p {
		off := 0
		for k := d * nb; k < (d+1)*nb; k++ {
			for t := range nt {
				c := counts[t*keys+k]
				counts[t*keys+k] = off
				off += c * RecordSize
			}
		}
		send[d] = make([]byte, off)
	}
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(len(edges), t, nt)
		cur := make([]int, keys)
		copy(cur, counts[t*keys:(t+1)*keys])
		for i := lo; i < hi; i++ {
			u, v := edges[i].U, edges[i].V
			du := div.div(uint64(u))
			lu := uint64(u) - du*block
			ku := int(du)*nb + int(lu>>bshift)
			putRecord(send[du], cur[ku], uint32(lu), v)
			cur[ku] += RecordSize
			if u != v {
				dv := div.div(uint64(v))
				lv := uint64(v) - dv*block
				kv := int(dv)*nb + int(lv>>bshift)
				putRecord(send[dv], cur[kv], uint32(lv), u)
				cur[kv] += RecordSize
			}
		}
	})
	return send, nil
}

// messageRecords returns the number of records in a received message, or an
// error if its length is not a whole number of records.
func messageRecords(msg []byte, src int) (int, error) {
	if len(msg)%RecordSize != 0 {
		return 0, fmt.Errorf("graph: kernel 1 %s: message from rank %d has %d bytes, not a multiple of the %d-byte record",
			RoutePhase, src, len(msg), RecordSize)
	}
	return len(msg) / RecordSize, nil
}

// countRecords decodes records [lo, hi) of msg (a message from rank src, whose
// length messageRecords has checked), checks them and adds one to cnt[l] for
// every half-edge of local row l. It returns the number of self-loop markers.
// first is the receiving rank's first global id, len(cnt) its vertex count and
// n the global vertex count; a local id ≥ len(cnt) or a neighbour outside
// [0, n) is an error.
func countRecords(msg []byte, src, lo, hi int, first, n int64, cnt []int64) (int64, error) {
	var loops int64
	nLocal := uint64(len(cnt))
	for i := lo; i < hi; i++ {
		rec := msg[i*RecordSize : (i+1)*RecordSize : (i+1)*RecordSize]
		l := binary.LittleEndian.Uint32(rec[0:4])
		g := binary.LittleEndian.Uint64(rec[4:12])
		if uint64(l) >= nLocal || g >= uint64(n) {
			return 0, fmt.Errorf("graph: kernel 1 %s: message from rank %d, record %d: local id %d (of %d) or neighbour %d (of %d) out of range",
				RoutePhase, src, i, l, nLocal, int64(g), n)
		}
		if int64(g) == first+int64(l) {
			loops++
			continue
		}
		cnt[l]++
	}
	return loops, nil
}

// assembled is the receive side's result.
type assembled[C uint32 | int64] struct {
	offsets   []int64
	cols      []C
	degree    []uint32
	selfLoops int64
}

// assemble builds this rank's rows from the received messages, freeing each
// recv[s] once it has been consumed. It is generic over the column type so
// that both widths get a specialised scatter, sort and dedupe.
//
// Inside, columns are stored bit-complemented (^v): ascending order of ^v is
// descending order of v for uint32 ids and for non-negative int64 ids, so rows
// are sorted ascending with slices.Sort and complemented back while being
// compacted into the final array, with no reversal pass.
func assemble[C uint32 | int64](ctx context.Context, part partition.Block1D, rank int, recv [][]byte, threads int) (assembled[C], error) {
	var out assembled[C]
	nLocal := part.Count(rank)
	first := part.First(rank)
	n := part.N
	if len(recv) != part.P {
		return out, fmt.Errorf("graph: kernel 1 %s: received %d messages from %d ranks", RoutePhase, len(recv), part.P)
	}
	nrec := make([]int, len(recv))
	total := 0
	for s, m := range recv {
		k, err := messageRecords(m, s)
		if err != nil {
			return out, err
		}
		nrec[s] = k
		total += k
	}
	// Per-thread cursor arrays cost 8 bytes per owned vertex and thread; the
	// counting and scatter passes use at most as many threads as keep them
	// within a quarter of the receive buffers (they are memory bound anyway).
	nt := max(1, min(threads, total*RecordSize/(4*8*max(1, nLocal))))

	// Pass 1: per-thread row counts (private arrays: no atomics, no sharing).
	// Thread t handles the t-th share of every message. A shared array with
	// atomic adds (and atomic cursors in pass 2) measured 4× slower on these
	// two passes: 1.25 s against 0.32 s of CPU per scale-20 build with 2
	// threads, as hub rows bounce their cache lines between threads.
	cur := make([][]int64, nt)
	loops := make([]int64, nt)
	errs := make([]error, nt)
	parallel.For(nt, func(t int) {
		c := make([]int64, nLocal)
		cur[t] = c
		for s, m := range recv {
			lo, hi := parallel.Span(nrec[s], t, nt)
			k, err := countRecords(m, s, lo, hi, first, n, c)
			if err != nil {
				errs[t] = err
				return
			}
			loops[t] += k
		}
	})
	for t := range nt {
		if errs[t] != nil {
			return out, errs[t]
		}
		out.selfLoops += loops[t]
	}
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("graph: kernel 1: %w", err)
	}

	degree, offsets, err := rowOffsets(cur, nLocal, rank, nt)
	if err != nil {
		return out, err
	}
	acc := offsets[nLocal]

	// Pass 2: scatter. Records were validated by pass 1.
	cols := make([]C, acc)
	parallel.For(nt, func(t int) {
		c := cur[t]
		for s, m := range recv {
			lo, hi := parallel.Span(nrec[s], t, nt)
			scatter(m[lo*RecordSize:hi*RecordSize], first, c, cols)
		}
	})
	clear(recv) // drop the receive buffers and cursors before compacting
	clear(cur)
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("graph: kernel 1: %w", err)
	}

	// Sort and dedupe every row, rows split among all threads by edge volume.
	ns := max(1, min(threads, nLocal))
	bounds := volumeBounds(offsets, ns)
	final := make([]int64, nLocal+1) // final[v+1] = deduplicated length of row v, then prefix sums
	parallel.For(ns, func(t int) {
		var scratch []C
		for v := bounds[t]; v < bounds[t+1]; v++ {
			row := cols[offsets[v]:offsets[v+1]]
			if len(row) >= radixMin && len(scratch) < len(row) {
				scratch = make([]C, len(row)+len(row)/4)
			}
			final[v+1] = int64(sortDedupe(row, scratch))
		}
	})
	for v := range nLocal {
		final[v+1] += final[v]
	}

	// Compact into exactly sized columns, complementing back to plain ids.
	var dst []C
	if final[nLocal] == acc {
		dst = cols // nothing was removed: complement in place
	} else {
		dst = make([]C, final[nLocal])
	}
	parallel.For(ns, func(t int) {
		for v := bounds[t]; v < bounds[t+1]; v++ {
			d := dst[final[v]:final[v+1]]
			src := cols[offsets[v] : offsets[v]+int64(len(d))]
			for i, x := range src {
				d[i] = ^x
			}
		}
	})
	out.offsets, out.cols, out.degree = final, dst, degree
	return out, nil
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

// scatter writes the half-edges of validated records msg (whole records) to
// their rows at the thread's cursors cur, advancing them. Neighbours are
// stored complemented (see assemble); self-loop markers are skipped.
func scatter[C uint32 | int64](msg []byte, first int64, cur []int64, cols []C) {
	for len(msg) >= RecordSize {
		rec := msg[:RecordSize:RecordSize]
		msg = msg[RecordSize:]
		l := binary.LittleEndian.Uint32(rec[0:4])
		g := int64(binary.LittleEndian.Uint64(rec[4:12]))
		if g == first+int64(l) {
			continue
		}
		k := cur[l]
		cur[l] = k + 1
		cols[k] = ^C(g)
	}
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
