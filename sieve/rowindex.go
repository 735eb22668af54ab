package sieve

// The receiving side of the cross directory (Lv et al. §V-A, eq. 4 read by
// rows): rank i's directory row {V(i, j) : j}, the vertices of every rank j
// with a neighbour owned by i, with a rank index over it, so that a value sent
// for every position of V(i, j) — in increasing vertex order, by rank j from
// its Directory column — can be found by vertex id. The distributed validator
// (bfs.Validator) keeps the neighbours' BFS levels this way: a rank receives
// one level per boundary vertex and looks each up in O(1), with no map and no
// array of n entries.

import (
	"fmt"
	"math/bits"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// lineWords is the number of words of the row one count of a RowIndex
// covers: 8 words, 512 vertices, one cache line.
const lineWords = 8

// RowIndex is one rank's directory row with a rank index: bit u of the row is
// set iff u has a neighbour owned by the rank, and Index(u) is the number of
// set bits before u. The set positions of the row over rank j's vertices are
// V(rank, j) in Lv et al.'s notation; Index numbers them consecutively, rank
// j's from First(j) on, so that one array of Len() entries holds a value for
// every neighbour of the rank, grouped by owner.
//
// The row may have bits set over the rank's own vertices (a Packer's row
// does, BuildRowIndex's does not); they are counted like the others, leaving
// Ones(rank) unused entries in such an array, and are never looked up.
//
// Memory: the row (n bits, shared with a Packer when built from its row),
// one int64 count per 512 vertices and one uint16 count per 64 (the set
// bits before each word within its 512): 3n/8 bits. A lookup reads one word
// of each of the three arrays and does one popcount, with no loop and no
// branch. A RowIndex is immutable and may be used by any number of
// goroutines at once.
type RowIndex struct {
	part   partition.Block1D
	rank   int
	row    frontier.Bitmap
	counts []int64  // counts[k] = set bits in row[:k·lineWords]
	sub    []uint16 // sub[w] = set bits in row[w&^(lineWords-1):w]
	first  []int64  // per owner: Index of its first vertex
	ones   []int64  // per owner: set bits over its vertices
	owned  bool     // row was built for this index (counted by Bytes)
}

// BuildRow returns rank's directory row computed from its rows g (a CSR of
// graph.BuildUndirected for part), without the rank's own vertices: an n-bit
// map whose bit u is set iff u, owned by another rank, is a neighbour of one
// of rank's vertices. threads goroutines mark it (threads < 1 means
// GOMAXPROCS). A malformed CSR is an error.
func BuildRow(g *graph.CSR, part partition.Block1D, rank, threads int) (frontier.Bitmap, error) {
	row, err := neighbourMap(g, part, rank, threads)
	if err != nil {
		return nil, err
	}
	w0 := int(part.First(rank) >> 6)
	clear(row[w0 : w0+part.Words(rank)])
	return row, nil
}

// BuildRowIndex is NewRowIndex of BuildRow's row, which the index then
// counts as its own memory.
func BuildRowIndex(g *graph.CSR, part partition.Block1D, rank, threads int) (*RowIndex, error) {
	row, err := BuildRow(g, part, rank, threads)
	if err != nil {
		return nil, err
	}
	x, err := NewRowIndex(row, part, rank)
	if err != nil {
		return nil, err
	}
	x.owned = true
	return x, nil
}

// NewRowIndex indexes row, an n-bit directory row of rank under part (for
// example Packer.Row), which it keeps and never modifies.
func NewRowIndex(row frontier.Bitmap, part partition.Block1D, rank int) (*RowIndex, error) {
	if rank < 0 || rank >= part.P {
		return nil, fmt.Errorf("sieve: rank %d outside [0, %d)", rank, part.P)
	}
	if len(row) != frontier.WordsFor(part.N) {
		return nil, fmt.Errorf("sieve: directory row of %d words for %d vertices", len(row), part.N)
	}
	if t := tailMask(int(part.N % 64)); part.N%64 != 0 && row[len(row)-1]&^t != 0 {
		return nil, fmt.Errorf("sieve: directory row has bits set beyond its %d vertices", part.N)
	}
	x := &RowIndex{
		part:   part,
		rank:   rank,
		row:    row,
		counts: make([]int64, (len(row)+lineWords-1)/lineWords),
		sub:    make([]uint16, len(row)),
		first:  make([]int64, part.P),
		ones:   make([]int64, part.P),
	}
	var total int64
	for k := range x.counts {
		x.counts[k] = total
		var in uint16
		for w := k * lineWords; w < min(len(row), (k+1)*lineWords); w++ {
			x.sub[w] = in
			in += uint16(bits.OnesCount64(row[w]))
		}
		total += int64(in)
	}
	for j := range part.P {
		x.first[j] = total // ranks past the last vertex own nothing
		if f := part.First(j); f < part.N {
			x.first[j] = x.Index(f)
		}
		if j > 0 {
			x.ones[j-1] = x.first[j] - x.first[j-1]
		}
	}
	x.ones[part.P-1] = total - x.first[part.P-1]
	return x, nil
}

// Index returns the number of set bits of the row before vertex u: the
// position of u's value in an array of Len() values when u's bit is set.
// u must be in [0, n).
func (x *RowIndex) Index(u int64) int64 {
	w := uint64(u) >> 6
	return x.counts[w/lineWords] + int64(x.sub[w]) + int64(bits.OnesCount64(x.row[w]&(1<<(uint64(u)&63)-1)))
}

// Has reports whether u's bit is set: whether u has a neighbour owned by
// the rank.
func (x *RowIndex) Has(u int64) bool { return x.row.Test(u) }

// Rank is the rank whose row this is.
func (x *RowIndex) Rank() int { return x.rank }

// First is Index(part.First(owner)): where owner's vertices start.
func (x *RowIndex) First(owner int) int64 { return x.first[owner] }

// Ones is the number of set bits over owner's vertices: |V(Rank(), owner)|
// for owner ≠ Rank(), which is what owner's Directory column says for peer
// Rank() (Directory.Ones), the graph being undirected.
func (x *RowIndex) Ones(owner int) int64 { return x.ones[owner] }

// Len is the number of set bits of the row.
func (x *RowIndex) Len() int64 { return x.first[x.part.P-1] + x.ones[x.part.P-1] }

// Bytes is the memory the index holds: its counts, and the row when the
// index built it.
func (x *RowIndex) Bytes() int64 {
	b := int64(len(x.counts)+len(x.first)+len(x.ones))*8 + int64(len(x.sub))*2
	if x.owned {
		b += int64(len(x.row)) * 8
	}
	return b
}

// Row returns the directory row this Packer keeps (bit u set iff u has a
// neighbour owned by the rank, the rank's own vertices included), for
// NewRowIndex. It is shared: callers must not modify it.
func (p *Packer) Row() frontier.Bitmap { return p.row }
