// This file is kernel 1 for the 2D partition (partition.Grid; Lv et al.
// §VIII–IX name 2D partitioning as the step after compression and sieve, and
// §III gives the SpMV formulation the blocks serve). Rank (i, j) of an r×c
// grid stores the block A[R_i, C_j] twice: by rows, for the bottom-up scan
// (does an unvisited row vertex have a frontier neighbour in C_j?), and by
// columns, for the top-down expansion (which row vertices does a frontier
// column vertex reach?). Only non-empty rows and columns get offsets: a
// block of a sparse graph on many ranks is hypersparse (most of its n/c rows
// are empty), and full offset arrays would cost 8 bytes per row and column
// on every rank, c·n·8 + r·n·8 bytes in all, more than the edges themselves.
// A bitmap of the non-empty rows with a per-word running count finds a row's
// offsets with one popcount; the same bitmaps are the 2D sieve's directories
// (which frontier vertices a block can use, which rows it can discover).

package graph

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"runtime"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// DegreePhase2D is the exchange of the 2D kernel 1 that sums, along each
// processor row, the blocks' row lengths into the degrees of the owned
// vertices. Wire format: per vertex of the receiver's piece, in order, the
// uint32 deduplicated row length and the uint32 tuple count of the sender's
// block, little-endian. (The tuples themselves travel as in 1D, in the
// RoutePhaseCount and RoutePhaseFill rounds of route.go, with the row local
// to the receiver's grid row and the value its local column.)
const DegreePhase2D = "kernel1.degrees2d"

// Block2D is one rank's share of an undirected graph under a 2D grid
// partition: the block A[R_i, C_j] of rank (i, j) (see partition.Grid for the
// layout and the local ids), by rows and by columns, plus the degrees of the
// vertices the rank owns.
//
// Rows hold their local column ids in descending order and columns their
// local row ids in ascending order, without duplicates or self-loops.
type Block2D struct {
	Grid     partition.Grid
	Rank     int
	Row, Col int   // grid position of Rank
	RowFirst int64 // global id of local row 0
	NumRows  int   // vertices in R_i (local rows [0, NumRows))

	// RowMask has bit l set iff local row l holds an entry (Grid.RowSpan()
	// bits); RowRank[w] counts the set bits of RowMask before word w. The
	// k-th non-empty row (in row order) spans Cols[RowOffsets[k]:RowOffsets[k+1]].
	RowMask    []uint64
	RowRank    []uint32
	RowOffsets []int64
	Cols       []uint32
	// ColMask, ColRank, ColOffsets and RowIDs are the same by columns
	// (Grid.ColSpan() bits): the k-th non-empty column holds the local rows
	// RowIDs[ColOffsets[k]:ColOffsets[k+1]].
	ColMask    []uint64
	ColRank    []uint32
	ColOffsets []int64
	RowIDs     []uint32

	// The vertices this rank owns (Grid.Part piece Rank): global ids
	// [OwnedFirst, OwnedFirst+NumOwned), local rows [OwnedRow, OwnedRow+NumOwned).
	OwnedFirst int64
	OwnedRow   int
	NumOwned   int
	// Degree is each owned vertex's deduplicated degree in the whole graph
	// (its row summed over processor row i); TupleDegree the number of input
	// tuples (u,v), u ≠ v, touching it, duplicates counted (as CSR.TupleDegree).
	Degree      []uint32
	TupleDegree []uint32
	// SelfLoops is the number of self-loop tuples at owned vertices.
	SelfLoops int64
}

// NumEdges is the number of stored entries of the block (each in Cols and
// again in RowIDs).
func (b *Block2D) NumEdges() int64 { return int64(len(b.Cols)) }

// maskIndex returns the position of bit l among the set bits of mask, or −1
// if bit l is clear.
func maskIndex(mask []uint64, rank []uint32, l uint32) int {
	w := l >> 6
	bit := uint64(1) << (l & 63)
	if mask[w]&bit == 0 {
		return -1
	}
	return int(rank[w]) + bits.OnesCount64(mask[w]&(bit-1))
}

// RowIndex returns the position of local row l among the non-empty rows
// (the k of RowOffsets[k]), or −1 if the row is empty.
func (b *Block2D) RowIndex(l uint32) int { return maskIndex(b.RowMask, b.RowRank, l) }

