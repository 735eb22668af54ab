package bfs

// The validator's one exchange per search (Graph500 specification, BFS
// validation: checks 2 and 3 compare the levels of both ends of every tree
// edge and input edge; Lv et al. §V-A's cross directory says which ends live
// on which rank): every rank sends each peer the levels of its own vertices
// with a neighbour on that peer — the positions of the cross directory vector
// V(peer, rank) — and receives, from each peer, the levels of the peer's
// vertices its own rows or blocks reference, its ghosts. Bytes per rank grow
// with that boundary, not with n.
//
// Wire format (PhaseValidateGhosts): the message from rank j to rank i in one
// round is a run of consecutive values of V(i, j) in increasing vertex order,
// each the vertex's level + 1 (0 = unreached) as a little-endian unsigned
// integer of w bytes, with no header. w is the same on every rank in one
// search: 1 when every level is below 255, 2 below 65535, else 4 (the search's
// deepest level, from one allreduce). Both ends know |V(i, j)| (the sender
// from its directory column, the receiver from its directory row), so a
// message's length is fixed: anything else is an error, as is a value above
// the deepest level + 1. An exchange that would be large is cut into rounds
// (at most maxGhostRounds, each at least ghostRoundBytes per rank when there
// is that much), so no send or receive buffer holds the whole boundary.

import (
	"context"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/internal/bufs"
	"github.com/graphrun/graphrun/internal/parallel"
)

// PhaseValidateGhosts is the comm phase of the validator's level exchange.
const PhaseValidateGhosts = "validate.ghosts"

const (
	// maxGhostRounds bounds the rounds of one ghost exchange.
	maxGhostRounds = 8
	// ghostRoundBytes is what a rank may send in one round over all its
	// peers before the exchange is cut into more rounds.
	ghostRoundBytes = 16 << 20
)

// ghostValue is the type of a stored ghost level + 1: its size is the wire
// width w.
type ghostValue interface{ uint8 | uint16 | uint32 }

// levelValue encodes a claimed level for the wire and the ghost arrays:
// level + 1, or 0 (unreached) for a level outside [−1, maxLevel], which the
// owner reports itself.
func levelValue(l, maxLevel int32) uint32 {
	if l < -1 || l > maxLevel {
		return 0
	}
	return uint32(l) + 1
}

// valueWidth is the wire width of a search whose deepest level is maxLevel.
func valueWidth(maxLevel int32) int {
	switch v := levelValue(maxLevel, maxLevel); {
	case v <= 0xff:
		return 1
	case v <= 0xffff:
		return 2
	}
	return 4
}

// ghostStore holds the ghost values of one search in the array of the
// search's width; the arrays are allocated on first use and kept.
type ghostStore struct {
	n   int64
	g8  []uint8
	g16 []uint16
	g32 []uint32
}

func ghostsOf[G ghostValue](s *ghostStore) []G {
	var z G
	switch any(z).(type) {
	case uint8:
		if s.g8 == nil {
			s.g8 = make([]uint8, s.n)
		}
		return any(s.g8).([]G)
	case uint16:
		if s.g16 == nil {
			s.g16 = make([]uint16, s.n)
		}
		return any(s.g16).([]G)
	}
	if s.g32 == nil {
		s.g32 = make([]uint32, s.n)
	}
	return any(s.g32).([]G)
}

func (s *ghostStore) bytes() int64 {
	return int64(len(s.g8)) + 2*int64(len(s.g16)) + 4*int64(len(s.g32))
}

