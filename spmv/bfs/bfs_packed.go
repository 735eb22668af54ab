package bfs

// The 1D hot loops over the compressed layout (graph/compressed.go, after
// Shun, Dhulipala and Blelloch, "Smaller and Faster: Parallel Processing of
// Compressed Graphs with Ligra+", DCC 2015): the same loops as pullWords
// and expandRows, decoding each row's gaps as they go. A bottom-up scan
// decodes a row only up to its first frontier neighbour, which, rows being
// descending, is still the largest.

import (
	"encoding/binary"
	"math/bits"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// packedRow is where a row's codes start: its degree d, its first
// neighbour u, and, when d > 1, the bit bp of its first gap's Rice code of
// parameter k (mask 2^k − 1).
type packedRow struct {
	d, u, bp, mask uint64
	k              uint
}

// openRow reads the head of the packed row of local vertex v: with one
// load (graph.PackedHead), or byte by byte when it does not fit one.
func openRow(packed []byte, offsets []int64, first int64, v int) packedRow {
	at := offsets[v]
	d, z, n, ok := graph.PackedHead(binary.LittleEndian.Uint64(packed[at:]))
	if !ok {
		if d, at = graph.PackedNext(packed, at); d != 0 {
			z, at = graph.PackedNext(packed, at)
		}
		n = 0
	}
	if d == 0 {
		return packedRow{}
	}
	return rowAt(packed, at, n, d, uint64(first+int64(v)+graph.Unzigzag(z)))
}

// rowAt is the packedRow of a row of degree d ≥ 1 and first neighbour u
// whose head ends n bits after byte at.
func rowAt(packed []byte, at int64, n uint, d, u uint64) (r packedRow) {
	r.d, r.u = d, u
	if d > 1 {
		at += int64(n / 8)
		r.k = uint(packed[at])
		r.mask = 1<<r.k - 1
		r.bp = uint64(at+1) * 8
	}
	return r
}

// pullPackedWords is pullWords over packed rows; first is the global id
// of local vertex 0. A row is opened lazily: its first neighbour, the
// largest, is tested from the head alone (graph.PackedHead), most often the
// parent in a bottom-up level, before its Rice parameter is read and its
// gaps decoded one by one up to the first frontier neighbour.
func pullPackedWords(packed []byte, offsets []int64, first int64, global, visited, next frontier.Bitmap,
	parent []int64, level []int32, lo, hi int, lvl int32) (found, degree int64) {
	for w := lo; w < hi; w++ {
		todo := ^visited[w]
		var discovered uint64
	vertices:
		for todo != 0 {
			t := bits.TrailingZeros64(todo)
			todo &= todo - 1
			v := w<<6 | t
			at := offsets[v]
			d, z, n, ok := graph.PackedHead(binary.LittleEndian.Uint64(packed[at:]))
			if !ok { // a head longer than one load: byte by byte
				if d, at = graph.PackedNext(packed, at); d != 0 {
					z, at = graph.PackedNext(packed, at)
				}
				n = 0
			}
			if d == 0 {
				continue
			}
			u := uint64(first + int64(v) + graph.Unzigzag(z))
			if global[u>>6]&(1<<(u&63)) == 0 {
				if d == 1 {
					continue
				}
				r := rowAt(packed, at, n, d, u)
				k, mask, bp := r.k, r.mask, r.bp
				for left := d - 1; ; left-- {
					if left == 0 {
						continue vertices
					}
					// graph.RiceWord's fast path, or graph.RiceNext.
					x, n, ok := graph.RiceWord(binary.LittleEndian.Uint64(packed[bp>>3:])>>(bp&7), k, mask)
					if ok {
						bp += n
					} else {
						x, bp = graph.RiceNext(packed, bp, k, mask)
					}
					u -= x + 1
					if global[u>>6]&(1<<(u&63)) != 0 {
						break
					}
				}
			}
			parent[v] = int64(u)
			level[v] = lvl
			discovered |= 1 << uint(t)
			found++
			degree += int64(d)
		}
		visited[w] |= discovered
		next[w] = discovered
	}
	return found, degree
}

// expandPackedRows is expandRows over packed rows.
func expandPackedRows(packed []byte, offsets []int64, first int64, part partition.Block1D, rank int, visited frontier.Bitmap,
	bufs [][]byte, queue []uint32) {
	var rec [pushRecordSize]byte
	for _, v := range queue {
		binary.LittleEndian.PutUint32(rec[4:], v)
		r := openRow(packed, offsets, first, int(v))
		u, bp := int64(r.u), r.bp
		for e := uint64(0); e < r.d; e++ {
			if e > 0 { // graph.RiceWord's fast path, or graph.RiceNext
				x, n, ok := graph.RiceWord(binary.LittleEndian.Uint64(packed[bp>>3:])>>(bp&7), r.k, r.mask)
				if ok {
					bp += n
				} else {
					x, bp = graph.RiceNext(packed, bp, r.k, r.mask)
				}
				u -= int64(x) + 1
			}
			dst := part.Owner(u)
			l := part.Local(u)
			if dst == rank && visited.Test(int64(l)) {
				continue // already discovered here: no need to send to ourselves
			}
			binary.LittleEndian.PutUint32(rec[:4], l)
			bufs[dst] = append(bufs[dst], rec[:]...)
		}
	}
}
