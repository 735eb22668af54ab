package graph

// Kernel 1's compact routing of half-edges: the wire format of the
// kernel1.count and kernel1.fill phases of BuildUndirectedFrom.
//
// A tuple (u, v) with u ≠ v is two half-edges, u→v for Owner(u) and v→u for
// Owner(v). The sender of a round orders the half-edges for one destination
// by the receiver's local row, so that the rows form a sorted sequence whose
// gaps are small (about n / (2·chunk) at any rank count), and codes them in a
// bit stream: each gap by a Golomb–Rice code (Golomb, "Run-length encodings",
// IEEE Trans. IT 1966; Rice's power-of-two special case), each neighbour in
// ⌈log2 n⌉ bits. At scale 22 a half-edge costs about 25 bits where the old
// fixed record cost 96.
//
// Message (one per destination, round and pass; empty when it carries
// nothing), all integers unsigned LEB128 varints unless said otherwise:
//
//	selfLoops        self-loop tuples (u, u) of this round at the receiver's
//	                 vertices (count pass; 0 in the fill pass)
//	nb times:        entries_b, and when entries_b > 0, bytes_b
//	nb segments:     segment b, bytes_b bytes, for bucket b (rows
//	                 [b·2^s, (b+1)·2^s) of the receiver), in bucket order
//
// where nb = 2^lb buckets per destination and s the bucket's row bits, both
// functions of the partition (routeLayout), known to both ends. A segment is
// a little-endian bit stream (bit i of the stream is bit i%8 of byte i/8):
//
//	6 bits        the Rice parameter k
//	entries_b ×   the row gap g (the first entry's row offset in the bucket,
//	              then the difference to the previous entry's row; ≥ 0) as
//	              ⌊g/2^k⌋ zero bits, a one bit, and the k low bits of g;
//	              in the fill pass, the neighbour's global id in w bits
//	              (w = bits of n−1)
//
// padded with zero bits to a whole byte. The count pass sends only the rows
// (each row as often as it has half-edges), so the receiver can size its rows
// exactly before the fill pass writes every neighbour into its final slot.
//
// The buckets are also the receiver's unit of parallel work: a thread owns a
// bucket's rows and decodes that bucket's segment of every message, so rows
// are written without atomics.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/graphrun/graphrun/partition"
)

// Phases of kernel 1's exchanges.
const (
	// RoutePhaseCount carries the rows of every routed half-edge and the
	// self-loop counts: the receiver counts its row lengths.
	RoutePhaseCount = "kernel1.count"
	// RoutePhaseFill carries every half-edge again, with its neighbour.
	RoutePhaseFill = "kernel1.fill"
	// RoutePhasePlan agrees on the number of rounds.
	RoutePhasePlan = "kernel1.plan"
)

// routeLayout is what both ends of a kernel 1 exchange derive from the
// partition: where a half-edge goes, which row and value it carries, how
// rows map to buckets and how wide a value is.
//
// A half-edge u→v goes to rank destRow[ku] + destCol[kv], where ku and kv
// are the pieces (Block1D owners) of u and v, as row u − rowFirst[ku] with
// value colBase[kv] + (v − kv·block). In 1D that is Owner(u), the local id of
// u and the global id v (destCol = 0, rowFirst = colBase = k·block); on an
// R×C grid it is the rank at (grid row of u, grid column of v), u's local
// row in its grid row and v's local column in its grid column
// (partition.Grid).
type routeLayout struct {
	p      int
	n      int64
	block  int64
	div    divider
	w      uint   // bits of a value: of the value space − 1, at least 1
	nb     int    // buckets per destination, a power of two
	bshift uint   // row bits of a bucket: bucket = row >> bshift
	rowCap uint64 // 1 << bshift

	// Per piece k.
	destRow, destCol  []int
	rowFirst, colBase []uint64
}

// Bucket count targets: a sender places records into p·nb streams, which is
// fast while the streams' cache lines stay cached (about 512 streams measured
// best for the old fixed records: on scale 20 with 2 ranks, bucketing cut the
// receiver's passes from 1.1 s to 0.3 s; 256 to 1024 measured alike), and a
// receiver needs enough buckets to spread its rows over its threads.
const (
	routeStreams = 512
	minBuckets   = 64
)

// newRouteLayout1D is the layout of the 1D partition.
func newRouteLayout1D(part partition.Block1D) routeLayout {
	lay := newRouteLayout(part, part.P, part.Block, part.N)
	for k := range part.P {
		lay.destRow[k], lay.destCol[k] = k, 0
		lay.rowFirst[k] = uint64(k) * uint64(part.Block)
		lay.colBase[k] = lay.rowFirst[k]
	}
	return lay
}

