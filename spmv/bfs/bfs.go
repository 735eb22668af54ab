package bfs

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
)

// Phase names under which BFS traffic is counted.
const (
	PhaseFrontier = "bfs.frontier" // Allgatherv (or sieved Alltoallv) of the frontier bitmap
	PhasePush     = "bfs.push"     // Alltoallv of (vertex, parent) pairs
	PhaseReduce   = "bfs.reduce"   // allreduce of the discovered count
)

// BFSConfig configures a BFS engine.
type Config struct {
	Exchange  spmv.Exchange
	Direction spmv.Direction // ignored by ExchangePush, which is always top-down
	// Codec names the frontier codec of bottom-up exchanges (frontier.New);
	// "" means "raw", the plain bitmap of Lv et al.'s BIT.
	Codec   string
	Threads int // goroutines for local traversal and encoding (≥ 1)
	// Order, when not nil (2D engine only), says that the vertices are a
	// renumbering (partition.SegmentOrder) of the graph's own, and the
	// search then keeps, per vertex, the parent that is largest in the
	// original numbering, so that its tree, mapped back, is the one the
	// engine finds on the original graph. Every block must keep a larger
	// local id a larger original id, as the fused layouts do.
	Order *partition.SegmentOrder
}

// Result is one search's output on this rank. Its slices belong to the BFS
// engine and are overwritten by the next Run.
type Result struct {
	Root   int64
	Parent []int64 // per owned vertex: parent's global id, Root for the root, -1 unreached
	Level  []int32 // per owned vertex: BFS level, -1 unreached
	// Steps has one entry per level-synchronous step: Steps[0] is the root
	// (level 0); the last step is the one that found nothing.
	Steps []spmv.LevelStats
}

// Work returns the time the search spent traversing, sieving and coding on
// this rank (not communicating or waiting) and the adjacency entries it read.
func (r *Result) Work() (busy time.Duration, scanned int64) {
	for _, s := range r.Steps {
		busy += s.Traverse + s.Compress
		scanned += s.Scanned
	}
	return busy, scanned
}

// BFS is one rank's reusable breadth-first search engine over its CSR rows.
type BFS struct {
	c    comm.Comm // the whole job
	cfg  Config
	lv   spmv.Levels
	g    *graph.CSR
	part partition.Block1D
	rank int

	parent  []int64
	level   []int32
	visited frontier.Bitmap // owned vertices already discovered (or never discoverable)
	idle    frontier.Bitmap // owned vertices with no neighbour, and padding bits
	next    frontier.Bitmap // owned vertices discovered in the current step
	global  frontier.Bitmap // the global frontier, for bottom-up steps
	recvBuf [][]byte

	pub publisher // bottom-up: codecs, sieve and buffers of the frontier exchange

	queue, nextQueue []uint32   // top-down: owned frontier vertices
	threadBufs       [][][]byte // top-down: per thread, per destination records
	expandThreads    int        // top-down: threads whose buffers hold this level's records
	sendBufs         [][]byte   // top-down: per destination
	compactRecords   bool       // top-down records to other ranks are sorted and varint-coded
	compactBuf       []byte
	keys             []uint64
}

// NewBFS prepares a BFS engine for this rank's CSR. For ExchangeSieve and
// ExchangePacked it builds the cross directory (once; its cost is not part of
// any search).
func New(c comm.Comm, g *graph.CSR, part partition.Block1D, cfg Config) (*BFS, error) {
	cfg, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if cfg.Order != nil {
		return nil, fielderr.New("Order", "is for the 2D engine only")
	}
	r := c.Rank()
	if part.P != c.Size() || g.NumLocal != part.Count(r) || g.FirstGlobal != part.First(r) || g.NumGlobal != part.N {
		return nil, fmt.Errorf("bfs: CSR of rank %d (first %d, %d vertices of %d) does not match the partition", r, g.FirstGlobal, g.NumLocal, g.NumGlobal)
	}
	n := g.NumLocal
	b := &BFS{c: c, cfg: cfg, lv: spmv.NewLevels(c, cfg.Direction, part.N), g: g, part: part, rank: r,
		parent:  make([]int64, n),
		level:   make([]int32, n),
		visited: frontier.NewBitmap(int64(n)),
		idle:    frontier.NewBitmap(int64(n)),
		next:    frontier.NewBitmap(int64(n)),
	}
	if g.Packed != nil {
		if len(g.Offsets) != n+1 || g.Offsets[n] != int64(len(g.Packed))-graph.PackedPad {
			return nil, fmt.Errorf("bfs: packed CSR of rank %d: %d offsets for %d vertices, %d bytes", r, len(g.Offsets), n, len(g.Packed))
		}
	}
	for v := 0; v < n; v++ {
		if g.Offsets[v] == g.Offsets[v+1] || (g.Packed != nil && g.Packed[g.Offsets[v]] == 0) {
			b.idle.Set(int64(v))
		}
	}
	for v := n; v < len(b.idle)*64; v++ {
		b.idle.Set(int64(v))
	}
	if cfg.Direction != spmv.DirectionTopDown {
		b.global = frontier.NewBitmap(part.N)
		pub, err := newPublisher(g, part, r, cfg)
		if err != nil {
			return nil, err
		}
		b.pub = pub
	}
	if cfg.Direction != spmv.DirectionBottomUp {
		b.threadBufs = make([][][]byte, cfg.Threads)
		for t := range b.threadBufs {
			b.threadBufs[t] = make([][]byte, part.P)
		}
		b.sendBufs = make([][]byte, part.P)
		b.compactRecords = cfg.Codec != "raw"
	}
	return b, nil
}

