package bfs

// Depths from the parent array alone (Graph500 specification, BFS
// validation, check 1: the parent array must describe a tree rooted at the
// root): for a result that comes without levels, the validator derives them
// from the tree and then checks them as it checks claimed levels. A vertex
// with a parent that the walk from the root never reaches lies on a cycle or
// hangs below one or below an unreached vertex.

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/partition"
)

// Phases of the derivation of depths from the tree.
const (
	PhaseValidateChildren = "validate.children"
	PhaseValidateDepth    = "validate.depth"
)

// treeDepths writes into depth, per owned vertex, its depth in the tree
// described by the parent arrays (−1 when the walk from the root never
// reaches it): children lists at the parents' owners (PhaseValidateChildren,
// 8 bytes per child whose parent lives elsewhere), then one exchange per
// level of the children found (PhaseValidateDepth, 4 bytes per child). It is
// the validator's way for a result without levels, and allocates its lists
// per call.
func treeDepths(ctx context.Context, c comm.Comm, part partition.Block1D, root int64, parent []int64, depth []int32) error {
	rank, size, n := c.Rank(), c.Size(), len(parent)
	first := part.First(rank)

	// Route (parent's local id, child's local id) to the parent's owner.
	send := make([][]byte, size)
	for v, p := range parent {
		if p < 0 || p >= part.N || first+int64(v) == root || p == first+int64(v) {
			continue
		}
		d := part.Owner(p)
		send[d] = binary.LittleEndian.AppendUint32(send[d], part.Local(p))
		send[d] = binary.LittleEndian.AppendUint32(send[d], uint32(v))
	}
	recv, err := c.Alltoallv(ctx, PhaseValidateChildren, send, nil)
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	// Children lists in CSR form, keyed by the parent's local id.
	start := make([]int64, n+1)
	for src, msg := range recv {
		if len(msg)%8 != 0 {
			return fmt.Errorf("validate: children message from rank %d has %d bytes, not a multiple of 8", src, len(msg))
		}
		for i := 0; i < len(msg); i += 8 {
			pl := binary.LittleEndian.Uint32(msg[i:])
			if int(pl) >= n {
				return fmt.Errorf("validate: children message from rank %d names local vertex %d of %d", src, pl, n)
			}
			start[pl+1]++
		}
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	children := make([]int64, start[n])
	fill := append([]int64(nil), start[:n]...)
	for src, msg := range recv {
		for i := 0; i < len(msg); i += 8 {
			pl := binary.LittleEndian.Uint32(msg[i:])
			cl := binary.LittleEndian.Uint32(msg[i+4:])
			children[fill[pl]] = part.Global(src, cl)
			fill[pl]++
		}
	}

	for i := range depth {
		depth[i] = -1
	}
	var current, next []uint32
	if part.Owner(root) == rank {
		l := part.Local(root)
		depth[l] = 0
		current = append(current, l)
	}
	count := []int64{0}
	for d := int32(0); ; d++ {
		for i := range send {
			send[i] = send[i][:0]
		}
		for _, l := range current {
			for _, ch := range children[start[l]:start[l+1]] {
				o := part.Owner(ch)
				send[o] = binary.LittleEndian.AppendUint32(send[o], part.Local(ch))
			}
		}
		recv, err = c.Alltoallv(ctx, PhaseValidateDepth, send, recv)
		if err != nil {
			return fmt.Errorf("validate: %w", err)
		}
		next = next[:0]
		for src, msg := range recv {
			if len(msg)%4 != 0 {
				return fmt.Errorf("validate: depth message from rank %d has %d bytes, not a multiple of 4", src, len(msg))
			}
			for i := 0; i < len(msg); i += 4 {
				l := binary.LittleEndian.Uint32(msg[i:])
				if int(l) >= n {
					return fmt.Errorf("validate: depth message from rank %d names local vertex %d of %d", src, l, n)
				}
				if depth[l] >= 0 {
					// Each vertex is listed under one parent only, so this
					// means a corrupt transport, not a corrupt result.
					return fmt.Errorf("validate: vertex %d reached twice while walking the tree", part.Global(rank, l))
				}
				depth[l] = d + 1
				next = append(next, l)
			}
		}
		current, next = next, current
		count[0] = int64(len(current))
		if err := c.AllreduceInt64(ctx, PhaseValidateReduce, count, comm.Sum); err != nil {
			return fmt.Errorf("validate: %w", err)
		}
		if count[0] == 0 {
			return nil
		}
	}
}
