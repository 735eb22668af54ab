package sssp

// Δ-stepping on the 2D grid partition (partition.Grid, graph.Block2D; Meyer
// and Sanders §2–§3 over the layout Lv et al. §VIII–IX name as the step
// after compression and sieve, as the 2D BFS of spmv/bfs runs it). Vertex
// ownership is the 1D one, so the owners' side — distances, parents,
// buckets, the choice of a phase's vertices and the next bucket — is the
// 1D engine's (newState); only the phase step differs. Rank (i, j) holds
// block A[R_i, C_j] with a weight beside every entry of its by-column copy
// (graph.BuildWeights2D), each column reordered by weight in place so that
// its light entries are a prefix (rows.go). One phase:
//
//  1. Expand (along processor column j): every owner sends the phase's
//     vertices with their distances to its column peers, which together
//     make the phase's vertices in C_j (8 bytes a vertex: its offset in
//     the owner's piece and its distance's float32 bits).
//  2. Relax: every rank scans the light (or heavy) entries of those columns
//     in its block; a row r of R_i reached at distance d + w is a request,
//     kept unless this rank already sent r a distance ≤ d + w in an
//     earlier phase (such a request cannot change the owner's state).
//  3. Combine: the requests to one row are combined by the rule the owners
//     apply (the smallest distance, then the largest parent), so that at
//     most one per row and phase travels.
//  4. Fold (along processor row i): the requests go to the rows' owners, as
//     the 1D engine's (RequestSize bytes: target's offset in the owner's
//     piece, distance bits, parent's local column in the sender's
//     processor column; compact with Config.Compact), who apply them.
//
// The owners apply the same requests as in 1D up to combining and
// requests that cannot win, under the same associative rule: distances and
// parents are those of the 1D engine for any grid. Messages per rank and
// phase: r−1 (expand) and c−1 (fold) against p−1 in 1D.
//
// Sources: Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun,
// "Compression and Sieve: Reducing Communication in Parallel Breadth First
// Search on Distributed Memory Systems", arXiv preprint, 2012; Andy Yoo et
// al., "A Scalable Distributed Parallel Breadth-First Search Algorithm on
// BlueGene/L", SC'05, ACM/IEEE, 2005 (the grid layout: expand along
// columns, fold along rows).

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// Phases of the 2D engine (the fold counts under PhaseRelax, the next
// bucket under PhaseReduce, as in 1D).
const PhaseExpand2D = "sssp.expand" // a phase's vertices along processor columns

// expandRecord is the wire size of a vertex of the expand: its offset in
// the sender's piece (uint32) and its distance's float32 bits, little-endian.
const expandRecord = 8

// SSSP2D is one rank's reusable Δ-stepping engine over its 2D block.
type SSSP2D struct {
	s        *SSSP // the owners' side, with the 2D step
	blk      *graph.Block2D
	grid     partition.Grid
	row, col *comm.Sub
	cols     *rows[uint32] // the block's non-empty columns, ordered by weight

	bound     []float32   // per row of R_i: the least distance sent to it in earlier phases
	best      []float32   // per row: the phase's combined request
	bestFrom  []uint32    // its parent, a local column
	stamp     []uint32    // per row: the phase of best (0: none yet)
	stamps    uint32      // phases stepped over the engine's life
	rowShift  uint        // row >> rowShift is the combining thread
	touched   [][]uint32  // per combining thread: its rows requested in this phase
	front     []uint64    // the phase's columns: local column << 32 | distance bits
	local     [][]request // per expanding thread: its requests (target row, distance, parent column)
	out       [][][]byte  // per combining thread and row peer: combined requests
	recvReqs  [][]request // per row peer: the requests it sent, decoded
	errs      []error     // per row peer
	sendCol   [][]byte
	recvCol   [][]byte
	sendRow   [][]byte
	recvRow   [][]byte
	compacted [][]byte
	keys      []uint64
}