// ColIndex returns the position of local column l among the non-empty
// columns (the k of ColOffsets[k]), or −1 if the column is empty.
func (b *Block2D) ColIndex(l uint32) int { return maskIndex(b.ColMask, b.ColRank, l) }

// RowEntries returns local row l's column ids (descending), nil if empty.
func (b *Block2D) RowEntries(l uint32) []uint32 {
	k := maskIndex(b.RowMask, b.RowRank, l)
	if k < 0 {
		return nil
	}
	return b.Cols[b.RowOffsets[k]:b.RowOffsets[k+1]]
}

// ColEntries returns local column l's row ids (ascending), nil if empty.
func (b *Block2D) ColEntries(l uint32) []uint32 {
	k := maskIndex(b.ColMask, b.ColRank, l)
	if k < 0 {
		return nil
	}
	return b.RowIDs[b.ColOffsets[k]:b.ColOffsets[k+1]]
}

// Bytes is the memory the block holds.
func (b *Block2D) Bytes() int64 {
	return 8*int64(len(b.RowMask)+len(b.RowOffsets)+len(b.ColMask)+len(b.ColOffsets)) +
		4*int64(len(b.RowRank)+len(b.Cols)+len(b.ColRank)+len(b.RowIDs)+len(b.Degree)+len(b.TupleDegree))
}

// BuildUndirected2D is BuildUndirected2DFrom over tuples in memory.
func BuildUndirected2D(ctx context.Context, c comm.Comm, grid partition.Grid, edges []Edge, threads int) (*Block2D, error) {
	b, _, err := BuildUndirected2DFrom(ctx, c, grid, EdgeSlice(edges), threads)
	return b, err
}

// BuildUndirected2DFrom is Graph500 kernel 1 for one rank of a 2D grid: it
// turns the tuples of every rank (src is this rank's share, any split) into
// block A[R_i, C_j] of this rank (i, j) and the degrees of its owned
// vertices. Every rank of c must call it with the same grid; grid.P() must
// equal c.Size().
//
// It runs BuildUndirectedFrom's two streamed passes with the 2D routing
// (routeLayout): half-edge u→v (u ≠ v) goes to the rank at (row of u's
// owner, column of v's owner), as u's local row and v's local column; a
// self-loop counts at its vertex's owner. The receiver sorts rows descending
// and removes duplicates as in 1D, keeps only the non-empty rows and builds
// the by-column copy; one Alltoallv along the processor row (DegreePhase2D)
// then gives every owner its vertices' degrees and tuple counts. Ids outside
// [0, N) are an error naming the tuple; the job then aborts.
//
// Memory per rank: the rows at their final size before deduplication (4
// bytes per half-edge, 8 + 4 bytes per local row of the grid row), the round
// buffers, then the block's 8 bytes per half-edge (by rows and by columns)
// plus the offsets of its non-empty rows and columns.
func BuildUndirected2DFrom(ctx context.Context, c comm.Comm, grid partition.Grid, src TupleSource, threads int) (*Block2D, BuildStats, error) {
	return buildUndirected2D(ctx, c, grid, src, threads, 0)
}

// buildUndirected2D is BuildUndirected2DFrom with, when chunk > 0, the tuples
// per round.
func buildUndirected2D(ctx context.Context, c comm.Comm, grid partition.Grid, src TupleSource, threads int, chunk int64) (*Block2D, BuildStats, error) {
	if err := checkGrid(grid, c.Size()); err != nil {
		return nil, BuildStats{}, err
	}
	if threads < 1 {
		threads = runtime.GOMAXPROCS(0)
	}
	rank := c.Rank()
	i, j := grid.Coords(rank)
	blk := &Block2D{
		Grid: grid, Rank: rank, Row: i, Col: j,
		RowFirst:   grid.RowFirst(i),
		NumRows:    grid.RowCount(i),
		OwnedFirst: grid.Part.First(rank),
		OwnedRow:   j * int(grid.Part.Block),
		NumOwned:   grid.Part.Count(rank),
	}
	rc := newRecordChecker(blk)
	b := &builder[uint32]{
		c: c, lay: newRouteLayout2D(grid), rank: rank, threads: threads, src: src,
		nLocal: blk.NumRows, grid: &rc,
	}
	if err := b.run(ctx, chunk); err != nil {
		return nil, b.stats, fmt.Errorf("graph: 2D kernel 1: %w", err)
	}
	blk.SelfLoops = b.selfLoops
	blk.keepRows(b.offsets, b.cols)
	b.offsets, b.cols = nil, nil
	if err := blk.transpose(threads); err != nil {
		return nil, b.stats, err
	}
	if err := blk.sumDegrees(ctx, c, b.degree); err != nil {
		return nil, b.stats, err
	}
	return blk, b.stats, nil
}

