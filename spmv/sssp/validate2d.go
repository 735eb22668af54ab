package sssp

// The Graph500 spec's validation of an SSSP result on the 2D grid
// partition (the engine is sssp2d.go): the same checks as validate.go,
// read from the blocks the search ran on and their weights, so that a 2D
// run needs no 1D copy of the graph.
//
// Rank (i, j) holds block A[R_i, C_j] by columns, with weights. The
// distances of R_i come from its processor row and those of C_j from its
// processor column (one Allgatherv each: 4 bytes per vertex of R_i and of
// C_j). Every stored entry (row x, column y, weight w) is checked as the
// 1D validator checks x's edge to y; each undirected edge is stored twice,
// once per direction, as in the 1D rows. A tree edge (x, p) is stored as
// column x, row p in block (row of p, column of x), a column peer of x's
// owner: the owner sends it the record (PhaseValidateParents2D, 8 bytes:
// x's local column and p's local row, uint32 little-endian), and that rank
// scans column x — of x's length, so that the scans of a run add up to the
// block's entries — for row p and checks d(x) = d(p) + w. The parents'
// cycles are found by the 1D validator's pointer jumping (validate_tree.go)
// over the same vertex ownership.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// PhaseValidateParents2D is the phase of the 2D validator's tree-edge
// records.
const PhaseValidateParents2D = "sssp.validate.parents"

// Validator2D validates the results of searches on one rank's 2D block;
// made once per run.
type Validator2D struct {
	blk      *graph.Block2D
	grid     partition.Grid
	w        []float32 // per by-column entry of blk
	row, col *comm.Sub
	threads  int
	tree     *Validator // pointer jumping and the verdict, over the same ownership

	rowDist []float32 // per local row of R_i
	colDist []float32 // per local column of C_j
	own     []byte    // this rank's distances on the wire
	recv    [][]byte
	recSend [][]byte // per column peer: tree-edge records
	recRecv [][]byte
}

// NewValidator2D prepares the validation of results over this rank's
// block blk and the weights of its by-column entries (in the order New2D
// left them). Every rank calls it.
func NewValidator2D(c comm.Comm, blk *graph.Block2D, w []float32, threads int) (*Validator2D, error) {
	grid := blk.Grid
	if grid.P() != c.Size() || blk.Rank != c.Rank() {
		return nil, fmt.Errorf("sssp: validate: block of rank %d on a %s grid does not fit rank %d of %d", blk.Rank, grid, c.Rank(), c.Size())
	}
	if len(w) != len(blk.RowIDs) {
		return nil, fmt.Errorf("sssp: validate: %d weights for %d block entries", len(w), len(blk.RowIDs))
	}
	v := &Validator2D{blk: blk, grid: grid, w: w, threads: max(1, threads),
		tree:    &Validator{c: c, part: grid.Part, rank: c.Rank(), threads: max(1, threads), send: make([][]byte, grid.P())},
		rowDist: make([]float32, grid.RowSpan()), colDist: make([]float32, grid.ColSpan()),
		recSend: make([][]byte, grid.R),
	}
	var err error
	if v.row, err = comm.NewSub(c, grid.RowMembers(blk.Row)); err != nil {
		return nil, fmt.Errorf("sssp: validate: %w", err)
	}
	if v.col, err = comm.NewSub(c, grid.ColMembers(blk.Col)); err != nil {
		return nil, fmt.Errorf("sssp: validate: %w", err)
	}
	return v, nil
}

// Validate checks this rank's share of a result from root (dist and parent
// per owned vertex, the 1D layout Result holds) with every other rank, as
// Validator.Validate does.
func (v *Validator2D) Validate(ctx context.Context, root int64, dist []float32, parent []int64) error {
	blk := v.blk
	if len(dist) != blk.NumOwned || len(parent) != blk.NumOwned {
		return fmt.Errorf("sssp: validate: %d distances and %d parents for %d vertices", len(dist), len(parent), blk.NumOwned)
	}
	if err := v.gatherDistances(ctx, dist); err != nil {
		return err
	}
	found := make([]violations, v.threads)
	bad := &found[0]
	v.checkVertices(root, dist, parent, bad)
	if err := v.treeEdges(ctx, bad); err != nil {
		return err
	}
	words := len(blk.ColMask)
	parallel.For(v.threads, func(t int) {
		lo, hi := parallel.Span(words, t, v.threads)
		v.checkColumns(lo, hi, &found[t])
	})
	var all violations
	for i := range found {
		all.merge(&found[i])
	}
	if err := v.tree.checkTree(ctx, root, parent, &all); err != nil {
		return err
	}
	return v.tree.verdict(ctx, root, &all)
}

