// This file is the 2D partition that Lv et al. name as the step after
// compression and sieve (their §VIII related work and §IX future work: a 2D
// cut makes a frontier exchange involve the ranks of one processor row or
// column instead of all p ranks). The formulation is Lv et al. §III's SpMV
// t = A ⊗ f over the (select, max) semiring, with the matrix cut into an r×c
// grid of blocks, one per rank of an r×c process grid.
//
// Layout (the one of Yoo et al., SC'05, which Lv et al. §VIII cite, and of
// the Graph500 2D codes): vertices keep the 1D block ownership of Block1D —
// rank k owns vertex piece k — and rank k sits at grid position (i, j) =
// (k / c, k mod c), row-major. Let R_i be the vertices owned by processor row
// i (pieces i·c … i·c+c−1, a contiguous id range) and C_j those owned by
// processor column j (pieces j, c+j, 2c+j, …, strided). Rank (i, j) stores
// the block A[R_i, C_j]: the edges from its row's vertices to its column's
// vertices. A level then needs
//
//   - expand: the frontier restricted to C_j, which the r ranks of processor
//     column j own between them (an exchange along the column);
//   - fold: the candidates a rank finds for vertices of R_i go to their
//     owners, all in processor row i (an exchange along the row).
//
// No vector transpose is needed, unlike the layout with contiguous column
// blocks, because every vertex piece lies both in its owner's row set and in
// its owner's column set. And since vertex ownership is Block1D's, BFS results
// are already in the 1D layout the validator reads.
//
// Local ids: a row of block (i, j) is numbered from the first vertex of R_i
// (RowLocal), a column by its piece's position in C_j times Block plus its
// offset in the piece (ColLocal). Both orders are the global order, so a row
// sorted by descending local column is sorted by descending global id and the
// (select, max) scan still stops at its first hit.
//
// Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun, "Compression and
// Sieve: Reducing Communication in Parallel Breadth First Search on
// Distributed Memory Systems", arXiv preprint (Institute of Computing
// Technology, CAS), 2012. Andy Yoo, Edmond Chow, Keith Henderson, William
// McLendon, Bruce Hendrickson and Ümit Çatalyürek, "A Scalable Distributed
// Parallel Breadth-First Search Algorithm on BlueGene/L", SC'05, ACM/IEEE,
// 2005.

package partition

import (
	"fmt"
	"strconv"
	"strings"
)

// Grid is a 2D r×c partition of the adjacency matrix of N vertices over
// p = R·C ranks, with vertex ownership Part (see the file comment).
type Grid struct {
	R, C int     // processor rows and columns
	Part Block1D // vertex ownership: rank i·C+j owns piece i·C+j
}

// NewGrid returns the r×c grid partition of n vertices. Rows of a block are
// numbered up to c·Block and columns up to r·Block, which must fit uint32.
func NewGrid(n int64, r, c int) (Grid, error) {
	if r < 1 || c < 1 {
		return Grid{}, fmt.Errorf("partition: grid %dx%d: both sides must be at least 1", r, c)
	}
	part, err := NewBlock1D(n, r*c)
	if err != nil {
		return Grid{}, fmt.Errorf("partition: grid %dx%d: %w", r, c, err)
	}
	if span := int64(max(r, c)) * part.Block; span > maxBlock {
		return Grid{}, fmt.Errorf("partition: grid %dx%d: a block spans %d row or column ids, beyond uint32 local ids; use a squarer grid or more ranks",
			r, c, span)
	}
	return Grid{R: r, C: c, Part: part}, nil
}

// P is the number of ranks.
func (g Grid) P() int { return g.R * g.C }

// String is the grid as "RxC".
func (g Grid) String() string { return fmt.Sprintf("%dx%d", g.R, g.C) }

// Rank returns the rank at grid position (i, j).
func (g Grid) Rank(i, j int) int { return i*g.C + j }

// Coords returns the grid position (row, column) of rank.
func (g Grid) Coords(rank int) (i, j int) { return rank / g.C, rank % g.C }

// RowMembers returns the ranks of processor row i, in column order.
func (g Grid) RowMembers(i int) []int {
	m := make([]int, g.C)
	for j := range m {
		m[j] = g.Rank(i, j)
	}
	return m
}

// ColMembers returns the ranks of processor column j, in row order.
func (g Grid) ColMembers(j int) []int {
	m := make([]int, g.R)
	for i := range m {
		m[i] = g.Rank(i, j)
	}
	return m
}

// RowFirst returns the global id of the first vertex of R_i (local row 0 of
// the blocks of processor row i).
func (g Grid) RowFirst(i int) int64 { return g.Part.First(g.Rank(i, 0)) }

