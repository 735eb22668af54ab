// Steps 3 to 5 of the 2D engine's level (see bfs2d.go): the row update and
// the expand, which carry the level's counts, with Lv et al.'s codecs (§IV)
// and sieve (§V), and the packed sieve's gather and scatter
// (sieve.PackBits, sieve.UnpackBits) per peer.

package bfs

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/internal/parallel"
	"github.com/graphrun/graphrun/sieve"
	"github.com/graphrun/graphrun/spmv"
)

// countsSize is the bytes of the counts every row update and expand
// message starts with: the vertices found and the sum of their degrees, as
// little-endian int64s — in the row update the sender's own, in the expand
// its processor row's sums — so that the level's counts need no
// collective of their own (step 3 of a level, see bfs2d.go).
const countsSize = 16

// settle is step 3 to 5 of a level: publish, which makes counts (this
// rank's found vertices and their degrees) global on the way, then the
// next step's direction.
func (b *BFS2D) settle(ctx context.Context, dir spmv.Direction, counts []int64, decide func([]int64) spmv.Direction) (spmv.Direction, error) {
	if err := b.publish(ctx, dir, counts); err != nil {
		return dir, err
	}
	return decide(counts), nil
}

// publish tells the row peers which of this rank's vertices were discovered
// (so they stop scanning them) and gives the column peers the new frontier
// (steps 4 and 5 of a level), with the codecs of a step of direction dir;
// the row update carries counts, the expand the row's sums, and counts
// gets the sums over all ranks.
func (b *BFS2D) publish(ctx context.Context, dir spmv.Direction, counts []int64) error {
	b.use = b.codecsFor(dir)
	clear(b.choices)

	// Encode, after room for the counts.
	t0 := time.Now()
	empty := !anySet(b.next)
	if !b.sieve {
		if err := b.encodeShared(empty); err != nil {
			return err
		}
	} else if err := b.encodeSieved(empty); err != nil {
		return err
	}
	t1 := time.Now()

	// Exchange along the row with this rank's counts, then along the column
	// with the row's sums.
	grid := b.grid
	sums, err := b.countsAlong(ctx, b.row, PhaseVisited, b.sendRow, &b.recvSync, b.gj, [2]int64{counts[0], counts[1]},
		func(d int) int { return grid.Rank(b.gi, d) })
	if err != nil {
		return err
	}
	if sums, err = b.countsAlong(ctx, b.col, PhaseExpand, b.sendCol, &b.recvCol, b.gi, sums,
		func(a int) int { return grid.Rank(a, b.gj) }); err != nil {
		return err
	}
	counts[0], counts[1] = sums[0], sums[1]
	if b.sieve && !empty {
		b.lv.Step.Codec = mostCommon(b.choices[:grid.R], b.gi)
	}
	t2 := time.Now()

	if err := b.apply(b.recvSync, b.recvCol); err != nil {
		return err
	}
	t3 := time.Now()
	b.lv.Step.Compress += t1.Sub(t0) + t3.Sub(t2)
	b.lv.Step.Communicate += t2.Sub(t1)
	return nil
}

// encodeShared is the allgather mode's encoding: the new frontier piece,
// encoded once after room for the counts, goes to every row and column
// peer (nothing after the counts when empty).
func (b *BFS2D) encodeShared(empty bool) error {
	var zero [countsSize]byte
	b.shared = append(b.shared[:0], zero[:]...)
	if empty {
		return nil
	}
	enc, err := b.use[0].Encode(b.shared, b.next)
	if err != nil {
		return fmt.Errorf("encoding the frontier: %w", err)
	}
	b.shared = enc
	peers := int64(b.grid.R + b.grid.C - 2)
	b.lv.Step.RawBytes += int64(len(b.next)) * 8 * peers
	b.lv.Step.EncodedBytes += int64(len(enc)-countsSize) * peers
	b.lv.Step.Codec = choiceOf(b.use[0])
	return nil
}

// encodeSieved is the sieve's and the packed sieve's encoding: per row peer
// the new vertices it did not find itself and whose row it stores, per
// column peer those whose column it stores (packed: only the positions
// still open), each encoded after room for the counts, by the threads.
func (b *BFS2D) encodeSieved(empty bool) error {
	grid := b.grid
	threads := len(b.codecs)
	rawPiece := int64(len(b.next)) * 8
	var zero [countsSize]byte
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
			*dst = append((*dst)[:0], zero[:]...)
			if empty {
				continue
			}
			var bm frontier.Bitmap
			if b.packed {
				*sc, b.open[t] = packOpen(*sc, b.open[t], b.next, b.ownVisited, dir, extra)
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
			b.encT[t] += int64(len(enc) - countsSize)
			if d >= grid.C {
				b.choices[d-grid.C] = choiceOf(b.use[t])
			}
		}
	})
	return b.threadsDone()
}

