package graph

// The compressed layout of a CSR's rows: each sorted, deduplicated row as
// its degree, its first neighbour relative to the row's own vertex, and the
// gaps between consecutive neighbours in a variable-length code, after
// Ligra+ (Shun, Dhulipala and Blelloch, "Smaller and Faster: Parallel
// Processing of Compressed Graphs with Ligra+", DCC 2015, §3: sorted
// adjacency lists as differences, the first one signed and relative to the
// source). A search decodes a row as it scans it; nothing is ever
// decompressed whole.
//
// A row of the vertex with global id g and neighbours u_0 > u_1 > … > u_{d−1}
// (descending, as every kernel-1 row) is
//
//	uvarint(d)
//	when d ≥ 1: uvarint(zigzag(u_0 − g))
//	when d ≥ 2: one byte k ≤ 57, then for i = 1 … d−1 the gap
//	            x_i = u_{i−1} − u_i − 1 as a Golomb–Rice code of parameter k
//	            (Golomb, "Run-length encodings", IEEE Trans. IT 1966):
//	            ⌊x_i/2^k⌋ zero bits, a one bit, and the k low bits of x_i,
//	            in a little-endian bit stream (bit j of the stream is bit
//	            j%8 of its byte j/8), padded with zero bits to a whole byte
//
// where uvarint is unsigned LEB128 (encoding/binary's Uvarint) and
// zigzag(x) = 2x for x ≥ 0, −2x−1 otherwise. The encoder takes the k of
// {k0−1, k0, k0+1} that codes the row shortest, k0 = ⌊log2⌋ of the row's
// mean gap. The rows are followed by PackedPad zero bytes, so that a
// decoder always reads a whole 64-bit word.
//
// The code was chosen by measuring (BenchmarkPackedCodes, BENCHMARKS.md
// "Graph500 scale 26 and 27"): on the Graph500 graph at scale 20, LEB128 varints
// of the same values (Ligra+'s byte code) take 2.03 bytes per stored arc,
// group varint 2.13, Ligra+'s run-length byte code 2.16 and this code
// 1.66, and the gap grows with the scale (2.24 against 1.85 at scale
// 22), as a permuted graph's gaps do; a Rice code decodes with one
// trailing-zero count and two shifts, without the varint's
// data-dependent branch per byte. The degree in front lets a bottom-up
// scan stop at the first frontier neighbour and still count the row's
// entries, and the direction heuristic read degrees without decoding rows.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/graphrun/graphrun/internal/parallel"
)

// PackedPad is the number of zero bytes after the packed rows.
const PackedPad = 8

// maxRiceK bounds a row's Rice parameter: a code's remainder then always
// fits the 57 bits a decoder has in hand after a byte-aligned 64-bit load.
const maxRiceK = 57

// errPacked is wrapped by every error of a malformed packed row.
var errPacked = errors.New("malformed packed row")

// AppendPackedRow appends the packed row of the vertex with global id src
// whose neighbours are row, in descending order and distinct, to dst.
func AppendPackedRow[C uint32 | int64](dst []byte, src int64, row []C) []byte {
	dst = appendUvarint(dst, uint64(len(row)))
	if len(row) == 0 {
		return dst
	}
	dst = appendUvarint(dst, zigzag(int64(row[0])-src))
	if len(row) == 1 {
		return dst
	}
	k := riceParameter(row)
	dst = append(dst, byte(k))
	w := riceWriter{dst: dst}
	mask := uint64(1)<<k - 1
	for i := 1; i < len(row); i++ {
		x := uint64(int64(row[i-1]) - int64(row[i]) - 1)
		q := x >> k
		if q+1+uint64(k) <= 32 { // the whole code in one put
			w.put((x&mask)<<(q+1)|1<<q, uint(q)+1+k)
			continue
		}
		for ; q > 0; q -= min(q, 32) { // the quotient's zero bits
			w.put(0, uint(min(q, 32)))
		}
		w.put(1, 1)
		if lo := x & mask; k > 32 {
			w.put(lo&(1<<32-1), 32)
			w.put(lo>>32, k-32)
		} else {
			w.put(lo, k)
		}
	}
	return w.close()
}

// riceWriter appends a little-endian bit stream to dst, 32 bits at a time.
type riceWriter struct {
	dst []byte
	acc uint64 // bits not yet written, the first at bit 0
	n   uint   // how many: below 32 between puts
}

