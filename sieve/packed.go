package sieve

import (
	"fmt"
	"math/bits"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// Packer is one rank's state of the packed sieve, graphrun's step beyond
// Lv et al. §V-A: the sieved frontier f_j ⊙ V(i,j) is sent without the
// positions where both ends already know the bit is clear.
//
// Sender j and receiver i both know V(i,j): j holds it in its Directory
// column, i in its directory row (the neighbours of its own vertices, the map
// BuildExchanged sends). Both also know which of those positions j has sent
// as set earlier in the same search — a vertex joins the frontier once, so
// those bits are clear at every later level. What remains, the live
// positions L(i,j) = V(i,j) minus the bits already sent, is the only place a
// set bit can appear. Pack gathers the frontier's bits at the live positions,
// in order, into a bitmap of |L(i,j)| bits (a software PEXT); Unpack scatters
// them back (PDEP) into rank j's range of the receiver's global frontier.
// Both then drop the sent bits from L(i,j), so the next level's message is
// shorter still. The packed bitmap then goes through any frontier codec.
//
// The packed message carries exactly the information of the sieved one: the
// receiver rebuilds f_j ⊙ V(i,j) bit for bit, so the bottom-up scan, and
// every parent and level, is the same as with the plain sieve (the tests
// check it on every mode). It is shorter by the density of L(i,j): at the
// peak level of a Kronecker BFS on 16 ranks the raw sieved message shrinks
// to the 25–40 % of positions in V(i,j), and after the peak, to the few
// positions not yet sent.
//
// Memory: besides the Directory (n bits), a Packer keeps the directory row
// (n bits), the receiver's live positions (n bits) and the sender's live
// positions (one vector per peer with a non-empty V(i,j): at most n bits).
// Reset costs one pass over them per search; Pack and Unpack cost one pass
// over the live words of the peer plus the set bits, never a bit loop over
// clear words.
//
// Pack for peer i and Unpack from peer j touch only that peer's state, so
// distinct peers may be handled by different goroutines at once; one peer
// must not be packed (or unpacked) by two goroutines at a time.
type Packer struct {
	part partition.Block1D
	rank int
	dir  *Directory

	row     frontier.Bitmap // bit u set iff u has a neighbour owned by rank: V(rank, owner(u))
	rowOnes []int           // per source: set bits of row over the source's range

	out     []frontier.Bitmap // per peer: the sender's live positions L(peer, rank)
	outOnes []int
	in      frontier.Bitmap // per source range: the receiver's live positions L(rank, src)
	inOnes  []int
}

// NewPacker builds the packed-sieve state of dir's rank from the rank's rows
// g (the same CSR dir was built from). threads goroutines mark the directory
// row (threads < 1 means GOMAXPROCS). The Packer starts Reset.
func NewPacker(dir *Directory, g *graph.CSR, threads int) (*Packer, error) {
	part, rank := dir.part, dir.rank
	row, err := neighbourMap(g, part, rank, threads)
	if err != nil {
		return nil, err
	}
	p := &Packer{
		part:    part,
		rank:    rank,
		dir:     dir,
		row:     row,
		rowOnes: make([]int, part.P),
		out:     make([]frontier.Bitmap, part.P),
		outOnes: make([]int, part.P),
		in:      frontier.NewBitmap(part.N),
		inOnes:  make([]int, part.P),
	}
	for src := range part.P {
		p.rowOnes[src] = int(p.sourceRange(row, src).Count())
	}
	for peer := range part.P {
		if peer != rank && dir.Kind(peer) != Empty {
			p.out[peer] = make(frontier.Bitmap, dir.Words())
		}
	}
	p.Reset()
	return p, nil
}

// sourceRange is the slice of an n-bit map over src's vertices.
func (p *Packer) sourceRange(b frontier.Bitmap, src int) frontier.Bitmap {
	w0 := int(p.part.First(src) >> 6)
	return b[w0 : w0+p.part.Words(src)]
}

// Reset makes every position of the directory live again, for a new search.
func (p *Packer) Reset() {
	for peer, live := range p.out {
		if live != nil {
			copy(live, p.dir.Column(peer))
			p.outOnes[peer] = int(p.dir.Ones(peer))
		}
	}
	copy(p.in, p.row)
	copy(p.inOnes, p.rowOnes)
}

// Bytes is the memory the Packer holds beyond the Directory.
func (p *Packer) Bytes() int64 {
	b := int64(len(p.row)+len(p.in)) * 8
	for _, live := range p.out {
		b += int64(len(live)) * 8
	}
	return b + int64(len(p.rowOnes)+len(p.outOnes)+len(p.inOnes))*8
}

// Live is the number of positions still live towards peer: the bit length of
// the next message Pack writes for it.
func (p *Packer) Live(peer int) int { return p.outOnes[peer] }

// Expected is the number of words of the packed message Unpack accepts from
// src next.
func (p *Packer) Expected(src int) int { return frontier.WordsFor(int64(p.inOnes[src])) }

// Pack writes into dst (resized to WordsFor(Live(peer)) words, reallocated
// only when its capacity is short) the bits of this rank's frontier f at the
// positions live towards peer, in increasing order, and returns it. The sent
// bits stop being live. f is a bitmap over the rank's vertices of
// Directory.Words() words; bits outside V(peer, rank) are ignored, as the
// sieve ignores them. Pack panics on a wrong length, like Sieve.
func (p *Packer) Pack(dst, f frontier.Bitmap, peer int) frontier.Bitmap {
	if len(f) != p.dir.Words() {
		panic(fmt.Sprintf("sieve: packing a frontier of %d words for rank %d, which has %d", len(f), p.rank, p.dir.Words()))
	}
	n := frontier.WordsFor(int64(p.outOnes[peer]))
	if cap(dst) < n {
		dst = make(frontier.Bitmap, n)
	}
	dst = dst[:n]
	clear(dst)
	live := p.out[peer]
	if live == nil {
		return dst
	}
	sent := PackBits(dst, f, live)
	p.outOnes[peer] -= sent
	return dst
}

// PackBits is the packed sieve's gather (a software PEXT over bitmaps): it
// ORs the bits of f at the set positions of live into dst, in order from bit
// 0, clears the gathered set bits from live and returns their number. dst
// holds at least popcount(live) bits and is normally zero; f at least
// len(live) words. The 1D Packer and the 2D engine's row update and expand
// (bfs.BFS2D) both pack with it.
func PackBits(dst, f, live frontier.Bitmap) (sent int) {
	f = f[:len(live)]
	pos := 0 // bit index in dst of live[w]'s lowest set bit
	for w, lw := range live {
		if lw == 0 {
			continue
		}
		c := bits.OnesCount64(lw)
		if s := f[w] & lw; s != 0 {
			live[w] = lw &^ s
			n := bits.OnesCount64(s)
			sent += n
			if n <= sparseBits { // a few bits: place each by the popcount below it
				for ; s != 0; s &= s - 1 {
					k := pos + bits.OnesCount64(lw&(s&-s-1))
					dst[k>>6] |= 1 << (uint(k) & 63)
				}
			} else {
				orBits(dst, pos, c, pext64(s, lw))
			}
		}
		pos += c
	}
	return sent
}

// sparseBits is the number of set bits up to which PackBits places bits one
// by one rather than by the byte-table PEXT (8 lookups a word).
const sparseBits = 2

// orBits ORs the c low bits of v into dst at bit offset pos.
func orBits(dst frontier.Bitmap, pos, c int, v uint64) {
	w, s := pos>>6, uint(pos)&63
	dst[w] |= v << s
	if s != 0 && int(s)+c > 64 {
		dst[w+1] |= v >> (64 - s)
	}
}

// Unpack scatters the packed message from src (Expected(src) words, as Pack
// wrote it on src) into dst, the receiver's range of src's vertices
// (part.Words(src) words), which it overwrites: the result equals src's
// frontier sieved for this rank. The received bits stop being live. A
// message of the wrong length or with bits beyond the live count is an
// error, and leaves the state untouched.
func (p *Packer) Unpack(dst, packed frontier.Bitmap, src int) error {
	if want := p.part.Words(src); len(dst) != want {
		return fmt.Errorf("sieve: unpacking into %d words for rank %d, which has %d", len(dst), src, want)
	}
	count := p.inOnes[src]
	if len(packed) != frontier.WordsFor(int64(count)) {
		return fmt.Errorf("sieve: packed frontier of %d words from rank %d, expected %d (%d live positions)",
			len(packed), src, frontier.WordsFor(int64(count)), count)
	}
	if count%64 != 0 && packed[len(packed)-1]>>(uint(count)&63) != 0 {
		return fmt.Errorf("sieve: packed frontier from rank %d sets bits beyond its %d live positions", src, count)
	}
	clear(dst)
	p.inOnes[src] -= UnpackBits(dst, packed, p.sourceRange(p.in, src))
	return nil
}

// UnpackBits is the inverse of PackBits (a software PDEP over bitmaps): it
// ORs the bits of packed, in order, into dst at the set positions of live,
// clears the deposited set bits from live and returns their number. packed
// holds at least popcount(live) bits; dst at least len(live) words.
func UnpackBits(dst, packed, live frontier.Bitmap) (received int) {
	pos := 0
	for w, lw := range live {
		if lw == 0 {
			continue
		}
		c := bits.OnesCount64(lw)
		win := window(packed, pos, c)
		pos += c
		if win == 0 {
			continue
		}
		var out uint64
		switch {
		case c == 64: // every bit of the word is live
			out = win
		case win == 1<<uint(c)-1: // every live bit is set
			out = lw
		default:
			out = pdep64(win, lw)
		}
		dst[w] |= out
		live[w] = lw &^ out
		received += bits.OnesCount64(out)
	}
	return received
}

// window returns the c bits (1 ≤ c ≤ 64) of b starting at bit off, as the
// low bits of a word; b holds at least off+c bits.
func window(b frontier.Bitmap, off, c int) uint64 {
	w, s := off>>6, uint(off)&63
	x := b[w] >> s
	if s != 0 && int(s)+c > 64 {
		x |= b[w+1] << (64 - s)
	}
	if c < 64 {
		x &= 1<<uint(c) - 1
	}
	return x
}

// neighbourMap marks, in an n-bit map, every neighbour of rank's vertices:
// the directory row {V(rank, j) : j}, computed from the rows as
// BuildExchanged does before its exchange.
func neighbourMap(g *graph.CSR, part partition.Block1D, rank, threads int) (frontier.Bitmap, error) {
	if err := checkCSR(g, part, rank); err != nil {
		return nil, err
	}
	marked := frontier.NewBitmap(part.N)
	spans := rowSpans(g.Offsets, g.NumLocal, threadCount(threads), spanAlign)
	nt := len(spans) - 1
	errs := make([]error, nt)
	parallel.For(nt, func(t int) {
		if g.Packed != nil {
			var row []int64
			span := []int64{0, 0}
			for v := spans[t]; v < spans[t+1] && errs[t] == nil; v++ {
				if row, errs[t] = packedRow(g, v, row); errs[t] == nil {
					span[1] = int64(len(row))
					errs[t] = markNeighbours(row, span, part.N, 0, 1, marked)
				}
			}
		} else if g.Cols64 != nil {
			errs[t] = markNeighbours(g.Cols64, g.Offsets, part.N, spans[t], spans[t+1], marked)
		} else {
			errs[t] = markNeighbours(g.Cols32, g.Offsets, part.N, spans[t], spans[t+1], marked)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("sieve: rank %d: %w", rank, err)
		}
	}
	return marked, nil
}