// newRouteLayout2D is the layout of the 2D grid partition.
func newRouteLayout2D(grid partition.Grid) routeLayout {
	part := grid.Part
	lay := newRouteLayout(part, grid.P(), grid.RowSpan(), grid.ColSpan())
	block := uint64(part.Block)
	for k := range part.P {
		i, j := grid.Coords(k)
		lay.destRow[k], lay.destCol[k] = grid.Rank(i, 0), j
		lay.rowFirst[k] = uint64(grid.Rank(i, 0)) * block
		lay.colBase[k] = uint64(i) * block
	}
	return lay
}

// newRouteLayout sizes the buckets for rows in [0, rowSpace) and values in
// [0, valSpace); the caller fills the tables.
func newRouteLayout(part partition.Block1D, p int, rowSpace, valSpace int64) routeLayout {
	lrows := uint(bits.Len64(uint64(rowSpace - 1)))
	w := uint(max(1, bits.Len64(uint64(valSpace-1))))
	want := max(minBuckets, routeStreams/p)
	lb := uint(bits.Len(uint(want)) - 1)
	lb = min(lb, lrows)
	if lrows-lb+w > 64 { // a record packs the row offset above the value
		lb = lrows + w - 64
	}
	return routeLayout{
		p: p, n: part.N, block: part.Block,
		div: newDivider(uint64(part.Block), uint64(part.N)),
		w:   w, nb: 1 << lb, bshift: lrows - lb, rowCap: 1 << (lrows - lb),
		destRow: make([]int, part.P), destCol: make([]int, part.P),
		rowFirst: make([]uint64, part.P), colBase: make([]uint64, part.P),
	}
}

// bitWriter writes a segment into a buffer of exactly its size: whole
// 64-bit words as they fill, the last partial word byte by byte.
type bitWriter struct {
	buf []byte
	pos int
	acc uint64
	n   uint // bits in acc, < 64
}

// put appends the nb low bits of v (v < 2^nb, nb ≤ 56).
func (w *bitWriter) put(v uint64, nb uint) {
	if w.n+nb < 64 {
		w.acc |= v << w.n
		w.n += nb
		return
	}
	w.acc |= v << w.n
	binary.LittleEndian.PutUint64(w.buf[w.pos:w.pos+8], w.acc)
	w.pos += 8
	used := 64 - w.n
	w.acc = v >> used
	w.n = nb - used
}

// putZeros appends z zero bits.
func (w *bitWriter) putZeros(z uint64) {
	for z >= 56 {
		w.put(0, 56)
		z -= 56
	}
	w.put(0, uint(z))
}

// finish writes the last partial word and returns the bytes written.
func (w *bitWriter) finish() int {
	for w.n > 0 {
		w.buf[w.pos] = byte(w.acc)
		w.pos++
		w.acc >>= 8
		w.n = uint(max(0, int(w.n)-8))
	}
	return w.pos
}

// bitReader reads a segment through a 64-bit buffer refilled a word at a
// time; every read is checked against the segment's end.
type bitReader struct {
	b   []byte
	i   int    // next byte of b to load
	buf uint64 // unread bits, first bit lowest; zeros above the n valid ones
	n   uint   // valid bits in buf
}

func newBitReader(b []byte) bitReader { return bitReader{b: b} }

// refill tops buf up to at least 56 valid bits, or to the end of b.
func (r *bitReader) refill() {
	if r.i+8 <= len(r.b) {
		r.buf |= binary.LittleEndian.Uint64(r.b[r.i:]) << r.n
		r.i += int((63 - r.n) >> 3)
		r.n |= 56
		// Bits loaded above n are the next bytes' and are loaded again
		// later: clear them so that buf stays zero above n.
		r.buf &= 1<<r.n - 1
		return
	}
	for r.n <= 56 && r.i < len(r.b) {
		r.buf |= uint64(r.b[r.i]) << r.n
		r.i++
		r.n += 8
	}
}

// read returns the next nb bits (nb ≤ 56).
func (r *bitReader) read(nb uint) (uint64, bool) {
	if r.n < nb {
		r.refill()
		if r.n < nb {
			return 0, false
		}
	}
	v := r.buf & (1<<nb - 1)
	r.buf >>= nb
	r.n -= nb
	return v, true
}