// New2D prepares a 2D SSSP engine for this rank's block and the weights of
// its by-column entries (graph.BuildWeights2D). Every rank of c calls it
// with the same cfg; Delta 0 agrees on DefaultDelta's value, the same as
// the 1D engine's on the same graph.
//
// New2D reorders each column of blk, and w with it, by ascending weight, in
// place: the by-column lists are no longer ascending, so that blk serves
// SSSP and its Validator2D only (not a BFS).
func New2D(ctx context.Context, c comm.Comm, blk *graph.Block2D, w []float32, cfg Config) (*SSSP2D, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	grid := blk.Grid
	if grid.P() != c.Size() || blk.Rank != c.Rank() || len(blk.Degree) != blk.NumOwned {
		return nil, fmt.Errorf("sssp: block of rank %d on a %s grid does not fit rank %d of %d", blk.Rank, grid, c.Rank(), c.Size())
	}
	if len(w) != len(blk.RowIDs) {
		return nil, fmt.Errorf("sssp: %d weights for %d block entries", len(w), len(blk.RowIDs))
	}
	delta := cfg.Delta
	if delta == 0 {
		var heaviest float64
		for _, x := range w {
			heaviest = max(heaviest, float64(x))
		}
		var withEdges int64
		for _, d := range blk.Degree {
			if d > 0 {
				withEdges++
			}
		}
		var err error
		if delta, err = agreeDelta(ctx, c, heaviest, blk.NumEdges(), withEdges); err != nil {
			return nil, err
		}
	}
	e := &SSSP2D{s: newState(c, cfg, grid.Part, blk.NumOwned, delta), blk: blk, grid: grid}
	var err error
	if e.row, err = comm.NewSub(c, grid.RowMembers(blk.Row)); err != nil {
		return nil, fmt.Errorf("sssp: %w", err)
	}
	if e.col, err = comm.NewSub(c, grid.ColMembers(blk.Col)); err != nil {
		return nil, fmt.Errorf("sssp: %w", err)
	}
	e.s.step = e.step
	// The by-column copy as a CSR over the non-empty columns, for rows.go.
	view := &graph.CSR{Offsets: blk.ColOffsets, NumLocal: len(blk.ColOffsets) - 1, Cols32: blk.RowIDs}
	e.cols = newRows(view, blk.RowIDs, w, e.s.delta, cfg.Threads)
	nr, threads := blk.NumRows, cfg.Threads
	e.bound, e.best = make([]float32, nr), make([]float32, nr)
	e.bestFrom, e.stamp = make([]uint32, nr), make([]uint32, nr)
	for (nr-1)>>e.rowShift >= threads && nr > 0 {
		e.rowShift++
	}
	e.touched, e.local, e.out = make([][]uint32, threads), make([][]request, threads), make([][][]byte, threads)
	for t := range threads {
		e.out[t] = make([][]byte, grid.C)
	}
	e.recvReqs, e.errs = make([][]request, grid.C), make([]error, grid.C)
	e.sendCol, e.sendRow, e.compacted = make([][]byte, grid.R), make([][]byte, grid.C), make([][]byte, grid.C)
	e.Prepare()
	return e, nil
}

// Delta returns the bucket width the engine uses.
func (e *SSSP2D) Delta() float64 { return e.s.Delta() }

// Prepare clears the previous search now, so that the next Run does not
// (see SSSP.Prepare).
func (e *SSSP2D) Prepare() {
	e.s.Prepare()
	inf := float32(math.Inf(1))
	for i := range e.bound {
		e.bound[i] = inf
	}
}

// Run searches from root (a global id) and returns this rank's share of
// the result, its owned vertices in the 1D layout. Every rank must call
// Run with the same root.
func (e *SSSP2D) Run(ctx context.Context, root int64) (*Result, error) {
	if !e.s.prepared {
		e.Prepare()
	}
	return e.s.Run(ctx, root)
}

// step is one 2D phase: expand list along the column, relax the block's
// columns, combine and fold the requests along the row, and apply them.
func (e *SSSP2D) step(ctx context.Context, list []uint32, light bool) error {
	s := e.s
	msg := e.sendCol[0][:0]
	for _, v := range list {
		msg = binary.LittleEndian.AppendUint32(msg, v)
		msg = binary.LittleEndian.AppendUint32(msg, math.Float32bits(s.dist[v]))
	}
	for a := range e.sendCol {
		e.sendCol[a] = msg
	}
	t0 := time.Now()
	recv, err := e.col.Alltoallv(ctx, PhaseExpand2D, e.sendCol, e.recvCol)
	if err != nil {
		return fmt.Errorf("sssp: %w", err)
	}
	e.recvCol = recv
	s.stats.Communicate += time.Since(t0)
	t1 := time.Now()
	if err := e.readFront(); err != nil {
		return err
	}
	workers := e.relax(light)
	e.combine(workers)
	s.stats.Relax += time.Since(t1)
	if err := e.fold(ctx); err != nil {
		return err
	}
	t2 := time.Now()
	s.phase++
	s.stats.Phases++
	parallel.For(len(s.bins), func(o int) { e.applyOwned(o) })
	s.stats.Apply += time.Since(t2)
	return nil
}