// put appends the low l ≤ 32 bits of v (v < 2^l).
func (w *riceWriter) put(v uint64, l uint) {
	w.acc |= v << w.n
	w.n += l
	if w.n >= 32 {
		a := w.acc
		w.dst = append(w.dst, byte(a), byte(a>>8), byte(a>>16), byte(a>>24))
		w.acc >>= 32
		w.n -= 32
	}
}

// close appends the bits left, padded with zero bits to a whole byte, and
// returns the stream.
func (w *riceWriter) close() []byte {
	for ; w.n > 0; w.n -= min(w.n, 8) {
		w.dst = append(w.dst, byte(w.acc))
		w.acc >>= 8
	}
	return w.dst
}

// riceParameter returns the Rice parameter of a row's gaps: of ⌊log2⌋ of
// their mean and its two neighbours, the one that codes them shortest (the
// first of k0, k0 − 1, k0 + 1 on a tie). The code of gap x takes
// ⌊x/2^k⌋ + 1 + k bits, so one pass sums the three quotients.
func riceParameter[C uint32 | int64](row []C) uint {
	gaps := uint64(len(row) - 1)
	sum := uint64(int64(row[0])-int64(row[len(row)-1])) - gaps // Σ x_i
	k0 := uint(0)
	if m := sum / gaps; m > 0 {
		k0 = min(maxRiceK, uint(bits.Len64(m)-1))
	}
	lo := k0 - 1
	if k0 == 0 {
		lo = k0 // k0 − 1 is not a choice: count k0 twice
	}
	var qLo, q0, qHi uint64
	for i := 1; i < len(row); i++ {
		x := uint64(int64(row[i-1]) - int64(row[i]) - 1)
		qLo += x >> lo
		q0 += x >> k0
		qHi += x >> (k0 + 1)
	}
	best, bestBits := k0, q0+gaps*uint64(k0)
	if k0 > 0 && qLo+gaps*uint64(lo) < bestBits {
		best, bestBits = lo, qLo+gaps*uint64(lo)
	}
	if k0+1 <= maxRiceK && qHi+gaps*uint64(k0+1) < bestBits {
		best = k0 + 1
	}
	return best
}

// DecodePackedRow decodes the packed row at the start of b of the vertex
// with global id src in an n-vertex graph, appending its neighbours to
// dst[:0]; it returns them and the bytes the row took. Malformed bytes (a
// truncated or overlong varint or code, a neighbour outside [0, n) or not
// below the previous one, the row's own vertex, more entries than bits)
// are an error, never a panic. b needs no padding.
func DecodePackedRow[C uint32 | int64](b []byte, src, n int64, dst []C) ([]C, int, error) {
	dst = dst[:0]
	d, i, err := readUvarint(b, 0)
	if err != nil {
		return dst, 0, fmt.Errorf("degree: %w", err)
	}
	if d == 0 {
		return dst, i, nil
	}
	if d > 1 && d-1 > 8*uint64(len(b)-i) { // every code takes a bit at least
		return dst, 0, fmt.Errorf("%w: degree %d with %d bytes left", errPacked, d, len(b)-i)
	}
	z, i, err := readUvarint(b, i)
	if err != nil {
		return dst, 0, fmt.Errorf("first neighbour: %w", err)
	}
	delta := Unzigzag(z)
	u := src + delta
	if (delta > 0 && u < src) || (delta < 0 && u > src) || u < 0 || u >= n || u == src {
		return dst, 0, fmt.Errorf("%w: first neighbour %d of vertex %d outside [0, %d) or the vertex itself", errPacked, u, src, n)
	}
	dst = slices.Grow(dst, int(d))
	dst = append(dst, C(u))
	if d == 1 {
		return dst, i, nil
	}
	if i >= len(b) || b[i] > maxRiceK {
		return dst, 0, fmt.Errorf("%w: Rice parameter missing or above %d", errPacked, maxRiceK)
	}
	k := uint(b[i])
	i++
	br := rowBits{b: b[i:]}
	for e := uint64(1); e < d; e++ {
		x, err := br.rice(k, uint64(u))
		if err != nil {
			return dst, 0, fmt.Errorf("entry %d: %w", e, err)
		}
		u -= int64(x) + 1
		if u == src {
			return dst, 0, fmt.Errorf("%w: entry %d is the vertex %d itself", errPacked, e, src)
		}
		dst = append(dst, C(u))
	}
	return dst, i + int((br.pos+7)/8), nil
}

