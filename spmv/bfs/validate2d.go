package bfs

// The validator on the 2D grid partition (Lv et al. §VIII–IX; the engine is
// bfs2d.go): the same Graph500 checks and the same argument as in 1D
// (validate.go), read from the blocks the search ran on, so that a 2D run
// needs no 1D copy of the graph.
//
// Rank (i, j) holds block A[R_i, C_j] by rows and owns one piece of vertices,
// which lies in R_i and in C_j. Its edges need the levels of the block's
// non-empty rows and columns: the owners of R_i's pieces (its processor row)
// send the levels of their vertices whose row in block (i, j) is not empty,
// the owners of C_j's pieces (its processor column) those whose column is not
// empty — the 2D sieve's directories say which (sieve.Exchange2D), and
// Block2D's masks and per-word ranks say where each value goes: the row and
// column ghosts are one value per non-empty row and column, found by the
// masks' popcount index. Each undirected edge {x, y} is stored in block
// (row(x), col(y)) as row x, column y and in block (row(y), col(x)) as row y,
// column x; it is checked in the first if y > x and x + y is odd or y < x and
// x + y is even, in the second otherwise.
//
// A parent edge (x, p) lies in the block of x's processor row and p's
// processor column, which in general is another rank of the row: the owner
// sends it (x, p) as a record (PhaseValidateParents), and that rank checks
// that row x holds column p (check 5) and that p's level is x's minus one
// (checks 1 and 2) from its row and column ghosts. Wire format: 8 bytes per
// record, the uint32 offset of x in the sender's piece and the uint32 local
// column id of p in the receiver's processor column, little-endian, no
// header; a record out of range is an error. The records of at most
// recordRound own vertices travel per round, so the buffers stay bounded.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"sort"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/bufs"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/sieve"
)

// PhaseValidateParents is the comm phase of the 2D validator's parent
// records.
const PhaseValidateParents = "validate.parents"

// recordRound is the number of own vertices whose parent records travel in
// one round of the 2D validator.
const recordRound = 1 << 20

// Validator2DConfig configures a Validator2D.
type Validator2DConfig struct {
	// Threads is the number of goroutines of every pass (≥ 1).
	Threads int
	// Share, if not nil, is this rank's 2D engine of the same block: the
	// validator then uses its row and column groups and, with the sieve or
	// the packed sieve, its directories instead of exchanging its own.
	Share *BFS2D

	// For tests: ghost values per pair and round (0 chooses), own vertices
	// per record round (0 means recordRound).
	chunk, records int64
}

// Validator2D is one rank's reusable validator of BFS results over a 2D
// grid partition. It holds, for the whole run, the directories of its row
// and column peers (n/p bits per peer, shared with the engine when it
// sieves), one ghost value per non-empty row and per non-empty column of its
// block, and bounded exchange buffers: nothing in proportion to the edges,
// and nothing allocated per search. Release drops it all.
type Validator2D struct {
	c        comm.Comm
	g        *graph.Block2D
	grid     partition.Grid
	row, col *comm.Sub
	threads  int
	pw       int // words per piece

	rowPlan, colPlan ghostPlan
	rowVals, colVals ghostStore // per non-empty row and column: level + 1
	ownDirs          bool       // the directories were exchanged for the validator

	rowSpans  []int // thread ranges over the non-empty rows, of equal entries
	rowStart  []int // local row of the first non-empty row of each range
	records   int64 // own vertices per record round
	recCounts []int // per thread and row peer: records in this round
	recSend   [][]byte
	recRecv   [][]byte

	results []passResult
	bad     violations
	derived []int32
	vals    []int64
}

