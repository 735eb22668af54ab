package sssp

// The tree check of the validation (Graph500 spec: the parents must form a
// tree rooted at the root, without cycles), by pointer jumping: every
// reached vertex holds an ancestor, first its parent, and each round asks
// the ancestor's owner for the ancestor's own ancestor, doubling the jump,
// until the ancestor is the root. A chain that has not met the root after
// ⌈log2 n⌉ + 1 rounds is a cycle (or hangs below one).

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/graphrun/graphrun/comm"
)

// Ancestor replies beyond a vertex id.
const (
	ancRoot      = -2 // the ancestor's chain has met the root
	ancUnreached = -1 // the ancestor has no parent
)

// checkTree adds a violCycle for every reached vertex whose chain of
// parents does not lead to the root.
func (v *Validator) checkTree(ctx context.Context, root int64, parent []int64, bad *violations) error {
	n, p := len(parent), v.part.P
	anc := make([]int64, n) // ancestor, or ancRoot once the chain met the root
	var open []uint32       // vertices whose chain is still followed
	for l, px := range parent {
		x := v.part.First(v.rank) + int64(l)
		switch {
		case x == root || px == root:
			anc[l] = ancRoot
		case px < 0 || px >= v.part.N:
			anc[l] = ancUnreached // reported by the row checks if wrong
		default:
			anc[l] = px
			open = append(open, uint32(l))
		}
	}
	asked := make([][]uint32, p) // per owner: who asked, in order
	maxRounds := bits.Len64(uint64(v.part.N)) + 1
	for round := 0; ; round++ {
		left := []int64{int64(len(open))}
		if err := v.c.AllreduceInt64(ctx, PhaseValidateJump, left, comm.Sum); err != nil {
			return fmt.Errorf("sssp: validate: %w", err)
		}
		if left[0] == 0 {
			return nil
		}
		if round == maxRounds {
			for _, l := range open {
				bad.addf(violCycle, "the parents of vertex %d do not lead to root %d", v.part.First(v.rank)+int64(l), root)
			}
			return nil
		}
		var err error
		if open, err = v.jump(ctx, anc, open, asked); err != nil {
			return err
		}
	}
}

// jump is one round of pointer jumping for the open vertices; it returns
// those still open.
func (v *Validator) jump(ctx context.Context, anc []int64, open []uint32, asked [][]uint32) ([]uint32, error) {
	for d := range v.send {
		v.send[d], asked[d] = v.send[d][:0], asked[d][:0]
	}
	for _, l := range open {
		d := v.part.Owner(anc[l])
		v.send[d] = binary.LittleEndian.AppendUint32(v.send[d], v.part.Local(anc[l]))
		asked[d] = append(asked[d], l)
	}
	recv, err := v.c.Alltoallv(ctx, PhaseValidateJump, v.send, v.recv)
	if err != nil {
		return nil, fmt.Errorf("sssp: validate: %w", err)
	}
	v.recv = recv
	// Answer from the ancestors as they were before this round.
	replies := make([][]byte, len(recv))
	for s, msg := range recv {
		if len(msg)%4 != 0 {
			return nil, fmt.Errorf("sssp: validate: %d bytes of questions from rank %d", len(msg), s)
		}
		for i := 0; i < len(msg); i += 4 {
			l := binary.LittleEndian.Uint32(msg[i:])
			if int(l) >= len(anc) {
				return nil, fmt.Errorf("sssp: validate: rank %d asks for vertex %d of %d", s, l, len(anc))
			}
			replies[s] = binary.LittleEndian.AppendUint64(replies[s], uint64(anc[l]))
		}
	}
	answers, err := v.c.Alltoallv(ctx, PhaseValidateJump, replies, nil)
	if err != nil {
		return nil, fmt.Errorf("sssp: validate: %w", err)
	}
	still := open[:0]
	for d, msg := range answers {
		if len(msg) != 8*len(asked[d]) {
			return nil, fmt.Errorf("sssp: validate: %d bytes of answers from rank %d, want %d", len(msg), d, 8*len(asked[d]))
		}
		for i, l := range asked[d] {
			a := int64(binary.LittleEndian.Uint64(msg[8*i:]))
			switch {
			case a == ancRoot:
				anc[l] = ancRoot
			case a < 0 || a >= v.part.N:
				anc[l] = ancUnreached // below an unreached vertex: a tree-edge violation already
			default:
				anc[l] = a
				still = append(still, l)
			}
		}
	}
	return still, nil
}
