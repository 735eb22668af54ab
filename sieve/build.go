package sieve

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"sort"
	"sync/atomic"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/partition"
)

// PhaseBuild is the comm phase of BuildExchanged's directory exchange.
//
// Wire format: the message from rank i to rank j is V(i,j) as a plain bitmap
// of part.Words(j) words, 8 little-endian bytes per word
// (frontier.Bitmap.AppendBytes), with no header and no bit set beyond
// part.Count(j). A rank sends nothing to itself.
const PhaseBuild = "sieve.build"

// spanAlign is the granularity, in vertices, of the threads' ranges of rows:
// 512 vertices are 8 words, one cache line of every directory vector, so
// threads never write to the same line.
const spanAlign = 512

// linearProbe is how many row entries the owner scan compares one by one
// before it binary-searches for the end of an owner's run of neighbours.
const linearProbe = 16

// Build computes rank's column of the cross directory, {V(i, rank) : i}, from
// the rank's own rows g of an undirected graph partitioned by part, with no
// communication: bit u of V(i, rank) is set iff u's row holds a neighbour
// owned by i, which for a symmetric adjacency matrix is Lv et al.'s
// definition (column u of A_{i,rank} is non-zero; see the package doc). This
// is the construction graphrun uses.
//
// g must be the CSR graph.BuildUndirected returns for rank and part (rows in
// descending neighbour order, ids in [0, part.N)); Build checks the shapes,
// the row bounds and that every neighbour id it inspects is in range, and
// reports a malformed CSR as an error rather than panicking. threads
// goroutines share the rows (threads < 1 means GOMAXPROCS), split by work
// (rows plus stored entries) on 512-vertex boundaries; each thread writes
// only its own words of every vector, and allocates p accumulator words and
// p counters, nothing per edge. Build allocates the p vectors (n bits) before
// it drops the empty and full ones.
func Build(g *graph.CSR, part partition.Block1D, rank int, threads int) (*Directory, error) {
	return build(g, part, rank, threads, spanAlign)
}

// build is Build with the thread-range granularity as a parameter (a multiple
// of 64), so tests can split small graphs among threads.
func build(g *graph.CSR, part partition.Block1D, rank int, threads, align int) (*Directory, error) {
	if err := checkCSR(g, part, rank); err != nil {
		return nil, err
	}
	threads = threadCount(threads)
	words := part.Words(rank)
	cols := make([]frontier.Bitmap, part.P)
	for i := range cols {
		cols[i] = make(frontier.Bitmap, words)
	}
	spans := rowSpans(g.Offsets, g.NumLocal, threads, align)
	nt := len(spans) - 1
	ones := make([][]int64, nt)
	errs := make([]error, nt)
	parallel.For(nt, func(t int) {
		cnt := make([]int64, part.P)
		acc := make([]uint64, part.P)
		if g.Packed != nil {
			errs[t] = markOwnersPacked(g, part, spans[t], spans[t+1], cols, acc, cnt)
		} else if g.Cols64 != nil {
			errs[t] = markOwners(g.Cols64, g.Offsets, part, spans[t], spans[t+1], cols, acc, cnt)
		} else {
			errs[t] = markOwners(g.Cols32, g.Offsets, part, spans[t], spans[t+1], cols, acc, cnt)
		}
		ones[t] = cnt
	})
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("sieve: rank %d: %w", rank, err)
		}
	}
	total := ones[0]
	for _, cnt := range ones[1:] {
		for i, c := range cnt {
			total[i] += c
		}
	}
	return newDirectory(part, rank, cols, total), nil
}

// markOwners sets, for every owned vertex v in [vlo, vhi) (a range of whole
// words, except that vhi may be NumLocal) and every owner i of one of v's
// neighbours, bit v of dir[i], and counts the bits in ones. acc holds one
// word per owner for the 64 vertices in hand, so each word of dir is stored
// once, and only if non-zero.
//
// Rows are sorted in descending order, so the neighbours owned by one rank
// are a contiguous run: after the first neighbour of a run, the scan skips to
// the first entry below that owner's first vertex.
func markOwners[C uint32 | int64](cols []C, offsets []int64, part partition.Block1D, vlo, vhi int,
	dir []frontier.Bitmap, acc []uint64, ones []int64) error {
	for w := vlo >> 6; w<<6 < vhi; w++ {
		for v := w << 6; v < min(w<<6+64, vhi); v++ {
			lo, hi := offsets[v], offsets[v+1]
			if lo < 0 || lo > hi || hi > int64(len(cols)) {
				return fmt.Errorf("local vertex %d: row [%d, %d) outside the %d stored entries", v, lo, hi, len(cols))
			}
			if err := markRow(cols[lo:hi], v, part, acc); err != nil {
				return err
			}
		}
		flushWord(w, dir, acc, ones)
	}
	return nil
}

