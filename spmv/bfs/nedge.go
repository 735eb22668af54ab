package bfs

// nedge, the Graph500 specification's count of the edges a search traversed
// (TEPS = nedge / time; Lv et al. §VII-A): the input tuples with both ends in
// the searched component, from the per-vertex tuple counts kernel 1 keeps.

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/comm"
)

// PhaseCount is the phase of the allreduce that adds up nedge.
const PhaseCount = "bfs.nedge"

// ComponentEdges returns nedge for a finished search: the number of input
// tuples (u, v), u ≠ v, with both ends in the searched component, duplicates
// counted — what the Graph500 reference code counts for TEPS (its
// get_edge_count_for_teps). tupleDegree is, per owned vertex, the tuples
// touching it (graph.CSR.TupleDegree, or graph.Block2D.TupleDegree, whose
// owned vertices are the same). Every rank must call it.
func ComponentEdges(ctx context.Context, c comm.Comm, tupleDegree []uint32, parent []int64) (int64, error) {
	ends, err := reachedTuples(ctx, c, tupleDegree, parent)
	return ends / 2, err
}

// reachedTuples sums, over all ranks, the tuple degrees of the reached
// vertices.
func reachedTuples(ctx context.Context, c comm.Comm, tupleDegree []uint32, parent []int64) (int64, error) {
	if len(tupleDegree) != len(parent) {
		return 0, fmt.Errorf("nedge: %d tuple degrees for %d parents", len(tupleDegree), len(parent))
	}
	var sum int64
	for v, p := range parent {
		if p >= 0 {
			sum += int64(tupleDegree[v])
		}
	}
	s := []int64{sum}
	if err := c.AllreduceInt64(ctx, PhaseCount, s, comm.Sum); err != nil {
		return 0, fmt.Errorf("nedge: %w", err)
	}
	return s[0], nil
}