// apply takes in what the row peers (recvRow) and the column peers
// (recvCol) sent, after their counts: the own piece first (its rows are
// done, it is this rank's part of the frontier on C_j), then, by the
// threads, the peers' new vertices and frontier pieces.
func (b *BFS2D) apply(recvRow, recvCol [][]byte) error {
	grid := b.grid
	threads := len(b.codecs)
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
				if d == b.gj || len(recvRow[d]) == countsSize {
					continue
				}
				if err := b.applyRow(d, recvRow[d][countsSize:], t); err != nil {
					b.errs[t] = fmt.Errorf("new vertices from rank %d: %w", grid.Rank(b.gi, d), err)
					return
				}
				continue
			}
			a := d - grid.C
			if a == b.gi || len(recvCol[a]) == countsSize {
				continue
			}
			if err := b.applyCol(a, recvCol[a][countsSize:], t); err != nil {
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
	return nil
}

// putCounts writes c at the start of msg (countsSize bytes).
func putCounts(msg []byte, c [2]int64) {
	binary.LittleEndian.PutUint64(msg, uint64(c[0]))
	binary.LittleEndian.PutUint64(msg[8:], uint64(c[1]))
}

// addCounts adds to sums the counts every message of recv but recv[self]
// starts with (rank(k) names the sender of recv[k] in errors): a message
// shorter than the counts, or a negative count, is an error.
func addCounts(sums [2]int64, recv [][]byte, self int, rank func(k int) int) ([2]int64, error) {
	for k, msg := range recv {
		if k == self {
			continue
		}
		if len(msg) < countsSize {
			return sums, fmt.Errorf("message of %d bytes from rank %d, shorter than the level's counts", len(msg), rank(k))
		}
		found, degree := int64(binary.LittleEndian.Uint64(msg)), int64(binary.LittleEndian.Uint64(msg[8:]))
		if found < 0 || degree < 0 {
			return sums, fmt.Errorf("negative level counts (%d, %d) from rank %d", found, degree, rank(k))
		}
		sums[0] += found
		sums[1] += degree
	}
	return sums, nil
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
// closed may be dst itself (the open positions are taken before dst is
// written).
func (b *BFS2D) unpackInto(dst frontier.Bitmap, msg []byte, mask, closed frontier.Bitmap, t int) error {
	open := resizeBitmap(b.open[t], len(mask))
	b.open[t] = open
	n := 0
	for w, m := range mask {
		open[w] = m &^ closed[w]
		n += bits.OnesCount64(open[w])
	}
	packed := resizeBitmap(b.scratch[t], frontier.WordsFor(int64(n)))
	b.scratch[t] = packed
	if err := b.use[t].Decode(packed, msg); err != nil {
		return err
	}
	if n%64 != 0 && packed[len(packed)-1]>>(uint(n)&63) != 0 {
		return fmt.Errorf("packed frontier sets bits beyond its %d open positions", n)
	}
	sieve.UnpackBits(dst, packed, open)
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
// peer knows already (known, may be nil) — into dst, in order, with
// sieve.PackBits. open is scratch for the open positions. It returns dst
// and open, resized.
func packOpen(dst, open, next, visited, dir, known frontier.Bitmap) (frontier.Bitmap, frontier.Bitmap) {
	open = resizeBitmap(open, len(next))
	n := 0
	for w := range next {
		m := dir[w] &^ (visited[w] &^ next[w])
		if known != nil {
			m &^= known[w]
		}
		open[w] = m
		n += bits.OnesCount64(m)
	}
	dst = resizeBitmap(dst, frontier.WordsFor(int64(n)))
	clear(dst)
	sieve.PackBits(dst, next, open)
	return dst, open
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
		b.lv.Step.RawBytes += b.rawT[t]
		b.lv.Step.EncodedBytes += b.encT[t]
		b.rawT[t], b.encT[t] = 0, 0
	}
	return firstError(b.errs)
}

// countsAlong is one exchange of a level's pieces along a grid line (sub:
// the row or the column), carrying sums in each message's counts: with the
// sieve every peer's piece of send (self, this rank's place on the line,
// sends none), else the one shared message to all. It keeps the received
// buffers in *recv and returns sums plus every peer's counts (rankOf names
// a peer's rank in errors).
func (b *BFS2D) countsAlong(ctx context.Context, sub comm.Comm, phase string, send [][]byte, recv *[][]byte, self int,
	sums [2]int64, rankOf func(int) int) ([2]int64, error) {
	var got [][]byte
	var err error
	if b.sieve {
		for d := range send {
			if d != self {
				putCounts(send[d], sums)
			}
		}
		got, err = sub.Alltoallv(ctx, phase, send, *recv)
	} else {
		putCounts(b.shared, sums)
		got, err = sub.Allgatherv(ctx, phase, b.shared, *recv)
	}
	if err != nil {
		return sums, err
	}
	*recv = got
	return addCounts(sums, got, self, rankOf)
}
