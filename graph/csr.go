package graph

import (
	"cmp"
	"slices"
)

// CSR is one rank's share of an undirected graph under a 1D partition: the
// adjacency rows of the vertices it owns.
//
// Rows are sorted in descending order of neighbour id and hold no duplicates
// and no self-loops, so a (select, max) scan can stop at the first frontier
// neighbour (Lv et al. §III-A) and edge membership is a binary search.
// Exactly one of Cols32 (when every global id fits in 32 bits), Cols64 and
// Packed (the compressed layout, compressed.go) is set; kernels dispatch on
// that once per block, never per edge.
type CSR struct {
	NumGlobal   int64    // vertices in the whole graph
	FirstGlobal int64    // global id of local vertex 0
	NumLocal    int      // vertices owned by this rank
	Offsets     []int64  // row i spans [Offsets[i], Offsets[i+1]) (of Packed's bytes when it is set)
	Cols32      []uint32 // neighbours as global ids, when NumGlobal ≤ 2^32
	Cols64      []int64  // neighbours as global ids, otherwise
	// Packed holds the rows in the compressed layout (AppendPackedRow)
	// followed by PackedPad zero bytes, when neither column array is set,
	// and PackedEdges their entries.
	Packed      []byte
	PackedEdges int64
	// TupleDegree is, per owned vertex, the number of input tuples (u,v) with
	// u ≠ v that touch it, duplicates counted: what Graph500's nedge counts.
	TupleDegree []uint32
	// SelfLoops is the number of self-loop tuples at owned vertices.
	SelfLoops int64
}

// NumEdges is the number of stored (deduplicated, directed) adjacency entries.
func (g *CSR) NumEdges() int64 {
	if g.Packed != nil {
		return g.PackedEdges
	}
	return g.Offsets[g.NumLocal]
}

// Degree is the deduplicated degree of local vertex l.
func (g *CSR) Degree(l uint32) int64 {
	if g.Packed != nil {
		d, _ := PackedDegree(g.Packed, g.Offsets[l])
		return d
	}
	return g.Offsets[l+1] - g.Offsets[l]
}

// Row returns the neighbours of local vertex l, in descending order, in
// buf's storage: a decoded copy of a packed row, a copy of a plain one
// (AppendRow).
func (g *CSR) Row(l uint32, buf []int64) []int64 { return AppendRow(g, l, buf) }

// Bytes is the memory of the adjacency: offsets, columns or packed rows,
// and tuple degrees.
func (g *CSR) Bytes() int64 {
	return 8*int64(len(g.Offsets)+len(g.Cols64)) + 4*int64(len(g.Cols32)+len(g.TupleDegree)) + int64(len(g.Packed))
}

// Neighbor returns the i-th stored adjacency entry as a global id (plain
// layouts; a packed row is read with Row).
func (g *CSR) Neighbor(i int64) int64 {
	if g.Cols32 != nil {
		return int64(g.Cols32[i])
	}
	return g.Cols64[i]
}

// HasEdge reports whether local vertex l has global neighbour u (binary search
// in the descending row).
func (g *CSR) HasEdge(l uint32, u int64) bool {
	lo, hi := g.Offsets[l], g.Offsets[l+1]
	if g.Packed != nil {
		_, ok := slices.BinarySearchFunc(g.Row(l, nil), u, func(x, u int64) int { return cmp.Compare(u, x) })
		return ok
	}
	if g.Cols32 != nil {
		return DescendingRowHas(g.Cols32[lo:hi], u)
	}
	return DescendingRowHas(g.Cols64[lo:hi], u)
}

// DescendingRowHas reports whether row, sorted in descending order, holds u
// (binary search). Kernel 1's rows, 1D and 2D, are in that order.
func DescendingRowHas[C uint32 | int64](row []C, u int64) bool {
	return descendingRowIndex(row, u) >= 0
}