// NewValidator2D prepares the validation of BFS results over this rank's
// block g. Every rank must call it: it builds the row and column groups and
// the directories it does not take from cfg.Share (one exchange along rows
// and columns) and agrees with the other ranks on the size of the exchanges
// (one small allreduce).
func NewValidator2D(ctx context.Context, c comm.Comm, g *graph.Block2D, cfg Validator2DConfig) (*Validator2D, error) {
	grid := g.Grid
	if cfg.Threads < 1 {
		return nil, fmt.Errorf("validate: threads %d < 1", cfg.Threads)
	}
	if grid.P() != c.Size() || g.Rank != c.Rank() || len(g.TupleDegree) != g.NumOwned {
		return nil, fmt.Errorf("validate: block of rank %d on a %s grid does not fit rank %d of %d", g.Rank, grid, c.Rank(), c.Size())
	}
	v := &Validator2D{c: c, g: g, grid: grid, threads: cfg.Threads,
		pw:      int(grid.Part.Block / 64),
		records: cfg.records,
		results: make([]passResult, cfg.Threads),
		vals:    make([]int64, 1+numKinds),
	}
	if v.records <= 0 {
		v.records = recordRound
	}
	var colDirOut, rowDirOut []frontier.Bitmap
	var err error
	if s := cfg.Share; s != nil {
		if s.g != g {
			return nil, fmt.Errorf("validate: the shared 2D engine searches another block")
		}
		v.row, v.col, colDirOut, rowDirOut = s.row, s.col, s.colDirOut, s.rowDirOut
	} else {
		if v.row, err = comm.NewSub(c, grid.RowMembers(g.Row)); err != nil {
			return nil, fmt.Errorf("validate: %w", err)
		}
		if v.col, err = comm.NewSub(c, grid.ColMembers(g.Col)); err != nil {
			return nil, fmt.Errorf("validate: %w", err)
		}
	}
	if rowDirOut == nil {
		if colDirOut, rowDirOut, err = sieve.Exchange2D(ctx, g, v.row, v.col); err != nil {
			return nil, fmt.Errorf("validate: %w", err)
		}
		v.ownDirs = true
	}
	v.rowPlan = v.plan2D(v.row, g.Col, rowDirOut, g.RowMask, g.RowRank, cfg)
	v.colPlan = v.plan2D(v.col, g.Row, colDirOut, g.ColMask, g.ColRank, cfg)
	pairs := []int64{v.rowPlan.maxPair, v.colPlan.maxPair}
	if err := c.AllreduceInt64(ctx, PhaseValidateSetup, pairs, comm.Max); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	v.rowPlan.maxPair, v.colPlan.maxPair = pairs[0], pairs[1]
	v.rowVals.n, v.colVals.n = int64(len(g.RowOffsets)-1), int64(len(g.ColOffsets)-1)
	v.rowSpans, v.rowStart = blockSpans(g, cfg.Threads)
	v.recCounts = make([]int, cfg.Threads*grid.C)
	v.recSend, v.recRecv = make([][]byte, grid.C), make([][]byte, grid.C)
	return v, nil
}

// plan2D is the ghost plan along one group (a processor row or column) in
// which this rank is member me: to peer k go the levels of the own vertices
// dirs[k] marks; from peer k come the values of the set bits of mask over
// k's piece, stored at their rank among mask's bits.
func (v *Validator2D) plan2D(sub *comm.Sub, me int, dirs []frontier.Bitmap, mask []uint64, rank []uint32, cfg Validator2DConfig) ghostPlan {
	size := sub.Size()
	gp := ghostPlan{c: sub, me: me, chunk: cfg.chunk,
		out: make([]frontier.Bitmap, size), outOnes: make([]int64, size),
		inFirst: make([]int64, size), inCount: make([]int64, size),
		send: make([][]byte, size), recv: make([][]byte, size),
		cursors: make([]ghostCursor, size), errs: make([]error, cfg.Threads),
	}
	for k := range size {
		w0 := k * v.pw
		gp.inFirst[k] = int64(rank[w0])
		gp.inCount[k] = frontier.Bitmap(mask[w0 : w0+v.pw]).Count()
		if k == me {
			continue
		}
		if ones := dirs[k].Count(); ones > 0 {
			gp.out[k], gp.outOnes[k] = dirs[k], ones
			gp.maxPair = max(gp.maxPair, ones)
		}
	}
	return gp
}

// blockSpans cuts the block's non-empty rows into at most parts ranges of
// about equal entries and returns their boundaries (as indices of non-empty
// rows) and the local row of each range's first non-empty row.
func blockSpans(g *graph.Block2D, parts int) (spans, start []int) {
	rows := len(g.RowOffsets) - 1
	parts = max(1, min(parts, rows/64))
	spans = make([]int, parts+1)
	total := g.RowOffsets[rows]
	for t := 1; t < parts; t++ {
		target := total * int64(t) / int64(parts)
		spans[t] = max(spans[t-1], sort.Search(rows, func(k int) bool { return g.RowOffsets[k] >= target }))
	}
	spans[parts] = rows
	start = make([]int, parts)
	for t := range parts {
		start[t] = selectBit(g.RowMask, g.RowRank, spans[t])
	}
	return spans, start
}