// rowBits is the checked reader of a row's Rice codes.
type rowBits struct {
	b   []byte
	pos uint64 // bits read
}

func (r *rowBits) bit() (uint64, error) {
	if r.pos >= 8*uint64(len(r.b)) {
		return 0, fmt.Errorf("%w: truncated code", errPacked)
	}
	x := uint64(r.b[r.pos/8]>>(r.pos%8)) & 1
	r.pos++
	return x, nil
}

// rice reads one code of parameter k whose value must be below limit.
func (r *rowBits) rice(k uint, limit uint64) (uint64, error) {
	var q uint64
	for {
		x, err := r.bit()
		if err != nil {
			return 0, err
		}
		if x == 1 {
			break
		}
		if q++; q<<k >= limit {
			return 0, fmt.Errorf("%w: gap of at least %d below a neighbour %d", errPacked, q<<k, limit)
		}
	}
	v := q << k
	for j := range k {
		x, err := r.bit()
		if err != nil {
			return 0, err
		}
		v |= x << j
	}
	if v >= limit {
		return 0, fmt.Errorf("%w: gap %d below neighbour %d", errPacked, v, limit)
	}
	return v, nil
}

// PackedNext returns the uvarint at b[at] and the offset after it: the
// degree and first neighbour of a row, for the search's hot loops, which
// read rows kernel 1 wrote (or that CheckPacked accepted).
func PackedNext(b []byte, at int64) (uint64, int64) {
	if x := b[at]; x < 0x80 {
		return uint64(x), at + 1
	}
	return packedNextSlow(b, at)
}

// packedNextSlow decodes the uvarint at b[at], whose first byte has the
// high bit set.
//
//go:noinline
func packedNextSlow(b []byte, at int64) (uint64, int64) {
	x := uint64(b[at] & 0x7f)
	at++
	for s := uint(7); ; s += 7 {
		c := b[at]
		at++
		x |= uint64(c&0x7f) << s
		if c < 0x80 {
			return x, at
		}
	}
}

// PackedHead decodes a row's head from h, the 8 bytes at its start
// (little-endian): its degree d, the zigzag z of its first neighbour's
// offset from the row's vertex, and n, the bits the two take, after which
// comes the Rice parameter's byte when d > 1. It is the hot loops' row
// opening: one load, no branch per byte. ok is false when the head does
// not fit this fast path (a degree of 128 or more, or a first neighbour
// of more than 7 bytes): the caller then reads it with PackedNext. For a
// row of degree 0, z and n mean nothing.
func PackedHead(h uint64) (d, z uint64, n uint, ok bool) {
	// The bytes that end a varint, the degree's included: its end must be
	// the first byte's, and another end within the seven after it.
	stop := ^h & 0x8080808080808080
	n = uint(bits.TrailingZeros64(stop&^0x80)) + 1 // bits to the first neighbour's end
	z = h >> 8 & (1<<(n-8) - 1)
	// Gather the 7-bit groups: pairs, then quadruples, then the eight.
	z = z&0x007f007f007f007f | z&0x7f007f007f007f00>>1
	z = z&0x00003fff00003fff | z&0x3fff00003fff0000>>2
	z = z&0x000000000fffffff | z&0x0fffffff00000000>>4
	return h & 0x7f, z, n, stop&0x80 != 0 && n <= 64
}

// RiceWord decodes the Rice code of parameter k (mask = 2^k − 1) at the
// start of w, a stream's next bits: its value and length. ok is false when
// the code does not end within w's first 56 bits; the caller then reads it
// with RiceNext. It inlines into the hot loops.
func RiceWord(w uint64, k uint, mask uint64) (x, n uint64, ok bool) {
	q := uint(bits.TrailingZeros64(w))
	return uint64(q)<<(k&63) | w>>((q+1)&63)&mask, uint64(q + 1 + k), q+k < 56
}

// RiceNext decodes the Rice code of parameter k (mask = 2^k − 1) that
// starts at bit bp of b (b padded with PackedPad bytes after the rows), and
// returns its value and the bit after it: the gap decoder of the search's
// hot loops.
func RiceNext(b []byte, bp uint64, k uint, mask uint64) (uint64, uint64) {
	w := binary.LittleEndian.Uint64(b[bp>>3:]) >> (bp & 7) // 57 bits at least
	q := uint(bits.TrailingZeros64(w))
	if q+k < 56 {
		return uint64(q)<<k | w>>(q+1)&mask, bp + uint64(q+1+k)
	}
	return riceSlow(b, bp, k, mask)
}