// Prepare clears the previous search's parents, levels and visited set. Run
// calls it when the caller has not; the Graph500 driver calls it before
// starting the clock, as the reference code clears its predecessor array
// outside the timed region.
func (b *BFS) Prepare() { b.lv.Prepare((*engine1D)(b)) }

// Config returns the engine's configuration, with defaults filled in (the
// codec name, and the direction that push implies).
func (b *BFS) Config() Config { return b.cfg }

// reset clears the previous search (Prepare).
func (b *BFS) reset() {
	for i := range b.parent {
		b.parent[i] = -1
		b.level[i] = -1
	}
	copy(b.visited, b.idle)
	if b.pub.packer != nil {
		b.pub.packer.Reset()
	}
}

// Run searches from root (a global id) and returns this rank's share of the
// result. Every rank must call Run with the same root.
func (b *BFS) Run(ctx context.Context, root int64) (*Result, error) {
	steps, err := b.lv.Run(ctx, (*engine1D)(b), root)
	if err != nil {
		return nil, err
	}
	return &Result{Root: root, Parent: b.parent, Level: b.level, Steps: steps}, nil
}

func (b *BFS) allreduce(ctx context.Context, vals []int64) error {
	return b.c.AllreduceInt64(ctx, PhaseReduce, vals, comm.Sum)
}

// start marks root discovered at its owner, queues it for a top-down first
// step and sets it in the global frontier for a bottom-up one.
func (b *BFS) start(root int64, dir spmv.Direction) (degree int64) {
	b.queue = b.queue[:0]
	if b.part.Owner(root) == b.rank {
		l := b.part.Local(root)
		b.visited.Set(int64(l))
		b.parent[l] = root
		b.level[l] = 0
		b.queue = append(b.queue, l)
		degree = b.g.Degree(l)
	}
	if dir == spmv.DirectionBottomUp {
		b.global.Clear()
		b.global.Set(root)
	}
	return degree
}

// traverse is one level: top-down, the expansion of the queue and the push
// of its records to their owners; bottom-up, the scan of the unvisited
// vertices against the global frontier.
func (b *BFS) traverse(ctx context.Context, lvl int32, dir spmv.Direction) (found, degree int64, err error) {
	t0 := time.Now()
	if dir == spmv.DirectionTopDown {
		b.expand()
		b.lv.Step.Traverse += time.Since(t0)
		return b.exchangePush(ctx, lvl)
	}
	found, degree = b.pull(lvl)
	b.lv.Step.Traverse += time.Since(t0)
	return found, degree, nil
}