// selectBit returns the position of the k-th set bit of mask (0-based), or
// the bit length of mask if it has no more than k; rank[w] counts the set
// bits before word w.
func selectBit(mask []uint64, rank []uint32, k int) int {
	w := sort.Search(len(mask), func(w int) bool { return int(rank[w])+bits.OnesCount64(mask[w]) > k })
	if w == len(mask) {
		return 64 * len(mask)
	}
	word := mask[w]
	for range k - int(rank[w]) {
		word &= word - 1
	}
	return 64*w + bits.TrailingZeros64(word)
}

// Bytes is the memory the validator holds: the directories it exchanged,
// the ghost values and the exchange buffers (not the block).
func (v *Validator2D) Bytes() int64 {
	var b int64
	if v.ownDirs {
		for _, gp := range []*ghostPlan{&v.rowPlan, &v.colPlan} {
			for _, d := range gp.out {
				b += 8 * int64(len(d))
			}
		}
	}
	b += v.rowVals.bytes() + v.colVals.bytes() + 4*int64(cap(v.derived))
	for _, gp := range []*ghostPlan{&v.rowPlan, &v.colPlan} {
		for k := range gp.send {
			b += int64(cap(gp.send[k]) + cap(gp.recv[k]))
		}
	}
	for k := range v.recSend {
		b += int64(cap(v.recSend[k]) + cap(v.recRecv[k]))
	}
	return b
}

// Release drops everything the validator holds; it must not be used after.
func (v *Validator2D) Release() { *v = Validator2D{} }

// Validate checks this rank's share of a BFS result from root (parent and,
// when not nil, level, indexed by owned vertex, the 1D layout every engine
// returns) as Validator.Validate does, and returns nedge.
func (v *Validator2D) Validate(ctx context.Context, root int64, parent []int64, level []int32, claimedNEdge int64) (int64, error) {
	if v.c == nil {
		return 0, fmt.Errorf("validate: validator used after Release")
	}
	g := v.g
	n := g.NumOwned
	if len(parent) != n || (level != nil && len(level) != n) {
		return 0, fmt.Errorf("validate: rank %d has %d parents and %d levels for %d owned vertices", g.Rank, len(parent), len(level), n)
	}
	if root < 0 || root >= v.grid.Part.N {
		return 0, fmt.Errorf("validate: root %d out of range [0, %d)", root, v.grid.Part.N)
	}
	derived := level == nil
	if derived {
		if cap(v.derived) < n {
			v.derived = make([]int32, n)
		}
		level = v.derived[:n]
		if err := treeDepths(ctx, v.c, v.grid.Part, root, parent, level); err != nil {
			return 0, err
		}
	}
	maxLevel, err := deepestLevel(ctx, v.c, level, v.threads)
	if err != nil {
		return 0, err
	}
	for t := range v.results {
		v.results[t].bad.reset()
		v.results[t].degreeSum = 0
	}
	switch valueWidth(maxLevel) {
	case 1:
		err = validateBlock[uint8](ctx, v, root, parent, level, maxLevel, derived)
	case 2:
		err = validateBlock[uint16](ctx, v, root, parent, level, maxLevel, derived)
	default:
		err = validateBlock[uint32](ctx, v, root, parent, level, maxLevel, derived)
	}
	if err != nil {
		return 0, err
	}
	degreeSum := mergeResults(&v.bad, v.results)
	if v.grid.Part.Owner(root) == g.Rank {
		l := root - g.OwnedFirst
		checkRoot(&v.bad, root, parent[l], level[l])
	}
	return finishValidation(ctx, v.c, root, &v.bad, degreeSum, claimedNEdge, v.vals)
}

// validateBlock runs one search's 2D validation in the ghost width of G:
// the ghost exchanges, the vertex checks with the parent records, and the
// pass over the block's rows.
func validateBlock[G ghostValue](ctx context.Context, v *Validator2D, root int64, parent []int64, level []int32, maxLevel int32, derived bool) error {
	g := v.g
	rowVals, colVals := ghostsOf[G](&v.rowVals), ghostsOf[G](&v.colVals)
	// The own piece's values: rows at position g.Col of R_i, columns at
	// position g.Row of C_j.
	fillOwn(rowVals, level, maxLevel, g.RowMask, v.rowPlan.inFirst[g.Col], g.Col*v.pw, v.pw)
	fillOwn(colVals, level, maxLevel, g.ColMask, v.colPlan.inFirst[g.Row], g.Row*v.pw, v.pw)
	if err := exchangeGhosts(ctx, &v.rowPlan, PhaseValidateGhosts, level, maxLevel, rowVals, v.threads); err != nil {
		return err
	}
	if err := exchangeGhosts(ctx, &v.colPlan, PhaseValidateGhosts, level, maxLevel, colVals, v.threads); err != nil {
		return err
	}
	if err := parentRecords(ctx, v, root, parent, level, rowVals, colVals, derived); err != nil {
		return err
	}
	parts := len(v.rowSpans) - 1
	parallel.For(parts, func(t int) {
		checkBlockRows(g, v.rowSpans[t], v.rowSpans[t+1], v.rowStart[t], rowVals, colVals, &v.results[t].bad)
	})
	return nil
}

