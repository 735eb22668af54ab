// Validation of a directed search (the Graph500 driver's directed run on
// a file): the Graph500 specification's checks (Lv et al. §VII-A) adapted
// to a graph whose edges have a direction. A result passes when
//
//   - the root has level 0 and is its own parent;
//   - every other reached vertex v has a reached parent p with
//     level(v) = level(p)+1, and p→v is an edge (a tree edge);
//   - an unreached vertex has parent −1 and level −1;
//   - every edge u→v with u reached has v reached with level(v) ≤
//     level(u)+1, so that the reached set is closed under out-edges:
//     every vertex reachable from the root is reached (spanning);
//   - the claimed nedge is the reached vertices' out-tuples.
//
// Each rank learns every vertex's level (one Allgatherv of 4 bytes per
// vertex: simple, and linear in n per rank, which a validator of file
// graphs can afford), checks its own rows and vertices, and asks the owner
// of each parent whether the tree edge exists (one Alltoallv).

package bfs

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// PhaseValidateDirected is the phase of the directed validation's exchanges.
const PhaseValidateDirected = "validate.directed"

// ValidateDirected checks a directed search from root over g (rows of
// out-neighbours, 32-bit columns) under part; parent and level are the
// rank's owned vertices' (Result.Parent, Result.Level). It returns the
// recounted nedge and, for an invalid result, a *ValidationError, the same
// on every rank; claimedNEdge < 0 skips the nedge comparison. It is a
// collective.
func ValidateDirected(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D, root int64, parent []int64, level []int32, claimedNEdge int64) (int64, error) {
	rank, size := c.Rank(), c.Size()
	if len(parent) != g.NumLocal || len(level) != g.NumLocal {
		return 0, fmt.Errorf("validate: %d parents and %d levels for %d vertices", len(parent), len(level), g.NumLocal)
	}
	own := make([]byte, 0, 4*len(level))
	for _, l := range level {
		own = binary.LittleEndian.AppendUint32(own, uint32(l))
	}
	all, err := c.Allgatherv(ctx, PhaseValidateDirected, own, nil)
	if err != nil {
		return 0, fmt.Errorf("validate: %w", err)
	}
	levels := make([]int32, 0, part.N)
	for _, b := range all {
		for i := 0; i+4 <= len(b); i += 4 {
			levels = append(levels, int32(binary.LittleEndian.Uint32(b[i:])))
		}
	}
	if int64(len(levels)) != part.N {
		return 0, fmt.Errorf("validate: %d levels gathered for %d vertices", len(levels), part.N)
	}
	var bad violations
	var outTuples int64
	first := part.First(rank)
	ask := make([][]byte, size) // tree edges p→v to check at p's owner
	for l := range g.NumLocal {
		v, p, lv := first+int64(l), parent[l], level[l]
		switch {
		case v == root:
			if p != root || lv != 0 {
				bad.addf(kindRoot, "root %d has parent %d and level %d", v, p, lv)
			}
		case (p < 0) != (lv < 0):
			bad.addf(kindConsistency, "vertex %d has parent %d and level %d", v, p, lv)
			continue
		case p < 0:
			continue
		case p >= part.N:
			bad.addf(kindRange, "vertex %d has parent %d, outside [0, %d)", v, p, part.N)
			continue
		case levels[p] < 0 || lv != levels[p]+1:
			bad.addf(kindCheck2, "vertex %d at level %d has parent %d at level %d", v, lv, p, levels[p])
		default:
			d := part.Owner(p)
			ask[d] = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(ask[d], uint32(p)), uint32(v))
		}
		if lv < 0 {
			continue
		}
		outTuples += int64(g.TupleDegree[l])
		for _, w := range g.Cols32[g.Offsets[l]:g.Offsets[l+1]] {
			if lw := levels[w]; lw < 0 || lw > lv+1 {
				bad.addf(kindCheck3, "edge %d→%d: %d at level %d, %d at level %d (unreached or too deep)", v, w, v, lv, w, lw)
			}
		}
	}
	got, err := c.Alltoallv(ctx, PhaseValidateDirected, ask, nil)
	if err != nil {
		return 0, fmt.Errorf("validate: %w", err)
	}
	for _, m := range got {
		for i := 0; i+8 <= len(m); i += 8 {
			p, v := int64(binary.LittleEndian.Uint32(m[i:])), int64(binary.LittleEndian.Uint32(m[i+4:]))
			l := part.Local(p)
			if part.Owner(p) != rank || !graph.DescendingRowHas(g.Cols32[g.Offsets[l]:g.Offsets[l+1]], v) {
				bad.addf(kindCheck4, "tree edge %d→%d is not an edge of the graph", p, v)
			}
		}
	}
	// finishValidation halves its degree sum (undirected tuples are counted
	// at both ends); an out-tuple is counted at its source only.
	return finishValidation(ctx, c, root, &bad, 2*outTuples, claimedNEdge, make([]int64, 0, 1+int(numKinds)))
}