// keepRows stores sorted, deduplicated rows (offsets over every local row)
// as the block's non-empty rows: the mask, its running counts and the
// compressed offsets.
func (blk *Block2D) keepRows(offsets []int64, cols []uint32) {
	blk.RowMask, blk.RowRank, blk.RowOffsets = sparseOffsets(offsets, blk.NumRows, int((blk.Grid.RowSpan()+63)/64))
	blk.Cols = cols
}

// checkGrid rejects a grid BuildUndirected2D cannot use with p ranks.
func checkGrid(grid partition.Grid, p int) error {
	if err := checkPartition(grid.Part, p); err != nil {
		return fmt.Errorf("graph: 2D kernel 1: %w", err)
	}
	if grid.R < 1 || grid.C < 1 || grid.R*grid.C != p {
		return fmt.Errorf("graph: 2D kernel 1: grid %dx%d does not have %d ranks", grid.R, grid.C, p)
	}
	if grid.RowSpan() > 1<<32 || grid.ColSpan() > 1<<32 {
		return fmt.Errorf("graph: 2D kernel 1: grid %s spans more local ids than uint32 holds", grid)
	}
	return nil
}

// recordChecker validates 2D records at the receiver: the row must be one of
// the grid row's vertices and the column one of the grid column's (inside
// an existing piece), and it recognises self-loop markers.
type recordChecker struct {
	numRows  uint32
	colSpan  uint64
	div      divider  // by Block, over local column ids
	count    []uint64 // per piece position a in the column: its vertex count
	ownRow   uint64   // first local row of the receiver's own piece (j·Block)
	ownCol   uint64   // first local column of the receiver's own piece (i·Block)
	block    uint64
	numOwned uint64
}

func newRecordChecker(b *Block2D) recordChecker {
	g := b.Grid
	block := uint64(g.Part.Block)
	rc := recordChecker{
		numRows:  uint32(b.NumRows),
		colSpan:  uint64(g.ColSpan()),
		div:      newDivider(block, uint64(g.ColSpan())),
		count:    make([]uint64, g.R),
		ownRow:   uint64(b.Col) * block,
		ownCol:   uint64(b.Row) * block,
		block:    block,
		numOwned: uint64(b.NumOwned),
	}
	for a := range g.R {
		rc.count[a] = uint64(g.Part.Count(g.Rank(a, b.Col)))
	}
	return rc
}

// check returns whether (row, col) is valid, and whether it is a self-loop
// marker.
func (rc *recordChecker) check(row, col uint32) (ok, loop bool) {
	if row >= rc.numRows || uint64(col) >= rc.colSpan {
		return false, false
	}
	a := rc.div.div(uint64(col))
	off := uint64(col) - a*rc.block
	if off >= rc.count[a] {
		return false, false
	}
	return true, rc.loop(row, col)
}

// loop reports whether a valid record is a self-loop marker: its row is an
// owned vertex and its column the same vertex (no division needed).
func (rc *recordChecker) loop(row, col uint32) bool {
	ro := uint64(row) - rc.ownRow // wraps to a huge value below the piece
	return ro < rc.numOwned && uint64(col)-rc.ownCol == ro
}

// sparseOffsets keeps the non-empty ones of n rows (or columns) with full
// offsets (n+1 of them): a mask of the non-empty rows (words words), the
// count of set bits before each word, and their offsets followed by the end.
func sparseOffsets(offsets []int64, n, words int) (mask []uint64, rank []uint32, kept []int64) {
	mask = make([]uint64, words)
	rank = make([]uint32, words)
	nonEmpty := 0
	for v := range n {
		if offsets[v+1] > offsets[v] {
			mask[v>>6] |= 1 << (uint(v) & 63)
			nonEmpty++
		}
	}
	var running uint32
	for w, m := range mask {
		rank[w] = running
		running += uint32(bits.OnesCount64(m))
	}
	kept = make([]int64, 0, nonEmpty+1)
	for v := range n {
		if offsets[v+1] > offsets[v] {
			kept = append(kept, offsets[v])
		}
	}
	return mask, rank, append(kept, offsets[n])
}

