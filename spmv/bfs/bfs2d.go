// This file is the 2D BFS engine: Lv et al.'s level-synchronous SpMV (§III,
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
//  3. Reduce the counts (found vertices, their degrees), which decide the
//     next direction and the end of the search: they ride in steps 4 and 5
//     (the first 16 bytes of every message: the sender's own counts in the
//     row update, its processor row's sums in the expand), so the level
//     needs no collective of its own for them — on a network with latency
//     two collectives fewer per level.
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
// The codec (Config.Codec) is that of bottom-up levels, as in 1D: the exchanges
// of a top-down level (its fold, and the row update and expand after it,
// which run before the next direction is known) carry few vertices and use
// the list codec, as 1D top-down levels send vertex records. Steps 4 and 5
// carry the same encoded piece in allgather mode. Messages per rank and
// level: at most c−1 (fold) + c−1 (row update) + r−1 (expand), in three
// collectives among the row's or the column's ranks only (comm.Sub over a
// comm.GroupExchanger), against 2(p−1) for the 1D engine. Vertex ownership is
// Block1D's, so Result is in the 1D layout and the 1D validator checks it
// unchanged.
//
// Why the fold is not sieved: every candidate a block sends is a vertex the
// owner has to decide on; there is nothing the owner could not use. The
// codec still applies to its bitmap. The row update and the expand are
// sieved.

package bfs

import (
	"context"
	"fmt"
	"math/bits"
	"sort"
	"sync/atomic"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/sieve"
	"github.com/graphrun/graphrun/spmv"
)

// Phases of the 2D engine (counts are reduced under PhaseReduce, as in 1D).
const (
	PhaseFold    = "bfs2d.fold"    // candidates along processor rows
	PhaseVisited = "bfs2d.visited" // new vertices along processor rows
	PhaseExpand  = "bfs2d.expand"  // new frontier along processor columns
)

// BFS2D is one rank's reusable 2D breadth-first search engine.
type BFS2D struct {
	c        comm.Comm // the whole job
	cfg      Config
	lv       spmv.Levels
	row, col *comm.Sub
	g        *graph.Block2D
	grid     partition.Grid
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
	open     []frontier.Bitmap // one per thread: packed mode's open positions
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
}