// gatherDistances fills rowDist from the processor row and colDist from
// the processor column.
func (v *Validator2D) gatherDistances(ctx context.Context, dist []float32) error {
	v.own = v.own[:0]
	for _, d := range dist {
		v.own = binary.LittleEndian.AppendUint32(v.own, math.Float32bits(d))
	}
	grid, block := v.grid, v.grid.Part.Block
	for _, along := range []struct {
		sub  *comm.Sub
		into []float32
		rank func(k int) int
	}{
		{v.row, v.rowDist, func(k int) int { return grid.Rank(v.blk.Row, k) }},
		{v.col, v.colDist, func(k int) int { return grid.Rank(k, v.blk.Col) }},
	} {
		recv, err := along.sub.Allgatherv(ctx, PhaseValidateDist, v.own, v.recv)
		if err != nil {
			return fmt.Errorf("sssp: validate: %w", err)
		}
		v.recv = recv
		for k, m := range recv {
			if len(m) != 4*grid.Part.Count(along.rank(k)) {
				return fmt.Errorf("sssp: validate: %d bytes of distances from rank %d, want %d", len(m), along.rank(k), 4*grid.Part.Count(along.rank(k)))
			}
			for i := range len(m) / 4 {
				along.into[int64(k)*block+int64(i)] = math.Float32frombits(binary.LittleEndian.Uint32(m[4*i:]))
			}
		}
	}
	return nil
}

// checkVertices checks the root and that the owned vertices' distances
// and parents agree, and writes the tree-edge records of the others.
func (v *Validator2D) checkVertices(root int64, dist []float32, parent []int64, bad *violations) {
	blk, grid := v.blk, v.grid
	for a := range v.recSend {
		v.recSend[a] = v.recSend[a][:0]
	}
	ownCol := uint32(int64(blk.Row) * grid.Part.Block) // local column of the piece's first vertex
	for l := range blk.NumOwned {
		x := blk.OwnedFirst + int64(l)
		px := parent[l]
		if _, tree := checkVertex(x, root, dist[l], px, grid.Part.N, bad); tree {
			a := grid.RowOf(px)
			m := binary.LittleEndian.AppendUint32(v.recSend[a], ownCol+uint32(l))
			v.recSend[a] = binary.LittleEndian.AppendUint32(m, grid.RowLocal(px))
		}
	}
}

// treeEdges sends the tree-edge records to the blocks that store the
// edges and checks those received.
func (v *Validator2D) treeEdges(ctx context.Context, bad *violations) error {
	recv, err := v.col.Alltoallv(ctx, PhaseValidateParents2D, v.recSend, v.recRecv)
	if err != nil {
		return fmt.Errorf("sssp: validate: %w", err)
	}
	v.recRecv = recv
	blk, grid := v.blk, v.grid
	span, rows := uint32(grid.ColSpan()), uint32(blk.NumRows)
	for a, m := range recv {
		if len(m)%8 != 0 {
			return fmt.Errorf("sssp: validate: %d bytes of tree edges from rank %d", len(m), grid.Rank(a, blk.Col))
		}
		for i := 0; i < len(m); i += 8 {
			cx, rp := binary.LittleEndian.Uint32(m[i:]), binary.LittleEndian.Uint32(m[i+4:])
			if cx >= span || rp >= rows || grid.ColGlobal(blk.Col, cx) >= grid.Part.N {
				return fmt.Errorf("sssp: validate: tree edge record (%d, %d) from rank %d out of range", cx, rp, grid.Rank(a, blk.Col))
			}
			x, p := grid.ColGlobal(blk.Col, cx), blk.RowFirst+int64(rp)
			w, ok := v.entryWeight(cx, rp)
			if !ok {
				bad.addf(violTree, "vertex %d has parent %d, which is not a neighbour", x, p)
				continue
			}
			checkTreeEdge(x, p, v.colDist[cx], v.rowDist[rp], w, bad)
		}
	}
	return nil
}

// entryWeight returns the weight of the entry (row rp, column cx), found
// by a scan of the column (its entries are ordered by weight).
func (v *Validator2D) entryWeight(cx, rp uint32) (float32, bool) {
	k := v.blk.ColIndex(cx)
	if k < 0 {
		return 0, false
	}
	lo, hi := v.blk.ColOffsets[k], v.blk.ColOffsets[k+1]
	for i, r := range v.blk.RowIDs[lo:hi] {
		if r == rp {
			return v.w[lo+int64(i)], true
		}
	}
	return 0, false
}

// checkColumns checks the entries of the non-empty columns in the words
// [lo, hi) of the column mask.
func (v *Validator2D) checkColumns(lo, hi int, bad *violations) {
	blk, grid := v.blk, v.grid
	for wd := lo; wd < hi; wd++ {
		k := int(blk.ColRank[wd])
		for m := blk.ColMask[wd]; m != 0; m &= m - 1 {
			lc := uint32(wd<<6) | uint32(bits.TrailingZeros64(m))
			dy := v.colDist[lc]
			a, b := blk.ColOffsets[k], blk.ColOffsets[k+1]
			k++
			for i := a; i < b; i++ {
				r, w := blk.RowIDs[i], v.w[i]
				dx := v.rowDist[r]
				switch {
				case reached(dx) != reached(dy):
					bad.addf(violSpan, "edge (%d, %d) joins a reached and an unreached vertex", blk.RowFirst+int64(r), grid.ColGlobal(blk.Col, lc))
				case reached(dx) && float64(dx)-float64(dy) > float64(w)+Tolerance*float64(dx):
					bad.addf(violEdge, "edge (%d, %d) of weight %v: distances %v and %v", blk.RowFirst+int64(r), grid.ColGlobal(blk.Col, lc), w, dx, dy)
				}
			}
		}
	}
}