// transpose builds the by-column copy of the block from its rows. Threads
// take ranges of rows of about equal volume, count their entries per column
// in private arrays, and scatter their row ids at cursors that put thread t's
// rows after thread t−1's in every column; threads hold ascending row ranges
// and walk them in order, so every column's list comes out sorted.
func (b *Block2D) transpose(threads int) error {
	span := int(b.Grid.ColSpan())
	words := (span + 63) / 64
	nonEmptyRows := len(b.RowOffsets) - 1
	rows := make([]uint32, 0, nonEmptyRows) // the non-empty rows, in order
	for w, m := range b.RowMask {
		for m != 0 {
			rows = append(rows, uint32(w<<6|bits.TrailingZeros64(m)))
			m &= m - 1
		}
	}
	// Private column counts cost 8 bytes per column and thread: use at most
	// as many threads as keep them within the block's own size.
	nt := max(1, min(threads, nonEmptyRows, len(b.Cols)/max(1, 2*span)))
	bounds := volumeBounds(b.RowOffsets, nt)
	cur := make([][]int64, nt)
	parallel.For(nt, func(t int) {
		cnt := make([]int64, span)
		for _, c := range b.Cols[b.RowOffsets[bounds[t]]:b.RowOffsets[bounds[t+1]]] {
			cnt[c]++
		}
		cur[t] = cnt
	})
	_, offsets, err := rowOffsets(cur, span, b.Rank, nt)
	if err != nil {
		return err
	}
	b.RowIDs = make([]uint32, offsets[span])
	parallel.For(nt, func(t int) {
		c := cur[t]
		for k := bounds[t]; k < bounds[t+1]; k++ {
			row := rows[k]
			for _, col := range b.Cols[b.RowOffsets[k]:b.RowOffsets[k+1]] {
				b.RowIDs[c[col]] = row
				c[col]++
			}
		}
	})
	b.ColMask, b.ColRank, b.ColOffsets = sparseOffsets(offsets, span, words)
	return nil
}

// sumDegrees sends every row peer its vertices' row lengths and tuple counts
// in this block and adds up the ones received for the owned vertices.
func (b *Block2D) sumDegrees(ctx context.Context, c comm.Comm, rowTuples []uint32) error {
	g := b.Grid
	row, err := comm.NewSub(c, g.RowMembers(b.Row))
	if err != nil {
		return fmt.Errorf("graph: 2D kernel 1: %w", err)
	}
	send := make([][]byte, g.C)
	for jj := range g.C {
		cnt := g.Part.Count(g.Rank(b.Row, jj))
		first := uint32(jj) * uint32(g.Part.Block)
		msg := make([]byte, 8*cnt)
		for x := range cnt {
			l := first + uint32(x)
			binary.LittleEndian.PutUint32(msg[8*x:], uint32(len(b.RowEntries(l))))
			binary.LittleEndian.PutUint32(msg[8*x+4:], rowTuples[l])
		}
		send[jj] = msg
	}
	recv, err := row.Alltoallv(ctx, DegreePhase2D, send, nil)
	if err != nil {
		return fmt.Errorf("graph: 2D kernel 1 %s exchange: %w", DegreePhase2D, err)
	}
	degree := make([]uint64, b.NumOwned)
	tuples := make([]uint64, b.NumOwned)
	for s, m := range recv {
		if len(m) != 8*b.NumOwned {
			return fmt.Errorf("graph: 2D kernel 1 %s: rank %d sent %d bytes for %d vertices", DegreePhase2D, g.Rank(b.Row, s), len(m), b.NumOwned)
		}
		for x := range b.NumOwned {
			degree[x] += uint64(binary.LittleEndian.Uint32(m[8*x:]))
			tuples[x] += uint64(binary.LittleEndian.Uint32(m[8*x+4:]))
		}
	}
	b.Degree = make([]uint32, b.NumOwned)
	b.TupleDegree = make([]uint32, b.NumOwned)
	for x := range b.NumOwned {
		if tuples[x] > math.MaxUint32 {
			return fmt.Errorf("graph: 2D kernel 1: vertex %d has %d half-edges, more than a uint32 TupleDegree holds", b.OwnedFirst+int64(x), tuples[x])
		}
		b.Degree[x], b.TupleDegree[x] = uint32(degree[x]), uint32(tuples[x])
	}
	return nil
}