// NewBFS2D prepares a 2D BFS engine for this rank's block. Every rank must
// call it (it builds the row and column groups and, for the sieve and the
// packed sieve, exchanges the directories once). cfg is as for NewBFS.
func New2D(ctx context.Context, c comm.Comm, g *graph.Block2D, cfg Config) (*BFS2D, error) {
	cfg, err := cfg.check()
	if err != nil {
		return nil, err
	}
	grid := g.Grid
	if grid.P() != c.Size() || g.Rank != c.Rank() {
		return nil, fmt.Errorf("bfs: block of rank %d on a %s grid does not fit rank %d of %d", g.Rank, grid, c.Rank(), c.Size())
	}
	if o := cfg.Order; o != nil && o.N != grid.Part.N {
		return nil, fielderr.New("Order", "a vertex order of %d vertices for a graph of %d", o.N, grid.Part.N)
	}
	b := &BFS2D{c: c, cfg: cfg, lv: spmv.NewLevels(c, cfg.Direction, grid.Part.N), g: g, grid: grid, rank: c.Rank(), gi: g.Row, gj: g.Col,
		pw:         int(grid.Part.Block / 64),
		parentSize: max(1, (bits.Len64(uint64(grid.ColSpan()-1))+7)/8),
		sieve:      cfg.Exchange == spmv.ExchangeSieve || cfg.Exchange == spmv.ExchangePacked,
		packed:     cfg.Exchange == spmv.ExchangePacked,
	}
	if b.row, err = comm.NewSub(c, grid.RowMembers(b.gi)); err != nil {
		return nil, fmt.Errorf("bfs: %w", err)
	}
	if b.col, err = comm.NewSub(c, grid.ColMembers(b.gj)); err != nil {
		return nil, fmt.Errorf("bfs: %w", err)
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
			return nil, fmt.Errorf("bfs: %w", fielderr.Wrap("Codec", err))
		}
		b.codecs = append(b.codecs, codec)
		list, err := frontier.New("list")
		if err != nil {
			return nil, fmt.Errorf("bfs: %w", err)
		}
		b.lists = append(b.lists, list)
		b.scratch = append(b.scratch, make(frontier.Bitmap, b.pw))
		b.encBufs = append(b.encBufs, nil)
	}
	b.use = b.codecs
	b.open = make([]frontier.Bitmap, cfg.Threads)
	b.errs = make([]error, cfg.Threads)
	b.rawT = make([]int64, cfg.Threads)
	b.encT = make([]int64, cfg.Threads)
	b.choices = make([]string, max(grid.R, grid.C))
	b.sendRow = make([][]byte, grid.C)
	b.sendCol = make([][]byte, grid.R)
	if b.sieve {
		if b.colDirOut, b.rowDirOut, err = sieve.Exchange2D(ctx, g, b.row, b.col); err != nil {
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

// Prepare clears the previous search's state (see BFS.Prepare).
func (b *BFS2D) Prepare() { b.lv.Prepare((*engine2D)(b)) }

// Config returns the engine's configuration, with defaults filled in.
func (b *BFS2D) Config() Config { return b.cfg }

// reset clears the previous search (Prepare).
func (b *BFS2D) reset() {
	for i := range b.parent {
		b.parent[i] = -1
		b.level[i] = -1
	}
	clear(b.ownVisited)
	copy(b.rowDone, b.rowIdle)
	if b.packed {
		clear(b.colSeen)
	}
}

// allreduce sums vals over all ranks: along the processor row, then along
// the column (the search's totals; a level's counts ride in publish).
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
	steps, err := b.lv.Run(ctx, (*engine2D)(b), root)
	if err != nil {
		return nil, err
	}
	return &Result{Root: root, Parent: b.parent, Level: b.level, Steps: steps}, nil
}

// start puts root in the frontier on C_j when it is one of its columns,
// marks its row done when it is one of R_i's, and settles it at its owner.
func (b *BFS2D) start(root int64, _ spmv.Direction) (degree int64) {
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
	if b.grid.Part.Owner(root) == b.rank {
		l := b.grid.Part.Local(root)
		b.parent[l] = root
		b.level[l] = 0
		b.ownVisited.Set(int64(l))
		degree = int64(b.g.Degree[l])
	}
	return degree
}

// traverse scans or claims this block's rows (step 1 of a level) and folds
// the candidates to their owners (step 2).
func (b *BFS2D) traverse(ctx context.Context, lvl int32, dir spmv.Direction) (found, degree int64, err error) {
	t0 := time.Now()
	if dir == spmv.DirectionTopDown {
		b.topDown()
	} else {
		b.bottomUp()
	}
	b.lv.Step.Traverse += time.Since(t0)
	return b.fold(ctx, lvl, dir)
}

// bottomUp scans the rows of R_i not yet done for their largest frontier
// neighbour in C_j, filling found and cand and marking the found rows done.
func (b *BFS2D) bottomUp() {
	nw := len(b.rowDone)
	chunks := (nw + pullChunkWords - 1) / pullChunkWords
	scan := func(lo, hi int) int64 {
		return scanRows(b.g.RowMask, b.g.RowRank, b.g.RowOffsets, b.g.Cols, b.colFront, b.rowDone, b.found, b.cand, lo, hi)
	}
	if b.cfg.Threads == 1 || chunks <= 1 {
		b.lv.Step.Scanned += scan(0, nw)
		return
	}
	var nextChunk, scanned atomic.Int64
	parallel.For(min(b.cfg.Threads, chunks), func(int) {
		var read int64
		for {
			ci := int(nextChunk.Add(1) - 1)
			if ci >= chunks {
				break
			}
			read += scan(ci*pullChunkWords, min((ci+1)*pullChunkWords, nw))
		}
		scanned.Add(read)
	})
	b.lv.Step.Scanned += scanned.Load()
}

// scanRows is the bottom-up kernel over the words [lo, hi) of the row
// bitmaps. Rows are stored descending, so the first frontier column found is
// the largest. Every row not done has an entry (empty rows start done).
func scanRows(mask []uint64, rank []uint32, offsets []int64, cols []uint32, front, done, found frontier.Bitmap,
	cand []uint32, lo, hi int) (scanned int64) {
	for w := lo; w < hi; w++ {
		todo := ^done[w]
		var discovered uint64
		for todo != 0 {
			t := bits.TrailingZeros64(todo)
			bit := uint64(1) << uint(t)
			todo &^= bit
			k := int(rank[w]) + bits.OnesCount64(mask[w]&(bit-1))
			row := cols[offsets[k]:offsets[k+1]]
			read := len(row)
			for i, c := range row {
				if front[c>>6]&(1<<(c&63)) != 0 {
					cand[w<<6|t] = c
					discovered |= bit
					read = i + 1
					break
				}
			}
			scanned += int64(read)
		}
		done[w] |= discovered
		found[w] = discovered
	}
	return scanned
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
	var scanned atomic.Int64
	parallel.For(threads, func(t int) {
		lo, hi := parallel.Span(words, t, threads)
		scanned.Add(claimRows(b.g.ColMask, b.g.ColRank, b.g.ColOffsets, b.g.RowIDs, b.queue, b.rowDone, b.found, b.cand,
			int64(lo)<<6, int64(hi)<<6, threads > 1))
	})
	b.lv.Step.Scanned += scanned.Load()
}

// claimRows is the top-down kernel for the rows [lo, hi): every column of
// queue (descending) takes its rows in that range that are not yet done.
// With ranged set, each column's ascending row list is cut to the range by
// binary search.
func claimRows(mask []uint64, rank []uint32, offsets []int64, rowIDs []uint32, queue []uint32,
	done, found frontier.Bitmap, cand []uint32, lo, hi int64, ranged bool) (scanned int64) {
	for _, c := range queue {
		w := c >> 6
		k := int(rank[w]) + bits.OnesCount64(mask[w]&(uint64(1)<<(c&63)-1))
		rows := rowIDs[offsets[k]:offsets[k+1]]
		if ranged {
			a := sort.Search(len(rows), func(x int) bool { return int64(rows[x]) >= lo })
			z := a + sort.Search(len(rows)-a, func(x int) bool { return int64(rows[a+x]) >= hi })
			rows = rows[a:z]
		}
		scanned += int64(len(rows))
		for _, r := range rows {
			bit := uint64(1) << (r & 63)
			if done[r>>6]&bit == 0 {
				done[r>>6] |= bit
				found[r>>6] |= bit
				cand[r] = c
			}
		}
	}
	return scanned
}