// markOwnersPacked is markOwners over g's packed rows, decoded one at a
// time.
func markOwnersPacked(g *graph.CSR, part partition.Block1D, vlo, vhi int, dir []frontier.Bitmap, acc []uint64, ones []int64) error {
	var row []int64
	for w := vlo >> 6; w<<6 < vhi; w++ {
		for v := w << 6; v < min(w<<6+64, vhi); v++ {
			var err error
			if row, err = packedRow(g, v, row); err != nil {
				return err
			}
			if err := markRow(row, v, part, acc); err != nil {
				return err
			}
		}
		flushWord(w, dir, acc, ones)
	}
	return nil
}

// packedRow decodes the packed row of local vertex v into buf
// (graph.AppendRow: kernel 1's rows are trusted; their neighbours are
// still checked where they are used).
func packedRow(g *graph.CSR, v int, buf []int64) ([]int64, error) {
	lo, hi := g.Offsets[v], g.Offsets[v+1]
	if lo < 0 || lo > hi || hi > int64(len(g.Packed))-graph.PackedPad {
		return buf, fmt.Errorf("local vertex %d: row [%d, %d) outside the %d packed bytes", v, lo, hi, len(g.Packed))
	}
	return graph.AppendRow(g, uint32(v), buf), nil
}

// markRow sets, in acc, the bit of local vertex v for the owner of each of
// its neighbours (row, descending): after the first neighbour of an
// owner's run, the scan skips to the first entry below that owner's first
// vertex.
func markRow[C uint32 | int64](row []C, v int, part partition.Block1D, acc []uint64) error {
	n, block := part.N, part.Block
	bit := uint64(1) << (uint(v) & 63)
	for k := 0; k < len(row); {
		u := int64(row[k])
		if uint64(u) >= uint64(n) {
			return fmt.Errorf("local vertex %d: neighbour %d outside [0, %d)", v, u, n)
		}
		i := u / block
		acc[i] |= bit
		if i == 0 {
			break
		}
		k = SkipAbove(row, k+1, i*block)
	}
	return nil
}

// flushWord stores word w of every owner's directory column from acc, and
// counts its bits, then clears acc.
func flushWord(w int, dir []frontier.Bitmap, acc []uint64, ones []int64) {
	for i, a := range acc {
		if a != 0 {
			dir[i][w] = a
			ones[i] += int64(bits.OnesCount64(a))
			acc[i] = 0
		}
	}
}