// ghostPlan is who sends which levels to whom over one communicator (the
// whole job in 1D, a processor row or column in 2D).
type ghostPlan struct {
	c  comm.Comm
	me int
	// out[k] marks the own vertices whose levels peer k needs (nil: none);
	// bit x is the rank's x-th own vertex. outOnes[k] is its popcount.
	out     []frontier.Bitmap
	outOnes []int64
	// From peer k come inCount[k] values, stored at inFirst[k] onwards:
	// one after the other, or, when inPos[k] is not nil, at inFirst[k] + x
	// for the successive set bits x of inPos[k] (a dense store of the
	// peer's inLen[k] vertices).
	inFirst, inCount []int64
	inPos            []frontier.Bitmap
	inLen            []int64
	// maxPair is the largest count of any pair in the whole job (every rank
	// of the parent job agrees on it), which fixes the rounds; chunk, when
	// not 0, fixes the values per pair and round instead (tests).
	maxPair, chunk int64

	send, recv [][]byte
	cursors    []ghostCursor // per peer: the sender's position in out[k]
	inCursors  []ghostCursor // per peer: the receiver's position in inPos[k]
	errs       []error
}

// ghostCursor is where a peer's values stopped in the previous round.
type ghostCursor struct {
	word int
	left uint64 // bits of out[k][word] not yet sent
}

// rounds returns the number of rounds of an exchange of width w and the
// values per pair and round.
func (gp *ghostPlan) rounds(w int) (rounds int, chunk int64) {
	if gp.maxPair == 0 {
		return 0, 0
	}
	peers := int64(max(1, gp.c.Size()-1))
	chunk = gp.chunk
	if chunk <= 0 {
		chunk = max((gp.maxPair+maxGhostRounds-1)/maxGhostRounds, ghostRoundBytes/(peers*int64(w)), 1)
	}
	return int((gp.maxPair + chunk - 1) / chunk), chunk
}