// readFront checks the expand's messages and lists the phase's columns of
// C_j with their distances in e.front.
func (e *SSSP2D) readFront() error {
	grid, block := e.grid, e.grid.Part.Block
	inf := math.Float32bits(float32(math.Inf(1)))
	e.front = e.front[:0]
	for a, m := range e.recvCol {
		n := uint32(grid.Part.Count(grid.Rank(a, e.blk.Col)))
		if len(m)%expandRecord != 0 {
			return fmt.Errorf("sssp: expand from rank %d: %d bytes, not a multiple of %d", grid.Rank(a, e.blk.Col), len(m), expandRecord)
		}
		for i := 0; i < len(m); i += expandRecord {
			off, bits := binary.LittleEndian.Uint32(m[i:]), binary.LittleEndian.Uint32(m[i+4:])
			if off >= n || bits >= inf {
				return fmt.Errorf("sssp: expand from rank %d: vertex (%d, %#x) out of range [0, %d) × [0, ∞)", grid.Rank(a, e.blk.Col), off, bits, n)
			}
			e.front = append(e.front, uint64(uint32(int64(a)*block)+off)<<32|uint64(bits))
		}
	}
	return nil
}

// relax expands the light or heavy entries of the phase's columns into
// requests, a list per expanding thread; it returns the number of
// expanding threads.
func (e *SSSP2D) relax(light bool) int {
	workers := max(1, min(e.s.cfg.Threads, len(e.front)/expandChunk))
	var next atomic.Int64
	r, blk := e.cols, e.blk
	parallel.For(workers, func(t int) {
		local := e.local[t][:0]
		defer func() { e.local[t] = local }()
		for {
			lo := int(next.Add(expandChunk)) - expandChunk
			if lo >= len(e.front) {
				return
			}
			for _, f := range e.front[lo:min(lo+expandChunk, len(e.front))] {
				lc, d := uint32(f>>32), math.Float32frombits(uint32(f))
				k := blk.ColIndex(lc)
				if k < 0 {
					continue
				}
				a, b := r.off[k], r.off[k+1]
				if mid := a + int64(r.light[k]); light {
					b = mid
				} else {
					a = mid
				}
				// Every row of the block is one of R_i: all are "local" to
				// the bounds.
				local = scanRow(r.cols[a:b], r.w[a:b], d, lc, 0, e.bound, local)
				e.s.scanned[t] += b - a
			}
		}
	})
	for t := range workers {
		e.s.stats.Scanned += e.s.scanned[t]
		e.s.scanned[t] = 0
	}
	return workers
}

// combine keeps, per row, the phase's best request (the smallest distance,
// then the largest parent, as offer does), lowers the row's bound, and
// writes one request per row into e.out per row peer.
func (e *SSSP2D) combine(workers int) {
	e.stamps++
	stamp, block := e.stamps, uint32(e.grid.Part.Block)
	parallel.For(len(e.local), func(o int) {
		touched := e.touched[o][:0]
		for t := range workers {
			for _, q := range e.local[t] {
				switch r := q.target; {
				case r>>e.rowShift != uint32(o):
				case e.stamp[r] != stamp:
					e.stamp[r], e.best[r], e.bestFrom[r] = stamp, q.dist, q.parent
					touched = append(touched, r)
				case q.dist < e.best[r] || q.dist == e.best[r] && q.parent > e.bestFrom[r]:
					e.best[r], e.bestFrom[r] = q.dist, q.parent
				}
			}
		}
		out := e.out[o]
		for k := range out {
			out[k] = out[k][:0]
		}
		for _, r := range touched {
			e.bound[r] = min(e.bound[r], e.best[r])
			k := r / block
			b := binary.LittleEndian.AppendUint32(out[k], r-k*block)
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(e.best[r]))
			out[k] = binary.LittleEndian.AppendUint32(b, e.bestFrom[r])
		}
		e.touched[o] = touched
	})
}