// riceSlow is RiceNext for a code longer than the bits of one load: a
// quotient that does not end within them, or its remainder beyond them.
func riceSlow(b []byte, bp uint64, k uint, mask uint64) (uint64, uint64) {
	var q uint64
	for {
		w := binary.LittleEndian.Uint64(b[bp>>3:]) >> (bp & 7)
		if w != 0 {
			z := uint64(bits.TrailingZeros64(w))
			q += z
			bp += z + 1
			break
		}
		q += 64 - bp&7
		bp += 64 - bp&7
	}
	w := binary.LittleEndian.Uint64(b[bp>>3:]) >> (bp & 7)
	return q<<k | w&mask, bp + uint64(k)
}

// AppendRow appends the neighbours of g's local vertex l, in descending
// order, to dst[:0] and returns them: a copy of a plain row, or a packed
// row decoded with the search's decoder (PackedNext, RiceNext), for
// readers of whole rows (the validator, the sieve's directory). The packed
// rows are trusted: kernel 1 wrote them (CheckPacked checks them).
func AppendRow[C uint32 | int64](g *CSR, l uint32, dst []C) []C {
	dst = dst[:0]
	lo, hi := g.Offsets[l], g.Offsets[l+1]
	switch {
	case g.Packed == nil && g.Cols32 != nil:
		for _, u := range g.Cols32[lo:hi] {
			dst = append(dst, C(u))
		}
		return dst
	case g.Packed == nil:
		for _, u := range g.Cols64[lo:hi] {
			dst = append(dst, C(u))
		}
		return dst
	}
	p := g.Packed
	d, at := PackedNext(p, lo)
	if d == 0 {
		return dst
	}
	z, at := PackedNext(p, at)
	u := g.FirstGlobal + int64(l) + Unzigzag(z)
	dst = append(slices.Grow(dst, int(d)), C(u))
	if d == 1 {
		return dst
	}
	k := uint(p[at])
	bp, mask := uint64(at+1)*8, uint64(1)<<k-1
	for range d - 1 {
		var x uint64
		x, bp = RiceNext(p, bp, k, mask)
		u -= int64(x) + 1
		dst = append(dst, C(u))
	}
	return dst
}

// PackedDegree returns the degree at b[at], the start of a packed row, and
// the offset of the row's first neighbour.
func PackedDegree(b []byte, at int64) (d, next int64) {
	x, next := PackedNext(b, at)
	return int64(x), next
}

// Unzigzag is the first neighbour's offset from the row's vertex, from
// its coded value.
func Unzigzag(z uint64) int64 { return int64(z>>1) ^ -int64(z&1) }

// readUvarint is a checked uvarint at b[i:]: it returns the value and the
// offset after it.
func readUvarint(b []byte, i int) (uint64, int, error) {
	var x uint64
	for s := uint(0); s < 64; s += 7 {
		if i >= len(b) {
			return 0, 0, fmt.Errorf("%w: truncated varint", errPacked)
		}
		c := b[i]
		i++
		if s == 63 && c > 1 {
			return 0, 0, fmt.Errorf("%w: varint overflows 64 bits", errPacked)
		}
		x |= uint64(c&0x7f) << s
		if c < 0x80 {
			return x, i, nil
		}
	}
	return 0, 0, fmt.Errorf("%w: varint overflows 64 bits", errPacked)
}

func appendUvarint(dst []byte, x uint64) []byte {
	for x >= 0x80 {
		dst = append(dst, byte(x)|0x80)
		x >>= 7
	}
	return append(dst, byte(x))
}

// uvarintLen is the bytes of uvarint(x).
func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

func zigzag(x int64) uint64 { return uint64(x<<1) ^ uint64(x>>63) }