// publish turns the vertices this rank discovered into the form the next
// step needs: the global frontier bitmap before a bottom-up step (exchanged
// through the publisher: Lv et al. Alg. 1 line 7, Alg. 2, Alg. 3), the owned
// queue before a top-down step.
func (b *BFS) publish(ctx context.Context, current, next spmv.Direction) error {
	if next == spmv.DirectionBottomUp {
		return b.pub.publish(ctx, b.c, b.part, b.next, b.global, &b.lv.Step)
	}
	if current == spmv.DirectionTopDown {
		b.queue, b.nextQueue = b.nextQueue, b.queue
		return nil
	}
	t0 := time.Now()
	b.queue = b.queue[:0]
	for wi, w := range b.next {
		for w != 0 {
			b.queue = append(b.queue, uint32(wi<<6|bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	b.lv.Step.Traverse += time.Since(t0)
	return nil
}

// pullChunkWords is the number of bitmap words (64 vertices each) a thread
// claims at a time during the bottom-up scan.
const pullChunkWords = 64

// pull is the local SpMV t_i = A_i ⊗ f ⊙ ¬π_i of one level: every unvisited
// owned vertex takes its largest frontier neighbour as parent. It fills b.next
// and returns how many vertices it discovered and their stored degrees.
func (b *BFS) pull(lvl int32) (found, degree int64) {
	nw := len(b.visited)
	chunks := (nw + pullChunkWords - 1) / pullChunkWords
	scan := func(lo, hi int) (int64, int64) {
		if b.g.Packed != nil {
			return pullPackedWords(b.g.Packed, b.g.Offsets, b.g.FirstGlobal, b.global, b.visited, b.next, b.parent, b.level, lo, hi, lvl)
		}
		if b.g.Cols32 != nil {
			return pullWords(b.g.Cols32, b.g.Offsets, b.global, b.visited, b.next, b.parent, b.level, lo, hi, lvl)
		}
		return pullWords(b.g.Cols64, b.g.Offsets, b.global, b.visited, b.next, b.parent, b.level, lo, hi, lvl)
	}
	if b.cfg.Threads == 1 || chunks == 1 {
		return scan(0, nw)
	}
	var nextChunk, totalFound, totalDegree atomic.Int64
	var wg sync.WaitGroup
	for t := 0; t < min(b.cfg.Threads, chunks); t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var found, degree int64
			for {
				ci := int(nextChunk.Add(1) - 1)
				if ci >= chunks {
					break
				}
				f, d := scan(ci*pullChunkWords, min((ci+1)*pullChunkWords, nw))
				found += f
				degree += d
			}
			totalFound.Add(found)
			totalDegree.Add(degree)
		}()
	}
	wg.Wait()
	return totalFound.Load(), totalDegree.Load()
}

// pullWords scans the owned vertices of bitmap words [lo, hi). Rows are sorted
// in descending order, so the first frontier neighbour found is the largest.
func pullWords[C uint32 | int64](cols []C, offsets []int64, global, visited, next frontier.Bitmap,
	parent []int64, level []int32, lo, hi int, lvl int32) (found, degree int64) {
	for w := lo; w < hi; w++ {
		todo := ^visited[w]
		var discovered uint64
		for todo != 0 {
			t := bits.TrailingZeros64(todo)
			todo &= todo - 1
			v := w<<6 | t
			row := cols[offsets[v]:offsets[v+1]]
			for _, u := range row {
				if global[u>>6]&(1<<(uint64(u)&63)) != 0 {
					parent[v] = int64(u)
					level[v] = lvl
					discovered |= 1 << uint(t)
					found++
					degree += int64(len(row))
					break
				}
			}
		}
		visited[w] |= discovered
		next[w] = discovered
	}
	return found, degree
}

// pushRecordSize is the wire size of one (vertex, parent) record
// (spmv.RecordSize): every parent of a top-down step is a frontier vertex
// the sender owns, and the receiver knows the sender.
const pushRecordSize = spmv.RecordSize

// exchangePush sends the records of a top-down step to the owners and
// applies the ones this rank receives. It returns how many vertices this
// rank discovered and their stored degrees.
func (b *BFS) exchangePush(ctx context.Context, lvl int32) (found, degree int64, err error) {
	if err := spmv.TimedAlltoallv(ctx, b.c, PhasePush, b.sendBufs, &b.recvBuf, &b.lv.Step.Communicate); err != nil {
		return 0, 0, err
	}
	recv := b.recvBuf
	t1 := time.Now()
	defer func() { b.lv.Step.Traverse += time.Since(t1) }()
	b.nextQueue = b.nextQueue[:0]
	b.next.Clear()
	for src, msg := range recv {
		if src == b.rank {
			// This rank's own records never went through the transport:
			// they are applied from the threads' buffers, in the order the
			// merged buffer would have had.
			for _, own := range b.threadBufs[:b.expandThreads] {
				if err := b.applyPush(own[src], src, lvl); err != nil {
					return 0, 0, fmt.Errorf("own records: %w", err)
				}
			}
			continue
		}
		if err := b.applyPush(msg, src, lvl); err != nil {
			return 0, 0, fmt.Errorf("records from rank %d: %w", src, err)
		}
	}
	for _, l := range b.nextQueue {
		degree += b.g.Degree(l)
	}
	return int64(len(b.nextQueue)), degree, nil
}

// expand writes, for every edge (v, u) of an owned frontier vertex v, the
// record (u, v) into the buffer of u's owner. Threads take contiguous parts of
// the queue; their buffers are concatenated per destination, except this
// rank's own, which exchangePush applies from the threads' buffers: the
// largest top-down level's records are then held once, not three times
// (thread buffers, send buffer, the transport's copy).
func (b *BFS) expand() {
	threads := min(b.cfg.Threads, max(1, len(b.queue)/64))
	b.expandThreads = threads
	if threads == 1 {
		b.expandRange(b.threadBufs[0], b.queue)
	} else {
		var wg sync.WaitGroup
		for t := 0; t < threads; t++ {
			part := b.queue[len(b.queue)*t/threads : len(b.queue)*(t+1)/threads]
			wg.Add(1)
			go func() {
				defer wg.Done()
				b.expandRange(b.threadBufs[t], part)
			}()
		}
		wg.Wait()
	}
	for d := range b.sendBufs {
		if d == b.rank {
			b.sendBufs[d] = b.sendBufs[d][:0]
			continue
		}
		buf := b.sendBufs[d][:0]
		for t := 0; t < threads; t++ {
			buf = append(buf, b.threadBufs[t][d]...)
		}
		b.sendBufs[d] = buf
		if b.compactRecords && d != b.rank {
			t0 := time.Now()
			b.compactBuf, b.keys = spmv.CompactRecords(b.compactBuf, buf, b.keys)
			b.sendBufs[d], b.compactBuf = b.compactBuf, buf
			b.lv.Step.Compress += time.Since(t0)
		}
	}
}

func (b *BFS) expandRange(bufs [][]byte, queue []uint32) {
	for d := range bufs {
		bufs[d] = bufs[d][:0]
	}
	if b.g.Packed != nil {
		expandPackedRows(b.g.Packed, b.g.Offsets, b.g.FirstGlobal, b.part, b.rank, b.visited, bufs, queue)
	} else if b.g.Cols32 != nil {
		expandRows(b.g.Cols32, b.g.Offsets, b.part, b.rank, b.visited, bufs, queue)
	} else {
		expandRows(b.g.Cols64, b.g.Offsets, b.part, b.rank, b.visited, bufs, queue)
	}
}

func expandRows[C uint32 | int64](cols []C, offsets []int64, part partition.Block1D, rank int, visited frontier.Bitmap,
	bufs [][]byte, queue []uint32) {
	var rec [pushRecordSize]byte
	for _, v := range queue {
		binary.LittleEndian.PutUint32(rec[4:], v)
		for _, c := range cols[offsets[v]:offsets[v+1]] {
			u := int64(c)
			d := part.Owner(u)
			l := part.Local(u)
			if d == rank && visited.Test(int64(l)) {
				continue // already discovered here: no need to send to ourselves
			}
			binary.LittleEndian.PutUint32(rec[:4], l)
			bufs[d] = append(bufs[d], rec[:]...)
		}
	}
}

// applyPush takes the candidate parents of one message: a vertex not yet
// discovered joins the next frontier; among the candidates of the same level
// the largest parent wins, so the result does not depend on arrival order.
func (b *BFS) applyPush(msg []byte, src int, lvl int32) error {
	if b.compactRecords && src != b.rank {
		return spmv.ForEachCompactRecord(msg, uint32(len(b.level)), uint32(b.part.Count(src)), func(l, pl uint32) {
			b.candidate(l, b.part.Global(src, pl), lvl)
		})
	}
	if len(msg)%pushRecordSize != 0 {
		return fmt.Errorf("message of %d bytes is not a whole number of %d-byte records", len(msg), pushRecordSize)
	}
	n, senders := uint32(len(b.level)), uint32(b.part.Count(src))
	for i := 0; i < len(msg); i += pushRecordSize {
		l := binary.LittleEndian.Uint32(msg[i:])
		pl := binary.LittleEndian.Uint32(msg[i+4:])
		if l >= n || pl >= senders {
			return fmt.Errorf("record (%d, %d) out of range [0, %d) × [0, %d)", l, pl, n, senders)
		}
		b.candidate(l, b.part.Global(src, pl), lvl)
	}
	return nil
}

// candidate offers p as the parent of local vertex l in level lvl.
func (b *BFS) candidate(l uint32, p int64, lvl int32) {
	switch b.level[l] {
	case -1:
		b.level[l] = lvl
		b.parent[l] = p
		b.visited.Set(int64(l))
		b.next.Set(int64(l))
		b.nextQueue = append(b.nextQueue, l)
	case lvl:
		if p > b.parent[l] {
			b.parent[l] = p
		}
	}
}

// check validates cfg and returns it with the defaults filled in: the raw
// codec when none is named, top-down for the push exchange. Its errors are
// fielderr.Errors naming the field at fault.
func (cfg Config) check() (Config, error) {
	if cfg.Threads < 1 {
		return cfg, fielderr.New("Threads", "%d < 1", cfg.Threads)
	}
	if cfg.Exchange < spmv.ExchangeAllgather || cfg.Exchange > spmv.ExchangePacked {
		return cfg, fielderr.New("Exchange", "unknown exchange %d", cfg.Exchange)
	}
	if cfg.Direction < spmv.DirectionAuto || cfg.Direction > spmv.DirectionBottomUp {
		return cfg, fielderr.New("Direction", "unknown direction %d", cfg.Direction)
	}
	if cfg.Exchange == spmv.ExchangePush {
		cfg.Direction = spmv.DirectionTopDown
	}
	if cfg.Codec == "" {
		cfg.Codec = "raw"
	}
	return cfg, nil
}