// fold sends every row peer the combined requests for its vertices and
// decodes those received.
func (e *SSSP2D) fold(ctx context.Context) error {
	s := e.s
	for k := range e.sendRow {
		m := e.sendRow[k][:0]
		for o := range e.out {
			m = append(m, e.out[o][k]...)
		}
		e.sendRow[k] = m
		s.stats.Requests += int64(len(m) / RequestSize)
	}
	send := e.sendRow
	if s.cfg.Compact {
		for k := range e.sendRow {
			e.compacted[k], e.keys = compactRequests(e.compacted[k], e.sendRow[k], e.keys)
		}
		send = e.compacted
	}
	if err := timedRowExchange(ctx, e.row, send, &e.recvRow, &s.stats.Communicate); err != nil {
		return fmt.Errorf("sssp: %w", err)
	}
	parallel.For(min(s.cfg.Threads, len(e.recvRow)), func(t int) {
		for k := t; k < len(e.recvRow); k += s.cfg.Threads {
			e.recvReqs[k], e.errs[k] = e.decode(e.recvReqs[k][:0], k, e.recvRow[k])
		}
	})
	for k, err := range e.errs {
		if err != nil {
			return fmt.Errorf("sssp: requests from rank %d: %w", e.grid.Rank(e.blk.Row, k), err)
		}
	}
	return nil
}

// timedRowExchange is one Alltoallv of the requests along the row, its
// time added to took.
func timedRowExchange(ctx context.Context, row *comm.Sub, send [][]byte, recv *[][]byte, took *time.Duration) error {
	t0 := time.Now()
	got, err := row.Alltoallv(ctx, PhaseRelax, send, *recv)
	if err != nil {
		return err
	}
	*recv, *took = got, *took+time.Since(t0)
	return nil
}

// decode checks and decodes the requests row peer k sent (fixed or
// compact, as Config.Compact says): targets are offsets in this rank's
// piece, parents local columns of processor column k.
func (e *SSSP2D) decode(dst []request, k int, msg []byte) ([]request, error) {
	n, span := uint64(e.blk.NumOwned), uint64(e.grid.ColSpan())
	inf := math.Float32bits(float32(math.Inf(1)))
	check := func(t, bits, p uint64) error {
		if t >= n || bits >= uint64(inf) || p >= span || e.grid.ColGlobal(k, uint32(p)) >= e.grid.Part.N {
			return fmt.Errorf("request (%d, %#x, %d) out of range [0, %d) × [0, ∞) × column vertices", t, bits, p, n)
		}
		return nil
	}
	if !e.s.cfg.Compact {
		if len(msg)%RequestSize != 0 {
			return nil, fmt.Errorf("%d bytes, not a multiple of %d", len(msg), RequestSize)
		}
		for i := 0; i < len(msg); i += RequestSize {
			t, bits, p := binary.LittleEndian.Uint32(msg[i:]), binary.LittleEndian.Uint32(msg[i+4:]), binary.LittleEndian.Uint32(msg[i+8:])
			if err := check(uint64(t), uint64(bits), uint64(p)); err != nil {
				return nil, err
			}
			dst = append(dst, request{t, math.Float32frombits(bits), p})
		}
		return dst, nil
	}
	var t uint64
	for i, j := 0, 0; i < len(msg); j++ {
		delta, m := binary.Uvarint(msg[i:])
		if m <= 0 || i+m+4 > len(msg) {
			return nil, fmt.Errorf("corrupt request at byte %d", i)
		}
		bits := binary.LittleEndian.Uint32(msg[i+m:])
		p, m2 := binary.Uvarint(msg[i+m+4:])
		if m2 <= 0 || (j > 0 && delta == 0) || t+delta < t {
			return nil, fmt.Errorf("corrupt request at byte %d", i)
		}
		i, t = i+m+4+m2, t+delta
		if err := check(t, uint64(bits), p); err != nil {
			return nil, err
		}
		dst = append(dst, request{uint32(t), math.Float32frombits(bits), uint32(p)})
	}
	return dst, nil
}

// applyOwned applies, as owner thread o, the decoded requests to its
// vertices.
func (e *SSSP2D) applyOwned(o int) {
	s := e.s
	b := &s.bins[o]
	lo := uint32(o) << s.ownerShift
	hi := uint32(min(int64(len(s.dist)), int64(o+1)<<s.ownerShift))
	for k, reqs := range e.recvReqs {
		for _, q := range reqs {
			if q.target >= lo && q.target < hi {
				s.offer(b, q.target, q.dist, e.grid.ColGlobal(k, q.parent))
			}
		}
	}
}
