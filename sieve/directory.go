package sieve

import (
	"fmt"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/internal/enum"
	"github.com/graphrun/graphrun/partition"
)

// Kind says how a directory vector is stored.
type Kind uint8

// Kinds of directory vector.
const (
	// Mixed vectors have set and clear bits; they are stored.
	Mixed Kind = iota
	// Empty vectors have no bit set: the peer has no edge into this rank's
	// vertices and the sieve sends it nothing.
	Empty
	// Full vectors have every owned vertex's bit set: the sieve keeps the
	// whole frontier.
	Full
)

// kindNames are the Kinds' names (enum.Name).
var kindNames = [...]string{Mixed: "mixed", Empty: "empty", Full: "full"}

func (k Kind) String() string { return enum.Name(kindNames[:], "kind", k) }

// Directory is one rank's column of the cross directory (Lv et al. eq. 5,
// Fig. 4): for every peer i, itself included, V(i, rank), the bitmap over
// the rank's owned vertices of those with a neighbour owned by i.
//
// A Directory is immutable once built: its methods may be called from any
// number of goroutines at once.
type Directory struct {
	part  partition.Block1D
	rank  int
	count int    // vertices the rank owns: valid bits of every vector
	tail  uint64 // valid bits of the last word (all ones when count%64 == 0)

	cols  []frontier.Bitmap // cols[i] = V(i, rank); Empty/Full peers share zero/full
	kinds []Kind
	ones  []int64 // set bits of V(i, rank)

	zero, full frontier.Bitmap // shared vectors of Empty and Full peers, nil when unused
}

// perPeerBytes is the bookkeeping a Directory keeps per peer besides the
// vector's words: a slice header, a popcount and a kind.
const perPeerBytes = 24 + 8 + 1

// newDirectory takes ownership of cols (p bitmaps of Words(rank) words with
// no bit set beyond Count(rank)) and their popcounts, and replaces the empty
// and full ones with shared vectors.
func newDirectory(part partition.Block1D, rank int, cols []frontier.Bitmap, ones []int64) *Directory {
	count := part.Count(rank)
	d := &Directory{
		part:  part,
		rank:  rank,
		count: count,
		tail:  tailMask(count),
		cols:  cols,
		kinds: make([]Kind, len(cols)),
		ones:  ones,
	}
	words := part.Words(rank)
	for i := range cols {
		switch ones[i] {
		case 0:
			if d.zero == nil {
				d.zero = make(frontier.Bitmap, words)
			}
			d.kinds[i], d.cols[i] = Empty, d.zero
		case int64(count):
			if d.full == nil {
				d.full = make(frontier.Bitmap, words)
				for w := range d.full {
					d.full[w] = ^uint64(0)
				}
				if words > 0 {
					d.full[words-1] = d.tail
				}
			}
			d.kinds[i], d.cols[i] = Full, d.full
		}
	}
	return d
}

// tailMask is the mask of the valid bits in the last word of a bitmap of
// count bits.
func tailMask(count int) uint64 {
	if count%64 == 0 {
		return ^uint64(0)
	}
	return uint64(1)<<(count%64) - 1
}

// Rank is the rank whose vertices the directory's vectors cover.
func (d *Directory) Rank() int { return d.rank }

// Peers is the number of ranks, the number of directory vectors.
func (d *Directory) Peers() int { return len(d.cols) }

// Words is the length of every vector and of the frontiers Sieve accepts:
// part.Words(Rank()).
func (d *Directory) Words() int { return d.part.Words(d.rank) }

// Kind tells whether V(peer, Rank()) is empty, full or stored.
func (d *Directory) Kind(peer int) Kind { return d.kinds[peer] }

// Ones is the number of vertices of Rank() with a neighbour owned by peer.
func (d *Directory) Ones(peer int) int64 { return d.ones[peer] }

// Density is the fraction of Rank()'s vertices with a neighbour owned by
// peer: the fraction of a frontier the sieve keeps for peer, on average. It
// is 0 when the rank owns no vertex.
func (d *Directory) Density(peer int) float64 {
	if d.count == 0 {
		return 0
	}
	return float64(d.ones[peer]) / float64(d.count)
}

// Column returns V(peer, Rank()), Words() words with no bit set beyond the
// rank's vertices. It is shared with the directory (and, for empty and full
// vectors, between peers): callers must not modify it.
func (d *Directory) Column(peer int) frontier.Bitmap { return d.cols[peer] }

// Bytes is the memory the directory holds: the stored vectors, the shared
// empty and full vectors, and a few words of bookkeeping per peer. Without
// empty or full vectors it is p·Words()·8 bytes plus bookkeeping, about n/8
// bytes per rank (Lv et al. §VI-B: O(n) bits per rank).
func (d *Directory) Bytes() int64 {
	b := int64(len(d.cols)) * perPeerBytes
	for i, c := range d.cols {
		if d.kinds[i] == Mixed {
			b += int64(len(c)) * 8
		}
	}
	return b + int64(len(d.zero)+len(d.full))*8
}

// Sieve writes f ⊙ V(peer, Rank()) into dst, resized to len(f) (reallocated
// only when its capacity is short), and returns it: the part of rank
// Rank()'s frontier f that rank peer's bottom-up scan can ever read (Lv et
// al. Alg. 3 line 9). Bits beyond the rank's vertices are cleared. dst may
// be f itself (sieve in place) but must not otherwise overlap it.
//
// f must be a bitmap over the rank's vertices, of Words() words; Sieve
// panics otherwise, like an out-of-range index.
func (d *Directory) Sieve(dst, f frontier.Bitmap, peer int) frontier.Bitmap {
	n := len(f)
	if n != d.part.Words(d.rank) {
		panic(fmt.Sprintf("sieve: frontier of %d words for rank %d, which has %d", n, d.rank, d.part.Words(d.rank)))
	}
	kind, col := d.kinds[peer], d.cols[peer]
	if cap(dst) < n {
		dst = make(frontier.Bitmap, n)
	}
	dst = dst[:n]
	switch kind {
	case Empty:
		clear(dst)
	case Full:
		copy(dst, f)
		if n > 0 {
			dst[n-1] &= d.tail
		}
	default:
		andWords(dst, f, col)
	}
	return dst
}

// andWords sets dst[k] = a[k] & b[k]; the three have the same length. The
// loop is unrolled by four words so that the bounds checks are hoisted.
func andWords(dst, a, b []uint64) {
	n := len(dst)
	a, b = a[:n], b[:n]
	k := 0
	for ; k+4 <= n; k += 4 {
		d, x, y := dst[k:k+4:k+4], a[k:k+4:k+4], b[k:k+4:k+4]
		d[0] = x[0] & y[0]
		d[1] = x[1] & y[1]
		d[2] = x[2] & y[2]
		d[3] = x[3] & y[3]
	}
	for ; k < n; k++ {
		dst[k] = a[k] & b[k]
	}
}