// unary reads zero bits up to a one bit and returns their count, failing
// past limit zeros or at the end.
func (r *bitReader) unary(limit uint64) (uint64, bool) {
	var q uint64
	for {
		if r.buf == 0 {
			q += uint64(r.n)
			r.buf, r.n = 0, 0
			if q > limit {
				return 0, false
			}
			r.refill()
			if r.n == 0 {
				return 0, false
			}
			continue
		}
		tz := uint(bits.TrailingZeros64(r.buf)) // < n: buf is zero above n
		q += uint64(tz)
		r.buf >>= tz + 1
		r.n -= tz + 1
		if q > limit {
			return 0, false
		}
		return q, true
	}
}

// left returns the unread bits.
func (r *bitReader) left() uint64 { return uint64(r.n) + 8*uint64(len(r.b)-r.i) }

// riceParamBits is the width of the Rice parameter at a segment's start.
const riceParamBits = 6

// maxRiceParam keeps k's low bits within one bitWriter.put.
const maxRiceParam = 56

// segmentSize chooses the Rice parameter for sorted records recs (row offset
// above w neighbour bits) and returns it with the segment's size in bytes;
// nbrBits is w in the fill pass and 0 in the count pass.
func segmentSize(recs []uint64, w, nbrBits uint) (k uint, size int) {
	e := uint64(len(recs))
	last := recs[len(recs)-1] >> w
	k0 := uint(0)
	if mean := (last + 1) / e; mean > 1 {
		k0 = uint(bits.Len64(mean)) - 1
	}
	lo := k0 - min(k0, 1)
	var sum [3]uint64 // Σ ⌊g/2^k⌋ for k = lo, lo+1, lo+2
	prev := uint64(0)
	for _, r := range recs {
		row := r >> w
		g := row - prev
		prev = row
		sum[0] += g >> lo
		sum[1] += g >> (lo + 1)
		sum[2] += g >> (lo + 2)
	}
	best := uint64(math.MaxUint64)
	for i := range uint(3) {
		kk := min(lo+i, maxRiceParam)
		b := riceParamBits + e*(1+uint64(kk)+uint64(nbrBits)) + sum[i]
		if b < best {
			best, k = b, kk
		}
	}
	return k, int((best + 7) / 8)
}

// encodeSegment writes sorted records recs as a segment of exactly len(dst)
// bytes (dst's length from segmentSize with the same k and nbrBits).
func encodeSegment(dst []byte, recs []uint64, w, k, nbrBits uint) {
	bw := bitWriter{buf: dst}
	bw.put(uint64(k), riceParamBits)
	nmask := uint64(1)<<w - 1
	kmask := uint64(1)<<k - 1
	prev := uint64(0)
	for _, r := range recs {
		row := r >> w
		g := row - prev
		prev = row
		q := g >> k
		if q < 56 {
			bw.put(1<<q, uint(q)+1)
		} else {
			bw.putZeros(q)
			bw.put(1, 1)
		}
		if k > 0 {
			bw.put(g&kmask, k)
		}
		if nbrBits > 0 {
			bw.put(r&nmask, nbrBits)
		}
	}
	if n := bw.finish(); n != len(dst) {
		panic(fmt.Sprintf("graph: kernel 1 segment of %d bytes, %d sized", n, len(dst)))
	}
}

// segRef locates one bucket's segment inside a received message.
type segRef struct {
	off, size int // bytes
	entries   int
}

// errRoute wraps every malformed kernel 1 message.
var errRoute = errors.New("malformed message")

// parseRouteHeader reads a message's header into segs (one per bucket) and
// returns its self-loop count. It checks that the segments exactly fill the
// payload and that no segment claims more entries than its bits can hold.
func parseRouteHeader(msg []byte, segs []segRef, nbrBits uint) (int64, error) {
	loops, k := binary.Uvarint(msg)
	if k <= 0 || loops > math.MaxInt64 {
		return 0, fmt.Errorf("%w: bad self-loop count", errRoute)
	}
	pos := k
	total := 0
	for b := range segs {
		e, k := binary.Uvarint(msg[pos:])
		if k <= 0 {
			return 0, fmt.Errorf("%w: bad entry count of bucket %d", errRoute, b)
		}
		pos += k
		segs[b] = segRef{}
		if e == 0 {
			continue
		}
		size, k := binary.Uvarint(msg[pos:])
		if k <= 0 || size > uint64(len(msg)) {
			return 0, fmt.Errorf("%w: bad size of bucket %d", errRoute, b)
		}
		pos += k
		// Every entry takes at least one bit and its neighbour's bits.
		if e > (8*size-riceParamBits)/(1+uint64(nbrBits)) || 8*size < riceParamBits {
			return 0, fmt.Errorf("%w: bucket %d claims %d entries in %d bytes", errRoute, b, e, size)
		}
		segs[b] = segRef{off: total, size: int(size), entries: int(e)}
		total += int(size)
		if total > len(msg) {
			return 0, fmt.Errorf("%w: segments exceed the message", errRoute)
		}
	}
	if pos+total != len(msg) {
		return 0, fmt.Errorf("%w: %d bytes of header and %d of segments in a message of %d", errRoute, pos, total, len(msg))
	}
	for b := range segs {
		segs[b].off += pos
	}
	return int64(loops), nil
}

