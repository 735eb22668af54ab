package spmv

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
)

// PhaseCount is the phase of the allreduce that adds up nedge.
const PhaseCount = "bfs.nedge"

// ComponentEdges returns nedge for a finished search: the number of input
// tuples (u, v), u ≠ v, with both ends in the searched component, duplicates
// counted — what the Graph500 reference code counts for TEPS (its
// get_edge_count_for_teps). Every rank must call it.
func ComponentEdges(ctx context.Context, c comm.Comm, g *graph.CSR, parent []int64) (int64, error) {
	var sum int64
	for v, p := range parent {
		if p >= 0 {
			sum += int64(g.TupleDegree[v])
		}
	}
	s := []int64{sum}
	if err := c.AllreduceInt64(ctx, PhaseCount, s, comm.Sum); err != nil {
		return 0, fmt.Errorf("nedge: %w", err)
	}
	return s[0] / 2, nil
}
