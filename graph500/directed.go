// The directed run on a file (FileConfig.Directed): kernel 1
// builds the rows of out-edges instead of the undirected view, the search
// follows out-edges only (bfs.Directed) and the validation is the
// directed one (bfs.ValidateDirected). nedge counts the out-tuples of the
// reached vertices.

package graph500

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv/bfs"
)

// PhaseDirectedBuild is the phase of the directed kernel 1's exchange.
const PhaseDirectedBuild = "kernel1.directed"

// buildDirected builds the rank's rows of out-neighbours from its share of
// packed dense tuples u<<32 | v: each tuple goes to the owner of u (one
// Alltoallv of 8 bytes per tuple), whose rows are sorted in descending
// order and deduplicated, self-loops left out, as graph.CSR requires.
// TupleDegree counts a vertex's out-tuples, duplicates included.
func buildDirected(ctx context.Context, c comm.Comm, part partition.Block1D, dense []uint64) (*graph.CSR, error) {
	rank := c.Rank()
	send := make([][]byte, c.Size())
	for _, k := range dense {
		d := part.Owner(int64(k >> 32))
		send[d] = binary.LittleEndian.AppendUint64(send[d], k)
	}
	recv, err := c.Alltoallv(ctx, PhaseDirectedBuild, send, nil)
	if err != nil {
		return nil, fmt.Errorf("kernel 1 (directed): %w", err)
	}
	n := part.Count(rank)
	first := part.First(rank)
	g := &graph.CSR{NumGlobal: part.N, FirstGlobal: first, NumLocal: n,
		Offsets: make([]int64, n+1), TupleDegree: make([]uint32, n)}
	each := func(fn func(l int, v uint32)) error {
		for src, m := range recv {
			for i := 0; i+8 <= len(m); i += 8 {
				k := binary.LittleEndian.Uint64(m[i:])
				u, v := int64(k>>32), uint32(k)
				if part.Owner(u) != rank || int64(v) >= part.N {
					return fmt.Errorf("kernel 1 (directed): tuple (%d, %d) from rank %d", u, v, src)
				}
				fn(int(u-first), v)
			}
		}
		return nil
	}
	err = each(func(l int, v uint32) {
		if int64(v) == first+int64(l) {
			g.SelfLoops++
			return
		}
		g.TupleDegree[l]++
	})
	if err != nil {
		return nil, err
	}
	for l := range n {
		g.Offsets[l+1] = g.Offsets[l] + int64(g.TupleDegree[l])
	}
	cols := make([]uint32, g.Offsets[n])
	fill := slices.Clone(g.Offsets[:n])
	_ = each(func(l int, v uint32) {
		if int64(v) != first+int64(l) {
			cols[fill[l]] = v
			fill[l]++
		}
	})
	// Sort each row in descending order and drop duplicates, in place.
	var w int64
	for l := range n {
		row := cols[g.Offsets[l]:g.Offsets[l+1]]
		slices.Sort(row)
		slices.Reverse(row)
		g.Offsets[l] = w
		for i, v := range row {
			if i == 0 || v != row[i-1] {
				cols[w] = v
				w++
			}
		}
	}
	g.Offsets[n] = w
	g.Cols32 = cols[:w:w]
	return g, nil
}

// directedValidator is bfs.ValidateDirected as the driver's validator.
type directedValidator struct {
	c    comm.Comm
	g    *graph.CSR
	part partition.Block1D
}

func (v *directedValidator) Validate(ctx context.Context, root int64, parent []int64, level []int32, claimedNEdge int64) (int64, error) {
	return bfs.ValidateDirected(ctx, v.c, v.g, v.part, root, parent, level, claimedNEdge)
}

func (v *directedValidator) Release() {}