// RowCount returns the number of vertices in R_i.
func (g Grid) RowCount(i int) int {
	lo := g.RowFirst(i)
	hi := min(lo+int64(g.C)*g.Part.Block, g.Part.N)
	return int(hi - lo)
}

// RowSpan is the size of the local row id space of a block: C·Block (the
// last row of the grid may hold fewer vertices, see RowCount).
func (g Grid) RowSpan() int64 { return int64(g.C) * g.Part.Block }

// ColSpan is the size of the local column id space of a block: R·Block, one
// Block-sized range per piece of C_j (pieces past N are empty, the last one
// may be partial).
func (g Grid) ColSpan() int64 { return int64(g.R) * g.Part.Block }

// RowOf returns the processor row whose blocks hold v's row (the grid row of
// v's owner).
func (g Grid) RowOf(v int64) int { return g.Part.Owner(v) / g.C }

// ColOf returns the processor column whose blocks hold v's column.
func (g Grid) ColOf(v int64) int { return g.Part.Owner(v) % g.C }

// RowLocal returns v's local row id in the blocks of processor row RowOf(v).
func (g Grid) RowLocal(v int64) uint32 { return uint32(v - g.RowFirst(g.RowOf(v))) }

// ColLocal returns v's local column id in the blocks of processor column
// ColOf(v): its piece's position in the column times Block plus its offset.
func (g Grid) ColLocal(v int64) uint32 {
	k := v / g.Part.Block
	return uint32((k/int64(g.C))*g.Part.Block + v%g.Part.Block)
}

// RowGlobal returns the global id of local row l of processor row i.
func (g Grid) RowGlobal(i int, l uint32) int64 { return g.RowFirst(i) + int64(l) }

// ColGlobal returns the global id of local column l of processor column j.
func (g Grid) ColGlobal(j int, l uint32) int64 {
	a := int64(l) / g.Part.Block
	return (a*int64(g.C)+int64(j))*g.Part.Block + int64(l)%g.Part.Block
}

// ParseGrid parses "RxC" (also "R×C" or "R*C") into its two sides.
func ParseGrid(s string) (r, c int, err error) {
	t := strings.NewReplacer("×", "x", "X", "x", "*", "x").Replace(strings.TrimSpace(s))
	a, b, ok := strings.Cut(t, "x")
	if !ok {
		return 0, 0, fmt.Errorf("grid %q: want RxC, for example 4x4", s)
	}
	r, err1 := strconv.Atoi(a)
	c, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || r < 1 || c < 1 {
		return 0, 0, fmt.Errorf("grid %q: want RxC with positive integers, for example 4x4", s)
	}
	return r, c, nil
}

// maxAspect is the largest ratio of the grid's sides AutoGrid chooses
// without a note: beyond it a 2D grid loses most of its advantage.
const maxAspect = 2

// AutoGrid returns the most square r×c factorisation of p with r ≥ c (more
// processor rows than columns when p is not a square: a 2D BFS level costs
// about 3(c−1) + 2(r−1) messages per rank in graphrun — fold, row update and
// the row half of the count reduction along rows; expand and the other half
// along columns — so the longer side goes to the columns of ranks, that is
// to the rows of the grid). note is empty for a near-square grid; for a
// prime p (only p×1 exists, which is the 1D partition) or a grid whose sides
// differ by more than a factor of 2 it says which grid was chosen and why.
func AutoGrid(p int) (r, c int, note string) {
	if p < 1 {
		return 0, 0, fmt.Sprintf("%d ranks: no grid", p)
	}
	c = 1
	for d := 1; d*d <= p; d++ {
		if p%d == 0 {
			c = d
		}
	}
	r = p / c
	switch {
	case p > 1 && c == 1:
		note = fmt.Sprintf("%d ranks: %d is prime, so the only grids are %dx1 and 1x%d; using %dx1, which is the 1D row partition (expand over all %d ranks, no fold)",
			p, p, p, p, p, p)
	case r > maxAspect*c:
		note = fmt.Sprintf("%d ranks: the squarest factorisation is %dx%d (sides differ by %.1fx); a rank count with closer factors, such as %d, gives a squarer grid",
			p, r, c, float64(r)/float64(c), nearSquare(p))
	}
	return r, c, note
}

// nearSquare returns the rank count closest to p (not above 2p) whose most
// square factorisation has sides within a factor of 2, preferring fewer
// ranks.
func nearSquare(p int) int {
	ok := func(q int) bool {
		c := 1
		for d := 1; d*d <= q; d++ {
			if q%d == 0 {
				c = d
			}
		}
		return q/c <= maxAspect*c
	}
	for d := 1; d <= p; d++ {
		if p-d >= 1 && ok(p-d) {
			return p - d
		}
		if ok(p + d) {
			return p + d
		}
	}
	return p
}