// exchangeGhosts sends every peer the levels it needs of own (claimed
// levels, encoded by levelValue) and stores what the peers send at their
// places in ghosts. Every rank of gp.c (of the parent job, for a Sub) must
// call it with the same width G and maxLevel. threads goroutines encode and
// decode, one peer at a time each.
func exchangeGhosts[G ghostValue](ctx context.Context, gp *ghostPlan, phase string, own []int32, maxLevel int32, ghosts []G, threads int) error {
	var z G
	w := int(unsafe.Sizeof(z))
	rounds, chunk := gp.rounds(w)
	size := gp.c.Size()
	for k := range gp.cursors {
		gp.cursors[k] = ghostCursor{}
		if out := gp.out[k]; len(out) > 0 {
			gp.cursors[k].left = out[0]
		}
		if gp.inPos != nil {
			gp.inCursors[k] = ghostCursor{}
			if pos := gp.inPos[k]; len(pos) > 0 {
				gp.inCursors[k].left = pos[0]
			}
		}
	}
	maxVal := levelValue(maxLevel, maxLevel)
	threads = max(1, min(threads, size))
	for r := range rounds {
		base := int64(r) * chunk
		parallel.For(threads, func(t int) {
			for k := t; k < size; k += threads {
				n := min(chunk, max(0, gp.outOnes[k]-base))
				if k == gp.me || n == 0 {
					gp.send[k] = gp.send[k][:0]
					continue
				}
				gp.send[k] = bufs.Resize(gp.send[k], int(n)*w)
				appendGhostValues(gp.send[k], gp.out[k], &gp.cursors[k], own, maxLevel, w)
			}
		})
		recv, err := gp.c.Alltoallv(ctx, phase, gp.send, gp.recv)
		if err != nil {
			return fmt.Errorf("validate: ghost levels: %w", err)
		}
		gp.recv = recv
		parallel.For(threads, func(t int) {
			gp.errs[t] = nil
			for k := t; k < size; k += threads {
				n := min(chunk, max(0, gp.inCount[k]-base))
				if k == gp.me {
					n = 0
				}
				var err error
				if gp.inPos != nil && gp.inPos[k] != nil {
					dst := ghosts[gp.inFirst[k] : gp.inFirst[k]+gp.inLen[k]]
					err = decodeScatter(dst, gp.inPos[k], &gp.inCursors[k], recv[k], int(n), maxVal)
				} else {
					at := gp.inFirst[k] + base
					var dst []G
					if n > 0 {
						dst = ghosts[at : at+n]
					}
					err = decodeGhosts(dst, recv[k], maxVal)
				}
				if err != nil {
					gp.errs[t] = fmt.Errorf("validate: ghost levels from peer %d, round %d: %w", k, r, err)
					return
				}
			}
		})
		for _, err := range gp.errs[:threads] {
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// appendGhostValues writes len(dst)/w values into dst: the levels of the
// next set positions of out after cur, which it advances.
func appendGhostValues(dst []byte, out frontier.Bitmap, cur *ghostCursor, own []int32, maxLevel int32, w int) {
	word, left := cur.word, cur.left
	for i := 0; i < len(dst); i += w {
		for left == 0 {
			word++
			left = out[word]
		}
		x := word<<6 | bits.TrailingZeros64(left)
		left &= left - 1
		v := levelValue(own[x], maxLevel)
		switch w {
		case 1:
			dst[i] = byte(v)
		case 2:
			dst[i], dst[i+1] = byte(v), byte(v>>8)
		default:
			dst[i], dst[i+1], dst[i+2], dst[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
	}
	cur.word, cur.left = word, left
}

// decodeGhosts decodes a message of len(dst) values of the width of G into
// dst. A message of another length, or a value above maxVal, is an error.
func decodeGhosts[G ghostValue](dst []G, msg []byte, maxVal uint32) error {
	var z G
	w := int(unsafe.Sizeof(z))
	if len(msg) != len(dst)*w {
		return fmt.Errorf("%d bytes, want %d values of %d bytes", len(msg), len(dst), w)
	}
	var top uint32
	switch w {
	case 1:
		for i, b := range msg {
			dst[i] = G(b)
			top = max(top, uint32(b))
		}
	case 2:
		for i := range dst {
			v := uint32(msg[2*i]) | uint32(msg[2*i+1])<<8
			dst[i] = G(v)
			top = max(top, v)
		}
	default:
		for i := range dst {
			v := uint32(msg[4*i]) | uint32(msg[4*i+1])<<8 | uint32(msg[4*i+2])<<16 | uint32(msg[4*i+3])<<24
			dst[i] = G(v)
			top = max(top, v)
		}
	}
	if top > maxVal {
		for i, v := range dst {
			if uint32(v) > maxVal {
				return fmt.Errorf("value %d (level %d) at position %d is beyond the deepest level %d", v, int64(v)-1, i, int64(maxVal)-1)
			}
		}
	}
	return nil
}

// decodeScatter decodes a message of n values of the width of G into dst,
// the value of the i-th set position x of pos (after cur, which it
// advances) going to dst[x]. A message of another length, a value above
// maxVal, or more values than pos has positions within dst is an error.
func decodeScatter[G ghostValue](dst []G, pos frontier.Bitmap, cur *ghostCursor, msg []byte, n int, maxVal uint32) error {
	var z G
	w := int(unsafe.Sizeof(z))
	if len(msg) != n*w {
		return fmt.Errorf("%d bytes, want %d values of %d bytes", len(msg), n, w)
	}
	word, left := cur.word, cur.left
	for i := 0; i < n; i++ {
		for left == 0 {
			if word++; word >= len(pos) {
				return fmt.Errorf("%d values for %d positions", n, i)
			}
			left = pos[word]
		}
		x := word<<6 | bits.TrailingZeros64(left)
		left &= left - 1
		if x >= len(dst) {
			return fmt.Errorf("position %d beyond the %d vertices of the range", x, len(dst))
		}
		var v uint32
		switch w {
		case 1:
			v = uint32(msg[i])
		case 2:
			v = uint32(msg[2*i]) | uint32(msg[2*i+1])<<8
		default:
			v = uint32(msg[4*i]) | uint32(msg[4*i+1])<<8 | uint32(msg[4*i+2])<<16 | uint32(msg[4*i+3])<<24
		}
		if v > maxVal {
			return fmt.Errorf("value %d (level %d) at position %d is beyond the deepest level %d", v, int64(v)-1, i, int64(maxVal)-1)
		}
		dst[x] = G(v)
	}
	cur.word, cur.left = word, left
	return nil
}