// fillOwn stores the values of the own vertices whose bits are set in
// mask's words [w0, w0+pw) at their ranks, from first on.
func fillOwn[G ghostValue](vals []G, level []int32, maxLevel int32, mask []uint64, first int64, w0, pw int) {
	k := first
	for w, word := range mask[w0 : w0+pw] {
		for ; word != 0; word &= word - 1 {
			vals[k] = G(levelValue(level[w*64+bits.TrailingZeros64(word)], maxLevel))
			k++
		}
	}
}

// parentRecords runs the vertex checks of the own vertices and, round by
// round, sends every parent edge to the rank of the row that stores it and
// checks the edges it receives.
func parentRecords[G ghostValue](ctx context.Context, v *Validator2D, root int64, parent []int64, level []int32, rowVals, colVals []G, derived bool) error {
	g, grid := v.g, v.grid
	n := grid.Part.N
	rounds := int((grid.Part.Block + v.records - 1) / v.records)
	for r := range rounds {
		lo, hi := min(g.NumOwned, r*int(v.records)), min(g.NumOwned, (r+1)*int(v.records))
		parts := max(1, min(v.threads, (hi-lo)/4096))
		// Count the records per thread and peer (and run the vertex checks
		// once, here), then fill every peer's buffer at the threads' offsets.
		parallel.For(parts, func(t int) {
			a, b := parallel.Span(hi-lo, t, parts)
			cnt := v.recCounts[t*grid.C : (t+1)*grid.C]
			clear(cnt)
			res := &v.results[t]
			for x := lo + a; x < lo+b; x++ {
				gx := g.OwnedFirst + int64(x)
				p, lv := parent[x], level[x]
				if lv >= 0 {
					res.degreeSum += int64(g.TupleDegree[x])
				}
				switch {
				case p >= 0 && p < n && lv >= 0 && gx != root:
					switch {
					case p == gx:
						res.bad.addf(kindCheck1, "check 1: vertex %d is its own parent but is not the root", gx)
					case lv == 0:
						res.bad.addf(kindCheck1, "check 1: vertex %d has level 0 but is not the root %d", gx, root)
					default:
						cnt[grid.ColOf(p)]++
					}
				case p < -1 || p >= n || lv < -1 || (p == -1) != (lv == -1):
					vertexFault(&res.bad, gx, p, lv, n, root, derived)
				}
			}
		})
		for s := range grid.C {
			total := 0
			for t := range parts {
				c := v.recCounts[t*grid.C+s]
				v.recCounts[t*grid.C+s] = total
				total += c
			}
			v.recSend[s] = bufs.Resize(v.recSend[s], 8*total)
		}
		parallel.For(parts, func(t int) {
			a, b := parallel.Span(hi-lo, t, parts)
			at := v.recCounts[t*grid.C : (t+1)*grid.C]
			for x := lo + a; x < lo+b; x++ {
				gx := g.OwnedFirst + int64(x)
				p, lv := parent[x], level[x]
				if p < 0 || p >= n || lv < 1 || gx == root || p == gx {
					continue
				}
				s := grid.ColOf(p)
				rec := v.recSend[s][8*at[s]:]
				binary.LittleEndian.PutUint32(rec, uint32(x))
				binary.LittleEndian.PutUint32(rec[4:], grid.ColLocal(p))
				at[s]++
			}
		})
		recv, err := v.row.Alltoallv(ctx, PhaseValidateParents, v.recSend, v.recRecv)
		if err != nil {
			return fmt.Errorf("validate: parent records: %w", err)
		}
		v.recRecv = recv
		if err := checkParentRecords(v, recv, root, rowVals, colVals); err != nil {
			return err
		}
	}
	return nil
}