// SkipAbove returns the first index k' ≥ k of the descending row whose entry
// is below bound (len(row) if none): a short linear probe, then a binary
// search, so a long row costs O(log d) per owner rather than O(d). The
// validator (spmv) finds the regions of a row owned by other ranks with it.
func SkipAbove[C uint32 | int64](row []C, k int, bound int64) int {
	for end := min(len(row), k+linearProbe); k < end; k++ {
		if int64(row[k]) < bound {
			return k
		}
	}
	lo, hi := k, len(row)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int64(row[mid]) >= bound {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// BuildExchanged computes the same directory column as Build by Lv et al.'s
// construction (§V-A): this rank marks every neighbour of its vertices in
// an n-bit map, whose slice over rank j's vertices is V(rank, j),
// and sends that slice to j; it receives V(i, rank) from every rank i in the
// same Alltoallv (phase PhaseBuild). Every rank of c must call it with the
// same part; part.P must equal c.Size().
//
// It does not rely on the graph being stored symmetrically, which Build does,
// but it exchanges (p−1)/p·n bits per rank and needs about 3n bits of
// scratch; for graphrun's undirected graphs both return identical
// directories. threads goroutines share the rows (threads < 1 means
// GOMAXPROCS); they mark the shared map with atomic OR, skipped when the
// bit is already set. A malformed CSR or an invalid message is an error,
// reported before the exchange when it is local, so that the job aborts
// instead of hanging.
func BuildExchanged(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D, threads int) (*Directory, error) {
	rank := c.Rank()
	if part.P != c.Size() {
		return nil, fmt.Errorf("sieve: partition of %d ranks used on a job of %d", part.P, c.Size())
	}
	if err := checkCSR(g, part, rank); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sieve: build: %w", err)
	}
	marked, err := neighbourMap(g, part, rank, threads)
	if err != nil {
		return nil, err
	}
	words := part.Words(rank)
	cols := make([]frontier.Bitmap, part.P)
	send := make([][]byte, part.P)
	for j := range part.P {
		w0 := int(part.First(j) >> 6)
		v := marked[w0 : w0+part.Words(j)]
		if j == rank {
			cols[j] = append(make(frontier.Bitmap, 0, words), v...)
			continue
		}
		send[j] = v.AppendBytes(make([]byte, 0, 8*len(v)))
	}
	recv, err := c.Alltoallv(ctx, PhaseBuild, send, nil)
	clear(send)
	if err != nil {
		return nil, fmt.Errorf("sieve: %s exchange: %w", PhaseBuild, err)
	}
	ones := make([]int64, part.P)
	for i := range part.P {
		if i != rank {
			col, err := loadColumn(recv[i], words, part.Count(rank))
			if err != nil {
				return nil, fmt.Errorf("sieve: %s message from rank %d: %w", PhaseBuild, i, err)
			}
			cols[i] = col
			recv[i] = nil
		}
		ones[i] = cols[i].Count()
	}
	return newDirectory(part, rank, cols, ones), nil
}

// markNeighbours sets bit u of marked for every neighbour u of the owned
// vertices in [vlo, vhi). Threads share marked, so bits are set with atomic
// OR; the preceding atomic load (a plain load on common hardware) skips the
// read-modify-write for bits already set, which is most of them in a
// power-law graph.
func markNeighbours[C uint32 | int64](cols []C, offsets []int64, n int64, vlo, vhi int, marked frontier.Bitmap) error {
	for v := vlo; v < vhi; v++ {
		lo, hi := offsets[v], offsets[v+1]
		if lo < 0 || lo > hi || hi > int64(len(cols)) {
			return fmt.Errorf("local vertex %d: row [%d, %d) outside the %d stored entries", v, lo, hi, len(cols))
		}
		for _, c := range cols[lo:hi] {
			u := int64(c)
			if uint64(u) >= uint64(n) {
				return fmt.Errorf("local vertex %d: neighbour %d outside [0, %d)", v, u, n)
			}
			p, bit := &marked[u>>6], uint64(1)<<(uint64(u)&63)
			if atomic.LoadUint64(p)&bit == 0 {
				atomic.OrUint64(p, bit)
			}
		}
	}
	return nil
}

// threadCount is threads, or GOMAXPROCS when threads < 1.
func threadCount(threads int) int {
	if threads < 1 {
		return runtime.GOMAXPROCS(0)
	}
	return threads
}

// loadColumn decodes a received directory vector of words words covering
// count vertices.
func loadColumn(msg []byte, words, count int) (frontier.Bitmap, error) {
	col := make(frontier.Bitmap, words)
	if err := col.LoadBytes(msg); err != nil {
		return nil, fmt.Errorf("directory vector: %w", err)
	}
	if words > 0 && col[words-1]&^tailMask(count) != 0 {
		return nil, fmt.Errorf("directory vector has bits set beyond the %d vertices it covers", count)
	}
	return col, nil
}

// rowSpans cuts the owned vertices [0, nLocal) into at most threads ranges of
// near-equal work (rows plus stored entries), with inner boundaries on
// multiples of align vertices. It returns the boundaries: spans[0] = 0,
// spans[len-1] = nLocal, strictly increasing (a single empty range when
// nLocal is 0). offsets has passed checkCSR's shape checks.
func rowSpans(offsets []int64, nLocal, threads, align int) []int {
	parts := max(1, min(threads, (nLocal+align-1)/align))
	spans := make([]int, 1, parts+1)
	total := offsets[nLocal] + int64(nLocal)
	for t := 1; t < parts; t++ {
		target := total * int64(t) / int64(parts)
		v := sort.Search(nLocal, func(v int) bool { return offsets[v]+int64(v) >= target })
		v -= v % align
		if v > spans[len(spans)-1] && v < nLocal {
			spans = append(spans, v)
		}
	}
	return append(spans, nLocal)
}

// checkCSR rejects a partition, rank or CSR that Build cannot use: the
// partition must be a valid block partition (blocks of a multiple of 64
// vertices covering all N), and g must be rank's share of it with one
// column array holding at least the entries its offsets promise. The rows
// themselves are checked while they are scanned.
func checkCSR(g *graph.CSR, part partition.Block1D, rank int) error {
	switch {
	case part.N < 1 || part.P < 1 || part.Block < 64 || part.Block%64 != 0 || int64(part.P)*part.Block < part.N:
		return fmt.Errorf("sieve: invalid partition of %d vertices over %d ranks in blocks of %d", part.N, part.P, part.Block)
	case rank < 0 || rank >= part.P:
		return fmt.Errorf("sieve: rank %d outside [0, %d)", rank, part.P)
	case g == nil:
		return fmt.Errorf("sieve: rank %d: nil CSR", rank)
	case g.NumGlobal != part.N || g.FirstGlobal != part.First(rank) || g.NumLocal != part.Count(rank):
		return fmt.Errorf("sieve: CSR of rank %d (first %d, %d vertices of %d) does not match the partition (first %d, %d vertices of %d)",
			rank, g.FirstGlobal, g.NumLocal, g.NumGlobal, part.First(rank), part.Count(rank), part.N)
	case len(g.Offsets) != g.NumLocal+1:
		return fmt.Errorf("sieve: CSR of rank %d has %d offsets for %d vertices", rank, len(g.Offsets), g.NumLocal)
	case (g.Cols32 != nil && g.Cols64 != nil) || (g.Packed != nil && (g.Cols32 != nil || g.Cols64 != nil)):
		return fmt.Errorf("sieve: CSR of rank %d sets more than one of Cols32, Cols64 and Packed", rank)
	}
	stored := int64(len(g.Cols32) + len(g.Cols64) + len(g.Packed))
	if end := g.Offsets[g.NumLocal]; end < 0 || end > stored {
		return fmt.Errorf("sieve: CSR of rank %d: offsets end at %d, %d entries stored", rank, end, stored)
	}
	return nil
}