// packedRowBound bounds the bytes of the packed row of d distinct
// neighbours among n vertices, and of any row with fewer: the degree, a
// first neighbour of at most 10 bytes, the parameter byte, and d−1 gaps.
// With k0 = ⌊log2⌋ of the mean gap m ≤ n/(d−1), among the encoder's
// choices, the gaps take at most (d−1)(k0+1) + Σx_i/2^k0 ≤ (d−1)(k0+3)
// ≤ (d−1)(log2(n/(d−1)) + 3) bits (and at most 3(d−1) when m < 1), which
// grows with d, so kernel 1 reserves the rows' space from their counted
// lengths, duplicates included. (Beyond 2^57 vertices, where k is held at
// maxRiceK, a quotient may take up to n/2^57 more bits.)
func packedRowBound(d, n int64) int64 {
	b := int64(uvarintLen(uint64(d)))
	if d == 0 {
		return b
	}
	b += 10
	if g := float64(d - 1); g > 0 {
		b += 2 + int64(math.Ceil(g*(max(0, math.Log2(float64(n)/g))+3+float64(n>>maxRiceK))/8))
	}
	return b
}

// PackCSR returns g with its rows in the compressed layout (Packed, with
// byte offsets), sharing TupleDegree. threads goroutines encode it
// (threads < 1: one). It is for graphs whose plain layout fits; kernel 1
// builds the compressed layout of larger ones directly (BuildPackedFrom).
func PackCSR(g *CSR, threads int) *CSR {
	if g.Packed != nil {
		return g
	}
	n := g.NumLocal
	nt := max(1, min(threads, n/1024))
	parts := make([][]byte, nt)
	offsets := make([]int64, n+1)
	parallel.For(nt, func(t int) {
		lo, hi := parallel.Span(n, t, nt)
		var buf []byte
		for l := lo; l < hi; l++ {
			offsets[l] = int64(len(buf))
			src := g.FirstGlobal + int64(l)
			row := g.Offsets[l : l+2]
			if g.Cols32 != nil {
				buf = AppendPackedRow(buf, src, g.Cols32[row[0]:row[1]])
			} else {
				buf = AppendPackedRow(buf, src, g.Cols64[row[0]:row[1]])
			}
		}
		parts[t] = buf
	})
	var total int64
	for t, p := range parts {
		lo, hi := parallel.Span(n, t, nt)
		for l := lo; l < hi; l++ {
			offsets[l] += total
		}
		total += int64(len(p))
	}
	offsets[n] = total
	packed := make([]byte, 0, total+PackedPad)
	for _, p := range parts {
		packed = append(packed, p...)
	}
	packed = packed[:total+PackedPad]
	return &CSR{NumGlobal: g.NumGlobal, FirstGlobal: g.FirstGlobal, NumLocal: n, Offsets: offsets,
		Packed: packed, PackedEdges: g.NumEdges(), TupleDegree: g.TupleDegree, SelfLoops: g.SelfLoops}
}

// CheckPacked decodes every packed row of g (g.Packed set) and reports the
// first malformed one: rows that do not tile the byte stream up to its
// PackedPad zero bytes, neighbours outside the graph or not descending, or
// entries that do not add up to PackedEdges.
func CheckPacked(g *CSR) error {
	end := int64(len(g.Packed)) - PackedPad
	if len(g.Offsets) != g.NumLocal+1 || g.Offsets[0] != 0 || g.Offsets[g.NumLocal] != end ||
		slices.ContainsFunc(g.Packed[max(0, end):], func(b byte) bool { return b != 0 }) {
		return fmt.Errorf("graph: packed CSR: %d offsets for %d rows, ending at %d of %d bytes",
			len(g.Offsets), g.NumLocal, g.Offsets[len(g.Offsets)-1], len(g.Packed))
	}
	var row []int64
	var total int64
	for l := range g.NumLocal {
		lo, hi := g.Offsets[l], g.Offsets[l+1]
		if lo > hi {
			return fmt.Errorf("graph: packed CSR: row %d at [%d, %d)", l, lo, hi)
		}
		var k int
		var err error
		row, k, err = DecodePackedRow(g.Packed[lo:hi], g.FirstGlobal+int64(l), g.NumGlobal, row)
		if err == nil && int64(k) != hi-lo {
			err = fmt.Errorf("%w: %d bytes of %d decoded", errPacked, k, hi-lo)
		}
		if err != nil {
			return fmt.Errorf("graph: packed CSR: row of vertex %d: %w", g.FirstGlobal+int64(l), err)
		}
		total += int64(len(row))
	}
	if total != g.PackedEdges {
		return fmt.Errorf("graph: packed CSR: %d entries decoded, %d announced", total, g.PackedEdges)
	}
	return nil
}
