// Step 2 of the 2D engine's level (see bfs2d.go): the fold of every block's
// candidates along its processor row to the vertices' owners, who keep the
// largest parent per vertex (Lv et al. §III's (select, max) semiring, on the
// 2D partition of its §VIII–IX).

package bfs

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"time"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/spmv"
)

// fold sends every row peer the candidates for its vertices and applies the
// ones received for this rank's vertices. It returns how many vertices this
// rank discovered and their degrees.
func (b *BFS2D) fold(ctx context.Context, lvl int32, dir spmv.Direction) (found, degree int64, err error) {
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
	if err := spmv.TimedAlltoallv(ctx, b.row, PhaseFold, b.sendRow, &b.recvRow, &b.lv.Step.Communicate); err != nil {
		return 0, 0, err
	}
	recv := b.recvRow
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
	b.lv.Step.Traverse += time.Since(t3)
	b.lv.Step.Compress += t1.Sub(t0) + t3.Sub(t2)
	return found, degree, nil
}

// codecsFor returns the codecs of an exchange that serves a level of
// direction dir: the configured codec for bottom-up levels, the list codec
// for top-down ones. Like the 1D engine, whose top-down levels send vertex
// records whatever Config.Codec says, the codec is that of bottom-up levels:
// top-down levels move few vertices, and a raw bitmap of a whole piece per
// message would cost more than the 1D records.
func (b *BFS2D) codecsFor(dir spmv.Direction) []frontier.Codec {
	if dir == spmv.DirectionTopDown {
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
		if o := b.cfg.Order; o == nil {
			b.parent[x] = max(b.parent[x], p)
		} else if o.Original(p) > o.Original(b.parent[x]) {
			b.parent[x] = p
		}
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
