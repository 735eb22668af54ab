package graph

// CSR is one rank's share of an undirected graph under a 1D partition: the
// adjacency rows of the vertices it owns.
//
// Rows are sorted in descending order of neighbour id and hold no duplicates
// and no self-loops, so a (select, max) scan can stop at the first frontier
// neighbour (Lv et al. §III-A) and edge membership is a binary search.
// Exactly one of Cols32 (when every global id fits in 32 bits) and Cols64 is
// set; kernels dispatch on that once per block, never per edge.
type CSR struct {
	NumGlobal   int64    // vertices in the whole graph
	FirstGlobal int64    // global id of local vertex 0
	NumLocal    int      // vertices owned by this rank
	Offsets     []int64  // row i spans [Offsets[i], Offsets[i+1])
	Cols32      []uint32 // neighbours as global ids, when NumGlobal ≤ 2^32
	Cols64      []int64  // neighbours as global ids, otherwise
	// TupleDegree is, per owned vertex, the number of input tuples (u,v) with
	// u ≠ v that touch it, duplicates counted: what Graph500's nedge counts.
	TupleDegree []uint32
	// SelfLoops is the number of self-loop tuples at owned vertices.
	SelfLoops int64
}

// NumEdges is the number of stored (deduplicated, directed) adjacency entries.
func (g *CSR) NumEdges() int64 { return g.Offsets[g.NumLocal] }

// Degree is the deduplicated degree of local vertex l.
func (g *CSR) Degree(l uint32) int64 { return g.Offsets[l+1] - g.Offsets[l] }

// Neighbor returns the i-th stored adjacency entry as a global id.
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