// checkParentRecords checks the parent edges (x, p) the row peers sent:
// row x of the block must hold column p (check 5), and p's level must be
// x's minus one (checks 1 and 2). A record out of range is an error.
func checkParentRecords[G ghostValue](v *Validator2D, recv [][]byte, root int64, rowVals, colVals []G) error {
	g, grid := v.g, v.grid
	for s, msg := range recv {
		if len(msg)%8 != 0 {
			return fmt.Errorf("validate: parent records from row peer %d: %d bytes, not a multiple of 8", s, len(msg))
		}
	}
	errs := v.rowPlan.errs
	parts := max(1, min(v.threads, len(errs)))
	parallel.For(parts, func(t int) {
		errs[t] = nil
		bad := &v.results[t].bad
		for s, msg := range recv {
			count := grid.Part.Count(grid.Rank(g.Row, s))
			records := len(msg) / 8
			a, b := parallel.Span(records, t, parts)
			for i := a; i < b; i++ {
				x, pc := binary.LittleEndian.Uint32(msg[8*i:]), binary.LittleEndian.Uint32(msg[8*i+4:])
				if int(x) >= count || int64(pc) >= grid.ColSpan() || grid.ColGlobal(g.Col, pc) >= grid.Part.N {
					errs[t] = fmt.Errorf("validate: parent record from row peer %d names vertex %d of its %d and column %d", s, x, count, pc)
					return
				}
				l := uint32(s)*uint32(grid.Part.Block) + x
				gx, p := grid.RowGlobal(g.Row, l), grid.ColGlobal(g.Col, pc)
				k := g.RowIndex(l)
				if k < 0 || !graph.DescendingRowHas(g.Cols[g.RowOffsets[k]:g.RowOffsets[k+1]], int64(pc)) {
					bad.addf(kindCheck5, "check 5: parent edge (%d, %d) is not an edge of the input", gx, p)
					continue
				}
				a := uint32(rowVals[k])
				if pb := uint32(colVals[g.ColIndex(pc)]); pb != a-1 {
					parentLevelFault(bad, gx, int32(a)-1, p, int64(pb)-1, root)
				}
			}
		}
	})
	for _, err := range errs[:parts] {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkBlockRows checks the edges of the non-empty rows [klo, khi) of the
// block (the first of them local row lstart) that this block checks of the
// two that store each edge (see the file comment).
func checkBlockRows[G ghostValue](g *graph.Block2D, klo, khi, lstart int, rowVals, colVals []G, bad *violations) {
	if klo >= khi {
		return
	}
	grid := g.Grid
	block := int(grid.Part.Block)
	var pick [pickBatch]uint32
	w := lstart >> 6
	word := g.RowMask[w] &^ (uint64(1)<<(uint(lstart)&63) - 1)
	for k := klo; k < khi; k++ {
		for word == 0 {
			w++
			word = g.RowMask[w]
		}
		l := w<<6 | bits.TrailingZeros64(word)
		word &= word - 1
		x := g.RowFirst + int64(l)
		a := uint32(rowVals[k])
		wlo, span := neighbourWindow(a)
		// Columns at or above thr are vertices above x: the pieces of C_j
		// before x's position in R_i are below x, those after it above.
		var thr int64
		switch s := l / block; {
		case s < g.Col:
			thr = int64(g.Row) * int64(block)
		case s == g.Col:
			thr = int64(g.Row)*int64(block) + int64(l%block) + 1
		default:
			thr = int64(g.Row+1) * int64(block)
		}
		row := g.Cols[g.RowOffsets[k]:g.RowOffsets[k+1]]
		split := sieve.SkipAbove(row, 0, thr)
		checkBlockEdges(row[:split], x, l, 1, a, wlo, span, g, colVals, pick[:], bad)
		checkBlockEdges(row[split:], x, l, 0, a, wlo, span, g, colVals, pick[:], bad)
	}
}

// checkBlockEdges checks the edges from x (local row l, value a, window
// [wlo, wlo+span]) to the columns of part whose sum with l has parity odd,
// selected without a branch as checkRemote does.
func checkBlockEdges[G ghostValue](part []uint32, x int64, l int, odd uint32, a, wlo, span uint32,
	g *graph.Block2D, colVals []G, pick []uint32, bad *violations) {
	sel := uint32(l) ^ odd ^ 1
	pick = pick[:pickBatch]
	for len(part) > 0 {
		batch := part[:min(len(part), pickBatch)]
		part = part[len(batch):]
		m, _ := pickParity(batch, uint64(sel), pick, -1)
		for _, c := range pick[:m] {
			if b := uint32(colVals[g.ColIndex(c)]); b-wlo > span {
				edgeFault(bad, x, a, g.Grid.ColGlobal(g.Col, c), b)
			}
		}
	}
}
