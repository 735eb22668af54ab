// This file is the 2D BFS engine: paper 004's level-synchronous SpMV (§III,
// t = A ⊗ f masked by the visited set, over the (select, max) semiring) on
// the 2D grid partition its §VIII–IX name as the next step (partition.Grid,
// graph.Block2D), with the frontier codecs of §IV and the sieve of §V on
// every exchange where they apply.
//
// Rank (i, j) holds block A[R_i, C_j]. One level:
//
//  1. Traverse its block: bottom-up, every row of R_i not yet visited scans
//     its entries (descending) for the first frontier column, which is the
//     largest frontier neighbour inside C_j; top-down, every frontier column
//     of C_j, largest first, claims its unvisited rows. Either way the block
//     yields candidates: a row set T and, per row, the best parent in C_j.
//  2. Fold (along processor row i): the candidates for the vertices of each
//     row peer's piece go to that peer as [uvarint length | codec(T ∩ piece)
//     | parent column per set bit, in 1–4 bytes]. The owner keeps, per vertex, the
//     largest parent over the c blocks — the (select, max) rule — so parents
//     are those of the 1D engine.
//  3. Reduce the counts (found vertices, their degrees): an allreduce along
//     the row, then along the column.
//  4. Row update (along row i): every row peer learns which vertices of the
//     owner's piece were discovered, so that no block scans or claims them
//     again. With the sieve, a peer gets only the new vertices it did not
//     find itself and whose row in its block is not empty (its row
//     directory); packed, only the positions of that set that are still
//     open (sieve.Packer's idea, per row peer).
//  5. Expand (along column j): the owners' new frontier pieces make the
//     frontier on C_j. allgather sends the piece (encoded once) to the whole
//     column; sieve sends each column peer only the vertices with a
//     non-empty column in its block (the 2D cross directory); packed sends
//     those positions not sent before in this search.
//
// The codec (--codec) is that of bottom-up levels, as in 1D: the exchanges
// that serve a top-down level (its fold, and the row update and expand
// before it) carry few vertices and use the list codec, as 1D top-down
// levels send vertex records. Steps 4 and 5 carry the same encoded piece in
// allgather mode. Messages per
// rank and level: at most c−1 (fold) + c−1 + r−1 (counts) + c−1 (row update)
// + r−1 (expand), against 2(p−1) for the 1D engine. Vertex ownership is
// Block1D's, so Result is in the 1D layout and the 1D validator checks it
// unchanged.
//
// Why the fold is not sieved: every candidate a block sends is a vertex the
// owner has to decide on; there is nothing the owner could not use. The
// codec still applies to its bitmap. The row update and the expand are
// sieved.

package spmv

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"sort"
	"sync/atomic"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// Phases of the 2D engine (counts are reduced under PhaseReduce, as in 1D).
const (
	PhaseFold    = "bfs2d.fold"    // candidates along processor rows
	PhaseVisited = "bfs2d.visited" // new vertices along processor rows
	PhaseExpand  = "bfs2d.expand"  // new frontier along processor columns
	PhaseSetup2D = "bfs2d.setup"   // the directories, once per engine
)

// BFS2D is one rank's reusable 2D breadth-first search engine.
type BFS2D struct {
	c        comm.Comm
	row, col *comm.Sub
	g        *graph.Block2D
	grid     partition.Grid
	cfg      BFSConfig
	rank     int
	gi, gj   int // grid position
	pw       int // words per piece (Block/64)
	// parentSize is the bytes of a parent column in a fold message: the
	// fewest that hold every local column id (ColSpan−1).
	parentSize int
	sieve      bool
	packed     bool

	parent     []int64
	level      []int32
	ownVisited frontier.Bitmap // owned vertices discovered so far (exact)
	next       frontier.Bitmap // owned vertices discovered in this level
	rowIdle    frontier.Bitmap // rows of R_i with no entry in this block (and padding)
	rowDone    frontier.Bitmap // rows of R_i visited or idle
	found      frontier.Bitmap // rows this block discovered in this level
	cand       []uint32        // per row: the local column of its candidate parent
	colFront   frontier.Bitmap // the frontier on C_j
	colSeen    frontier.Bitmap // packed: the positions of C_j received in this search
	queue      []uint32        // top-down: frontier columns, descending

	colDirOut []frontier.Bitmap // sieve: per column peer a, own vertices with an entry in block (a, j)
	rowDirOut []frontier.Bitmap // sieve: per row peer s, own vertices with a row in block (i, s)
	foundFrom []frontier.Bitmap // per row peer: the candidates it sent for own vertices
	parentsOf [][]byte          // per row peer: the parent columns of those candidates

	codecs   []frontier.Codec  // one per thread: the configured codec
	lists    []frontier.Codec  // one per thread: the list codec
	use      []frontier.Codec  // codecs or lists, for the exchange in progress
	scratch  []frontier.Bitmap // one per thread
	encBufs  [][]byte          // one per thread
	choices  []string          // per message of the expand: the codec's choice
	errs     []error           // per thread
	rawT     []int64           // per thread: raw bitmap bytes encoded in this step
	encT     []int64           // per thread: their encoded size
	sendRow  [][]byte
	sendCol  [][]byte
	recvRow  [][]byte
	recvCol  [][]byte
	recvSync [][]byte
	shared   []byte // allgather: the encoded piece for both row and column

	steps       []LevelStats
	cur         LevelStats
	totalDegree int64
	prepared    bool
}