// segmentDecoder walks one segment's entries.
type segmentDecoder struct {
	r       bitReader
	k       uint
	left    int
	row     uint64 // current row offset in the bucket
	rowCap  uint64 // rows in the bucket
	nbrBits uint
}

func newSegmentDecoder(seg []byte, entries int, rowCap uint64, nbrBits uint) (segmentDecoder, error) {
	d := segmentDecoder{r: newBitReader(seg), left: entries, rowCap: rowCap, nbrBits: nbrBits}
	k, ok := d.r.read(riceParamBits)
	if !ok || k > maxRiceParam {
		return d, fmt.Errorf("%w: bad Rice parameter", errRoute)
	}
	d.k = uint(k)
	return d, nil
}

// decodeBatch is the segment decoder's hot loop: it decodes up to len(rows)
// of the remaining entries into rows (offsets in the bucket) and vals (the
// neighbours; zeros in the count pass), keeping the bit buffer in
// registers, and returns how many it decoded. Entries that straddle a
// refill take next's checked path.
func (d *segmentDecoder) decodeBatch(rows, vals []uint64) (int, error) {
	cnt := min(len(rows), d.left)
	rows, vals = rows[:cnt], vals[:cnt]
	k, wb := d.k, d.nbrBits
	kmask, wmask := uint64(1)<<k-1, uint64(1)<<wb-1
	rowCap, qMax := d.rowCap, d.rowCap>>k
	r := &d.r
	buf, n := r.buf, r.n
	row := d.row
	for e := range rows {
		if n < 56 {
			r.buf, r.n = buf, n
			r.refill()
			buf, n = r.buf, r.n
		}
		if buf != 0 {
			tz := uint(bits.TrailingZeros64(buf))
			if used := tz + 1 + k + wb; used <= n {
				x := buf >> (tz + 1)
				g := uint64(tz)<<k | x&kmask
				vals[e] = x >> k & wmask
				buf >>= used // used ≤ n < 64
				n -= used
				if uint64(tz) > qMax || g >= rowCap-row {
					r.buf, r.n = buf, n
					return e, fmt.Errorf("%w: row outside the bucket", errRoute)
				}
				row += g
				rows[e] = row
				continue
			}
		}
		r.buf, r.n, d.row = buf, n, row
		l, v, err := d.next()
		if err != nil {
			return e, err
		}
		d.left++ // next counted the entry; the batch counts them all below
		rows[e], vals[e] = l, v
		buf, n, row = r.buf, r.n, d.row
	}
	r.buf, r.n, d.row = buf, n, row
	d.left -= cnt
	return cnt, nil
}

// next decodes one entry with every read checked and returns its row offset
// and neighbour (0 in the count pass), or an error if the segment is
// malformed: decodeBatch's path for an entry that straddles a refill of its
// buffer, and an independent decoder for the tests to compare it with.
func (d *segmentDecoder) next() (row, nbr uint64, err error) {
	q, ok := d.r.unary(d.rowCap)
	if !ok {
		return 0, 0, fmt.Errorf("%w: truncated or overlong row gap", errRoute)
	}
	g := q << d.k
	if d.k > 0 {
		low, ok := d.r.read(d.k)
		if !ok {
			return 0, 0, fmt.Errorf("%w: truncated row gap", errRoute)
		}
		g |= low
	}
	if q > d.rowCap>>d.k || g >= d.rowCap-d.row {
		return 0, 0, fmt.Errorf("%w: row outside the bucket", errRoute)
	}
	d.row += g
	if d.nbrBits > 0 {
		if nbr, ok = d.r.read(d.nbrBits); !ok {
			return 0, 0, fmt.Errorf("%w: truncated neighbour", errRoute)
		}
	}
	d.left--
	return d.row, nbr, nil
}

// done reports a segment with bits left over beyond its padding, or padding
// that is not zero.
func (d *segmentDecoder) done() error {
	left := d.r.left()
	if left >= 8 {
		return fmt.Errorf("%w: %d unused bits after the last entry", errRoute, left)
	}
	if pad, _ := d.r.read(uint(left)); pad != 0 {
		return fmt.Errorf("%w: padding bits are not zero", errRoute)
	}
	return nil
}