// NewBFS2D prepares a 2D BFS engine for this rank's block. Every rank must
// call it (it builds the row and column groups and, for the sieve and the
// packed sieve, exchanges the directories once). cfg is as for NewBFS.
func NewBFS2D(ctx context.Context, c comm.Comm, g *graph.Block2D, cfg BFSConfig) (*BFS2D, error) {
	if cfg.Threads < 1 {
		return nil, fmt.Errorf("spmv: threads %d < 1", cfg.Threads)
	}
	if cfg.Exchange < ExchangeAllgather || cfg.Exchange > ExchangePacked {
		return nil, fmt.Errorf("spmv: unknown exchange %d", cfg.Exchange)
	}
	if cfg.Direction < DirectionAuto || cfg.Direction > DirectionBottomUp {
		return nil, fmt.Errorf("spmv: unknown direction %d", cfg.Direction)
	}
	if cfg.Exchange == ExchangePush {
		cfg.Direction = DirectionTopDown
	}
	if cfg.Codec == "" {
		cfg.Codec = "raw"
	}
	grid := g.Grid
	if grid.P() != c.Size() || g.Rank != c.Rank() {
		return nil, fmt.Errorf("spmv: block of rank %d on a %s grid does not fit rank %d of %d", g.Rank, grid, c.Rank(), c.Size())
	}
	b := &BFS2D{c: c, g: g, grid: grid, cfg: cfg, rank: c.Rank(), gi: g.Row, gj: g.Col,
		pw:         int(grid.Part.Block / 64),
		parentSize: max(1, (bits.Len64(uint64(grid.ColSpan()-1))+7)/8),
		sieve:      cfg.Exchange == ExchangeSieve || cfg.Exchange == ExchangePacked,
		packed:     cfg.Exchange == ExchangePacked,
	}
	var err error
	if b.row, err = comm.NewSub(c, grid.RowMembers(b.gi)); err != nil {
		return nil, fmt.Errorf("spmv: %w", err)
	}
	if b.col, err = comm.NewSub(c, grid.ColMembers(b.gj)); err != nil {
		return nil, fmt.Errorf("spmv: %w", err)
	}
	own := grid.Part.Words(b.rank)
	rowSpan, colSpan := grid.RowSpan(), grid.ColSpan()
	b.parent = make([]int64, g.NumOwned)
	b.level = make([]int32, g.NumOwned)
	b.ownVisited = make(frontier.Bitmap, own)
	b.next = make(frontier.Bitmap, own)
	b.rowIdle = frontier.NewBitmap(rowSpan)
	for w, m := range g.RowMask {
		b.rowIdle[w] = ^m
	}
	b.rowDone = frontier.NewBitmap(rowSpan)
	b.found = frontier.NewBitmap(rowSpan)
	b.cand = make([]uint32, g.NumRows)
	b.colFront = frontier.NewBitmap(colSpan)
	if b.packed {
		b.colSeen = frontier.NewBitmap(colSpan)
	}
	b.foundFrom = make([]frontier.Bitmap, grid.C)
	for s := range b.foundFrom {
		b.foundFrom[s] = make(frontier.Bitmap, own)
	}
	b.parentsOf = make([][]byte, grid.C)
	for t := 0; t < cfg.Threads; t++ {
		codec, err := frontier.New(cfg.Codec)
		if err != nil {
			return nil, fmt.Errorf("spmv: %w", err)
		}
		b.codecs = append(b.codecs, codec)
		list, err := frontier.New("list")
		if err != nil {
			return nil, fmt.Errorf("spmv: %w", err)
		}
		b.lists = append(b.lists, list)
		b.scratch = append(b.scratch, make(frontier.Bitmap, b.pw))
		b.encBufs = append(b.encBufs, nil)
	}
	b.use = b.codecs
	b.errs = make([]error, cfg.Threads)
	b.rawT = make([]int64, cfg.Threads)
	b.encT = make([]int64, cfg.Threads)
	b.choices = make([]string, max(grid.R, grid.C))
	b.sendRow = make([][]byte, grid.C)
	b.sendCol = make([][]byte, grid.R)
	if b.sieve {
		if b.colDirOut, b.rowDirOut, err = exchangeDirectories2D(ctx, g, b.row, b.col); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// piece returns the words of a RowSpan or ColSpan bitmap that hold the piece
// at position k of the row or column, for a piece of rank `owner`.
func (b *BFS2D) piece(bm frontier.Bitmap, k, owner int) frontier.Bitmap {
	return bm[k*b.pw : k*b.pw+b.grid.Part.Words(owner)]
}

// exchangeDirectories2D sends every column peer a the columns of block g
// that fall in a's piece (the vertices of a's piece that this block can
// use), and every row peer s the rows of this block in s's piece (the
// vertices of s's piece this block can discover), as raw bitmaps, and
// returns what the peers sent: per column peer a the own vertices with an
// entry in block (a, j), per row peer s those with a row in block (i, s).
// The 2D engine's sieve and the 2D validator's ghost exchange read them.
func exchangeDirectories2D(ctx context.Context, g *graph.Block2D, row, col *comm.Sub) (colDirOut, rowDirOut []frontier.Bitmap, err error) {
	grid := g.Grid
	pw := int(grid.Part.Block / 64)
	piece := func(bm frontier.Bitmap, k, owner int) frontier.Bitmap {
		return bm[k*pw : k*pw+grid.Part.Words(owner)]
	}
	sendCol, sendRow := make([][]byte, grid.R), make([][]byte, grid.C)
	for a := range grid.R {
		sendCol[a] = piece(g.ColMask, a, grid.Rank(a, g.Col)).AppendBytes(nil)
	}
	for s := range grid.C {
		sendRow[s] = piece(g.RowMask, s, grid.Rank(g.Row, s)).AppendBytes(nil)
	}
	own := grid.Part.Words(g.Rank)
	load := func(sub *comm.Sub, send [][]byte) ([]frontier.Bitmap, error) {
		recv, err := sub.Alltoallv(ctx, PhaseSetup2D, send, nil)
		if err != nil {
			return nil, fmt.Errorf("spmv: exchanging the 2D directories: %w", err)
		}
		out := make([]frontier.Bitmap, len(recv))
		for k, m := range recv {
			out[k] = make(frontier.Bitmap, own)
			if err := out[k].LoadBytes(m); err != nil {
				return nil, fmt.Errorf("spmv: directory from rank %d: %w", sub.Members()[k], err)
			}
		}
		return out, nil
	}
	if colDirOut, err = load(col, sendCol); err != nil {
		return nil, nil, err
	}
	if rowDirOut, err = load(row, sendRow); err != nil {
		return nil, nil, err
	}
	return colDirOut, rowDirOut, nil
}

// Config returns the engine's configuration with defaults filled in.
func (b *BFS2D) Config() BFSConfig { return b.cfg }

// Prepare clears the previous search's state (see BFS.Prepare).
func (b *BFS2D) Prepare() {
	for i := range b.parent {
		b.parent[i] = -1
		b.level[i] = -1
	}
	clear(b.ownVisited)
	copy(b.rowDone, b.rowIdle)
	if b.packed {
		clear(b.colSeen)
	}
	b.prepared = true
}

// allreduce sums vals over all ranks: along the processor row, then along
// the column.
func (b *BFS2D) allreduce(ctx context.Context, vals []int64) error {
	if err := b.row.AllreduceInt64(ctx, PhaseReduce, vals, comm.Sum); err != nil {
		return err
	}
	return b.col.AllreduceInt64(ctx, PhaseReduce, vals, comm.Sum)
}

// Run searches from root and returns this rank's share of the result (its
// owned vertices, in the 1D layout). Every rank must call it with the same
// root.
func (b *BFS2D) Run(ctx context.Context, root int64) (*Result, error) {
	n := b.grid.Part.N
	if root < 0 || root >= n {
		return nil, fmt.Errorf("spmv: root %d out of range [0, %d)", root, n)
	}
	if b.totalDegree == 0 {
		total := []int64{b.g.NumEdges()}
		if err := b.allreduce(ctx, total); err != nil {
			return nil, fmt.Errorf("bfs: %w", err)
		}
		b.totalDegree = total[0]
	}
	if !b.prepared {
		b.Prepare()
	}
	b.prepared = false
	clear(b.colFront)
	if b.grid.ColOf(root) == b.gj {
		l := int64(b.grid.ColLocal(root))
		b.colFront.Set(l)
		if b.packed {
			b.colSeen.Set(l)
		}
	}
	if b.grid.RowOf(root) == b.gi {
		b.rowDone.Set(int64(b.grid.RowLocal(root)))
	}
	rootDegree := []int64{0}
	if b.grid.Part.Owner(root) == b.rank {
		l := b.grid.Part.Local(root)
		b.parent[l] = root
		b.level[l] = 0
		b.ownVisited.Set(int64(l))
		rootDegree[0] = int64(b.g.Degree[l])
	}
	if err := b.allreduce(ctx, rootDegree); err != nil {
		return nil, fmt.Errorf("bfs: %w", err)
	}
	b.steps = append(b.steps[:0], LevelStats{Level: 0, Frontier: 1})
	dir := b.cfg.Direction
	if dir == DirectionAuto {
		dir = DirectionTopDown
	}
	frontierSize, unexplored := int64(1), b.totalDegree-rootDegree[0]
	for lvl := int32(1); ; lvl++ {
		before := b.c.Stats().Total()
		b.cur = LevelStats{Level: int(lvl), Direction: dir}
		t0 := time.Now()
		if dir == DirectionTopDown {
			b.topDown()
		} else {
			b.bottomUp()
		}
		b.cur.Traverse += time.Since(t0)
		found, foundDegree, err := b.fold(ctx, lvl, dir)
		if err != nil {
			return nil, fmt.Errorf("bfs level %d: %w", lvl, err)
		}
		t0 = time.Now()
		counts := []int64{found, foundDegree}
		if err := b.allreduce(ctx, counts); err != nil {
			return nil, fmt.Errorf("bfs level %d: %w", lvl, err)
		}
		b.cur.Reduce = time.Since(t0)
		next := nextDirection(b.cfg.Direction, dir, counts[0], frontierSize, counts[1], unexplored-counts[1], n)
		if counts[0] > 0 {
			if err := b.spread(ctx, next); err != nil {
				return nil, fmt.Errorf("bfs level %d: %w", lvl, err)
			}
		}
		d := b.c.Stats().Total().Sub(before)
		b.cur.Frontier, b.cur.BytesSent, b.cur.Messages = counts[0], d.BytesSent, d.Messages
		b.steps = append(b.steps, b.cur)
		if counts[0] == 0 {
			return &Result{Root: root, Parent: b.parent, Level: b.level, Steps: b.steps}, nil
		}
		frontierSize, unexplored, dir = counts[0], unexplored-counts[1], next
	}
}

// nextDirection is the direction rule of BFS.chooseDirection (Beamer et
// al.), from the global counts, so that 1D and 2D runs take the same
// directions level by level.
func nextDirection(policy, current Direction, size, previous, edges, unexplored, n int64) Direction {
	if policy != DirectionAuto {
		return policy
	}
	if current == DirectionTopDown {
		if edges > unexplored/DefaultAlpha {
			return DirectionBottomUp
		}
		return DirectionTopDown
	}
	if size < previous && size <= n/DefaultBeta {
		return DirectionTopDown
	}
	return DirectionBottomUp
}

// bottomUp scans the rows of R_i not yet done for their largest frontier
// neighbour in C_j, filling found and cand and marking the found rows done.
func (b *BFS2D) bottomUp() {
	nw := len(b.rowDone)
	chunks := (nw + pullChunkWords - 1) / pullChunkWords
	scan := func(lo, hi int) {
		scanRows(b.g.RowMask, b.g.RowRank, b.g.RowOffsets, b.g.Cols, b.colFront, b.rowDone, b.found, b.cand, lo, hi)
	}
	if b.cfg.Threads == 1 || chunks <= 1 {
		scan(0, nw)
		return
	}
	var nextChunk atomic.Int64
	parallel.For(min(b.cfg.Threads, chunks), func(int) {
		for {
			ci := int(nextChunk.Add(1) - 1)
			if ci >= chunks {
				return
			}
			scan(ci*pullChunkWords, min((ci+1)*pullChunkWords, nw))
		}
	})
}

// scanRows is the bottom-up kernel over the words [lo, hi) of the row
// bitmaps. Rows are stored descending, so the first frontier column found is
// the largest. Every row not done has an entry (empty rows start done).
func scanRows(mask []uint64, rank []uint32, offsets []int64, cols []uint32, front, done, found frontier.Bitmap,
	cand []uint32, lo, hi int) {
	for w := lo; w < hi; w++ {
		todo := ^done[w]
		var discovered uint64
		for todo != 0 {
			t := bits.TrailingZeros64(todo)
			bit := uint64(1) << uint(t)
			todo &^= bit
			k := int(rank[w]) + bits.OnesCount64(mask[w]&(bit-1))
			for _, c := range cols[offsets[k]:offsets[k+1]] {
				if front[c>>6]&(1<<(c&63)) != 0 {
					cand[w<<6|t] = c
					discovered |= bit
					break
				}
			}
		}
		done[w] |= discovered
		found[w] = discovered
	}
}

// topDownMinColumns is the number of frontier columns per thread from which
// the top-down step uses more than one thread.
const topDownMinColumns = 256

// topDown lets every frontier column of C_j, largest first, claim its rows
// not yet done: the first claim is the largest parent inside C_j. Threads
// own ranges of rows (whole bitmap words), so no two write the same word.
func (b *BFS2D) topDown() {
	clear(b.found)
	b.queue = b.queue[:0]
	for w := len(b.colFront) - 1; w >= 0; w-- {
		f := b.colFront[w] & b.g.ColMask[w]
		for f != 0 {
			t := 63 - bits.LeadingZeros64(f)
			f &^= 1 << uint(t)
			b.queue = append(b.queue, uint32(w<<6|t))
		}
	}
	threads := min(b.cfg.Threads, max(1, len(b.queue)/topDownMinColumns))
	words := len(b.rowDone)
	parallel.For(threads, func(t int) {
		lo, hi := parallel.Span(words, t, threads)
		claimRows(b.g.ColMask, b.g.ColRank, b.g.ColOffsets, b.g.RowIDs, b.queue, b.rowDone, b.found, b.cand,
			int64(lo)<<6, int64(hi)<<6, threads > 1)
	})
}

// claimRows is the top-down kernel for the rows [lo, hi): every column of
// queue (descending) takes its rows in that range that are not yet done.
// With ranged set, each column's ascending row list is cut to the range by
// binary search.
func claimRows(mask []uint64, rank []uint32, offsets []int64, rowIDs []uint32, queue []uint32,
	done, found frontier.Bitmap, cand []uint32, lo, hi int64, ranged bool) {
	for _, c := range queue {
		w := c >> 6
		k := int(rank[w]) + bits.OnesCount64(mask[w]&(uint64(1)<<(c&63)-1))
		rows := rowIDs[offsets[k]:offsets[k+1]]
		if ranged {
			a := sort.Search(len(rows), func(x int) bool { return int64(rows[x]) >= lo })
			z := a + sort.Search(len(rows)-a, func(x int) bool { return int64(rows[a+x]) >= hi })
			rows = rows[a:z]
		}
		for _, r := range rows {
			bit := uint64(1) << (r & 63)
			if done[r>>6]&bit == 0 {
				done[r>>6] |= bit
				found[r>>6] |= bit
				cand[r] = c
			}
		}
	}
}

// fold sends every row peer the candidates for its vertices and applies the
// ones received for this rank's vertices. It returns how many vertices this
// rank discovered and their degrees.
func (b *BFS2D) fold(ctx context.Context, lvl int32, dir Direction) (found, degree int64, err error) {
	grid := b.grid
	b.use = b.codecsFor(dir)
	threads := len(b.codecs)
	t0 := time.Now()
	parallel.For(threads, func(t int) {
		b.errs[t] = nil
		for s := t; s < grid.C; s += threads {
			if s == b.gj {
				b.sendRow[s] = b.sendRow[s][:0]
				continue
			}
			msg, raw, enc, err := b.foldMessage(b.sendRow[s][:0], s, t)
			if err != nil {
				b.errs[t] = err
				return
			}
			b.sendRow[s] = msg
			b.rawT[t] += raw
			b.encT[t] += enc
		}
	})
	if err := b.threadsDone(); err != nil {
		return 0, 0, err
	}
	t1 := time.Now()
	recv, err := b.row.Alltoallv(ctx, PhaseFold, b.sendRow, b.recvRow)
	if err != nil {
		return 0, 0, err
	}
	b.recvRow = recv
	t2 := time.Now()
	// Decode every peer's candidate bitmap.
	parallel.For(threads, func(t int) {
		b.errs[t] = nil
		for s := t; s < grid.C; s += threads {
			if s == b.gj {
				continue
			}
			if err := b.decodeFold(s, recv[s], t); err != nil {
				b.errs[t] = fmt.Errorf("candidates from rank %d: %w", grid.Rank(b.gi, s), err)
				return
			}
		}
	})
	if err := firstError(b.errs); err != nil {
		return 0, 0, err
	}
	t3 := time.Now()
	// Apply: this block's own candidates, then every peer's; the largest
	// parent of the level wins.
	clear(b.next)
	own := b.piece(b.found, b.gj, b.rank)
	base := b.gj * int(grid.Part.Block)
	for w, m := range own {
		for m != 0 {
			x := w<<6 | bits.TrailingZeros64(m)
			m &= m - 1
			found, degree = b.candidate(x, grid.ColGlobal(b.gj, b.cand[base+x]), lvl, found, degree)
		}
	}
	span := uint64(grid.ColSpan())
	for s := range grid.C {
		if s == b.gj {
			continue
		}
		ps := b.parentsOf[s]
		i := 0
		for w, m := range b.foundFrom[s] {
			for m != 0 {
				x := w<<6 | bits.TrailingZeros64(m)
				m &= m - 1
				lc := getParent(ps[i*b.parentSize:], b.parentSize)
				i++
				p := grid.ColGlobal(s, lc)
				if uint64(lc) >= span || p >= grid.Part.N {
					return 0, 0, fmt.Errorf("candidates from rank %d: parent column %d outside the column's vertices", grid.Rank(b.gi, s), lc)
				}
				found, degree = b.candidate(x, p, lvl, found, degree)
			}
		}
	}
	b.cur.Traverse += time.Since(t3)
	b.cur.Compress += t1.Sub(t0) + t3.Sub(t2)
	b.cur.Communicate += t2.Sub(t1)
	return found, degree, nil
}

// codecsFor returns the codecs of an exchange that serves a level of
// direction dir: the configured codec for bottom-up levels, the list codec
// for top-down ones. Like the 1D engine, whose top-down levels send vertex
// records whatever --codec says, the codec is that of bottom-up levels:
// top-down levels move few vertices, and a raw bitmap of a whole piece per
// message would cost more than the 1D records.
func (b *BFS2D) codecsFor(dir Direction) []frontier.Codec {
	if dir == DirectionTopDown {
		return b.lists
	}
	return b.codecs
}

// candidate offers p as the parent of owned vertex x in level lvl (see
// BFS.candidate) and returns the updated counts.
func (b *BFS2D) candidate(x int, p int64, lvl int32, found, degree int64) (int64, int64) {
	switch b.level[x] {
	case -1:
		b.level[x] = lvl
		b.parent[x] = p
		b.ownVisited[x>>6] |= 1 << (uint(x) & 63)
		b.next[x>>6] |= 1 << (uint(x) & 63)
		return found + 1, degree + int64(b.g.Degree[x])
	case lvl:
		b.parent[x] = max(b.parent[x], p)
	}
	return found, degree
}

// foldMessage appends to dst the fold message for row peer s: empty when
// this block found nothing in s's piece, else the uvarint length of the
// encoded candidate bitmap, the encoding, and the parent column of every
// candidate in vertex order, little-endian in parentSize bytes (the fewest
// that hold a local column id of the grid: 3 up to 2^24 columns). It returns the message and the bitmap's
// raw and encoded sizes.
func (b *BFS2D) foldMessage(dst []byte, s, t int) (msg []byte, raw, enc int64, err error) {
	owner := b.grid.Rank(b.gi, s)
	bm := b.piece(b.found, s, owner)
	count := 0
	for _, w := range bm {
		count += bits.OnesCount64(w)
	}
	if count == 0 {
		return dst, 0, 0, nil
	}
	e, err := b.use[t].Encode(b.encBufs[t][:0], bm)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("encoding candidates for rank %d: %w", owner, err)
	}
	b.encBufs[t] = e
	dst = binary.AppendUvarint(dst, uint64(len(e)))
	dst = append(dst, e...)
	base := s * int(b.grid.Part.Block)
	for w, m := range bm {
		for m != 0 {
			x := w<<6 | bits.TrailingZeros64(m)
			m &= m - 1
			dst = appendParent(dst, b.cand[base+x], b.parentSize)
		}
	}
	return dst, int64(len(bm)) * 8, int64(len(e)), nil
}

// decodeFold reads row peer s's fold message into foundFrom[s] and
// parentsOf[s].
func (b *BFS2D) decodeFold(s int, msg []byte, t int) error {
	dst := b.foundFrom[s]
	if len(msg) == 0 {
		clear(dst)
		b.parentsOf[s] = nil
		return nil
	}
	l, k := binary.Uvarint(msg)
	if k <= 0 || l > uint64(len(msg)-k) {
		return fmt.Errorf("corrupt length prefix")
	}
	if err := b.use[t].Decode(dst, msg[k:k+int(l)]); err != nil {
		return err
	}
	ps := msg[k+int(l):]
	count := 0
	for _, w := range dst {
		count += bits.OnesCount64(w)
	}
	if len(ps) != b.parentSize*count {
		return fmt.Errorf("%d candidates but %d bytes of parents", count, len(ps))
	}
	if n := b.g.NumOwned; n%64 != 0 && len(dst) > 0 && dst[len(dst)-1]>>(uint(n)&63) != 0 {
		return fmt.Errorf("candidates beyond the %d owned vertices", n)
	}
	b.parentsOf[s] = ps
	return nil
}

// spread tells the row peers which of this rank's vertices were discovered
// (so they stop scanning them) and gives the column peers the new frontier.
func (b *BFS2D) spread(ctx context.Context, next Direction) error {
	grid := b.grid
	b.use = b.codecsFor(next)
	threads := len(b.codecs)
	rawPiece := int64(len(b.next)) * 8
	clear(b.choices)

	// Encode.
	t0 := time.Now()
	empty := true
	for _, w := range b.next {
		if w != 0 {
			empty = false
			break
		}
	}
	if !b.sieve {
		b.shared = b.shared[:0]
		if !empty {
			enc, err := b.use[0].Encode(b.shared, b.next)
			if err != nil {
				return fmt.Errorf("encoding the frontier: %w", err)
			}
			b.shared = enc
			b.cur.RawBytes += rawPiece * int64(grid.R+grid.C-2)
			b.cur.EncodedBytes += int64(len(enc)) * int64(grid.R+grid.C-2)
			b.cur.Codec = choiceOf(b.use[0])
		}
	} else {
		parallel.For(threads, func(t int) {
			b.errs[t] = nil
			sc := &b.scratch[t]
			for d := t; d < grid.R+grid.C; d += threads {
				var dst *[]byte
				var dir frontier.Bitmap
				var extra frontier.Bitmap // bits the peer knows already
				if d < grid.C {
					if d == b.gj {
						continue
					}
					dst, dir, extra = &b.sendRow[d], b.rowDirOut[d], b.foundFrom[d]
				} else {
					a := d - grid.C
					if a == b.gi {
						continue
					}
					dst, dir = &b.sendCol[a], b.colDirOut[a]
				}
				*dst = (*dst)[:0]
				if empty {
					continue
				}
				var bm frontier.Bitmap
				if b.packed {
					*sc = packOpen(*sc, b.next, b.ownVisited, dir, extra)
				} else {
					*sc = sieveOut(*sc, b.next, dir, extra)
				}
				bm = *sc
				if !anySet(bm) {
					continue
				}
				enc, err := b.use[t].Encode(*dst, bm)
				if err != nil {
					b.errs[t] = fmt.Errorf("encoding the frontier: %w", err)
					return
				}
				*dst = enc
				b.rawT[t] += rawPiece
				b.encT[t] += int64(len(enc))
				if d >= grid.C {
					b.choices[d-grid.C] = choiceOf(b.use[t])
				}
			}
		})
		if err := b.threadsDone(); err != nil {
			return err
		}
	}
	t1 := time.Now()

	// Exchange along the row, then along the column.
	var recvRow, recvCol [][]byte
	var err error
	if b.sieve {
		recvRow, err = b.row.Alltoallv(ctx, PhaseVisited, b.sendRow, b.recvSync)
	} else {
		recvRow, err = b.row.Allgatherv(ctx, PhaseVisited, b.shared, b.recvSync)
	}
	if err != nil {
		return err
	}
	b.recvSync = recvRow
	if b.sieve {
		recvCol, err = b.col.Alltoallv(ctx, PhaseExpand, b.sendCol, b.recvCol)
	} else {
		recvCol, err = b.col.Allgatherv(ctx, PhaseExpand, b.shared, b.recvCol)
	}
	if err != nil {
		return err
	}
	b.recvCol = recvCol
	if b.sieve && !empty {
		b.cur.Codec = mostCommon(b.choices[:grid.R], b.gi)
	}
	t2 := time.Now()

	// Apply. Own piece first: its rows are done, it is this rank's part of
	// the frontier on C_j.
	ownRows := b.piece(b.rowDone, b.gj, b.rank)
	for w, m := range b.next {
		ownRows[w] |= m
	}
	clear(b.colFront)
	copy(b.piece(b.colFront, b.gi, b.rank), b.next)
	parallel.For(threads, func(t int) {
		b.errs[t] = nil
		for d := t; d < grid.R+grid.C; d += threads {
			if d < grid.C {
				if d == b.gj || len(recvRow[d]) == 0 {
					continue
				}
				if err := b.applyRow(d, recvRow[d], t); err != nil {
					b.errs[t] = fmt.Errorf("new vertices from rank %d: %w", grid.Rank(b.gi, d), err)
					return
				}
				continue
			}
			a := d - grid.C
			if a == b.gi || len(recvCol[a]) == 0 {
				continue
			}
			if err := b.applyCol(a, recvCol[a], t); err != nil {
				b.errs[t] = fmt.Errorf("frontier from rank %d: %w", grid.Rank(a, b.gj), err)
				return
			}
		}
	})
	if err := firstError(b.errs); err != nil {
		return err
	}
	if b.packed {
		for w, m := range b.colFront {
			b.colSeen[w] |= m
		}
	}
	t3 := time.Now()
	b.cur.Compress += t1.Sub(t0) + t3.Sub(t2)
	b.cur.Communicate += t2.Sub(t1)
	return nil
}

// applyRow ORs row peer s's new vertices into the rows done. Packed, the
// open positions are this block's rows of s's piece not yet done (found rows
// are done already), which is what s computed.
func (b *BFS2D) applyRow(s int, msg []byte, t int) error {
	owner := b.grid.Rank(b.gi, s)
	done := b.piece(b.rowDone, s, owner)
	if !b.packed {
		sc := b.scratch[t][:len(done)]
		if err := b.use[t].Decode(sc, msg); err != nil {
			return err
		}
		for w, m := range sc {
			done[w] |= m
		}
		return nil
	}
	return b.unpackInto(done, msg, b.piece(b.g.RowMask, s, owner), done, t)
}

// applyCol writes column peer a's new frontier piece into the frontier on
// C_j. Packed, the open positions are this block's columns of a's piece not
// received before in this search.
func (b *BFS2D) applyCol(a int, msg []byte, t int) error {
	owner := b.grid.Rank(a, b.gj)
	dst := b.piece(b.colFront, a, owner)
	if !b.packed {
		return b.use[t].Decode(dst, msg)
	}
	return b.unpackInto(dst, msg, b.piece(b.g.ColMask, a, owner), b.piece(b.colSeen, a, owner), t)
}

// unpackInto decodes a packed message — the bits at the open positions,
// mask minus closed, in order — and ORs them into dst at those positions.
// closed may be dst itself (it is read before dst's word is written).
func (b *BFS2D) unpackInto(dst frontier.Bitmap, msg []byte, mask, closed frontier.Bitmap, t int) error {
	n := 0
	for w, m := range mask {
		n += bits.OnesCount64(m &^ closed[w])
	}
	packed := b.scratch[t][:0]
	if cap(packed) < frontier.WordsFor(int64(n)) {
		packed = make(frontier.Bitmap, 0, frontier.WordsFor(int64(n)))
		b.scratch[t] = packed
	}
	packed = packed[:frontier.WordsFor(int64(n))]
	if err := b.use[t].Decode(packed, msg); err != nil {
		return err
	}
	if n%64 != 0 && packed[len(packed)-1]>>(uint(n)&63) != 0 {
		return fmt.Errorf("packed frontier sets bits beyond its %d open positions", n)
	}
	pos := 0
	for w, m := range mask {
		m &^= closed[w]
		if m == 0 {
			continue
		}
		c := bits.OnesCount64(m)
		if v := bitWindow(packed, pos, c); v != 0 {
			dst[w] |= deposit(v, m)
		}
		pos += c
	}
	return nil
}

// sieveOut writes next ∩ dir minus known into dst (resized to len(next)).
// known may be nil.
func sieveOut(dst, next, dir, known frontier.Bitmap) frontier.Bitmap {
	dst = resizeBitmap(dst, len(next))
	for w, m := range next {
		m &= dir[w]
		if known != nil {
			m &^= known[w]
		}
		dst[w] = m
	}
	return dst
}

// packOpen gathers the bits of next at the open positions — dir minus the
// vertices visited before this level (visited minus next) minus what the
// peer knows already (known, may be nil) — into dst, in order.
func packOpen(dst, next, visited, dir, known frontier.Bitmap) frontier.Bitmap {
	open := func(w int) uint64 {
		m := dir[w] &^ (visited[w] &^ next[w])
		if known != nil {
			m &^= known[w]
		}
		return m
	}
	n := 0
	for w := range next {
		n += bits.OnesCount64(open(w))
	}
	dst = resizeBitmap(dst, frontier.WordsFor(int64(n)))
	clear(dst)
	pos := 0
	for w, x := range next {
		m := open(w)
		if m == 0 {
			continue
		}
		// Each set bit of x inside m goes to pos + (open positions below it).
		for s := x & m; s != 0; s &= s - 1 {
			k := pos + bits.OnesCount64(m&(s&-s-1))
			dst[k>>6] |= 1 << (uint(k) & 63)
		}
		pos += bits.OnesCount64(m)
	}
	return dst
}

// bitWindow returns the c bits (1 ≤ c ≤ 64) of b from bit off, low-aligned.
func bitWindow(b frontier.Bitmap, off, c int) uint64 {
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

// deposit places the low bits of v, in order, at the set positions of m.
func deposit(v, m uint64) uint64 {
	var out uint64
	for ; v != 0 && m != 0; v >>= 1 {
		low := m & -m
		if v&1 != 0 {
			out |= low
		}
		m &^= low
	}
	return out
}

func anySet(b frontier.Bitmap) bool {
	for _, w := range b {
		if w != 0 {
			return true
		}
	}
	return false
}

func resizeBitmap(b frontier.Bitmap, n int) frontier.Bitmap {
	if cap(b) < n {
		return make(frontier.Bitmap, n)
	}
	return b[:n]
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// threadsDone adds the threads' byte counts to the step, resets them, and
// returns the first thread's error.
func (b *BFS2D) threadsDone() error {
	for t := range b.rawT {
		b.cur.RawBytes += b.rawT[t]
		b.cur.EncodedBytes += b.encT[t]
		b.rawT[t], b.encT[t] = 0, 0
	}
	return firstError(b.errs)
}

// appendParent appends the low size bytes of lc, little-endian.
func appendParent(dst []byte, lc uint32, size int) []byte {
	for k := range size {
		dst = append(dst, byte(lc>>(8*k)))
	}
	return dst
}

// getParent reads a parent column written by appendParent.
func getParent(b []byte, size int) uint32 {
	var lc uint32
	for k := range size {
		lc |= uint32(b[k]) << (8 * k)
	}
	return lc
}
