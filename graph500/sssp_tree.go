package graph500

// The shortest path tree of kernel 3's first search as text (Config.Tree
// on a run with SSSP): "vertex parent distance" per vertex, as the BFS
// tree's "vertex parent level" (tree.go), with a file's own ids.

import (
	"context"
	"math"
	"strconv"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/spmv/sssp"
)

// sendSSSPTree delivers the lines "vertex parent distance" of every vertex
// to sink on rank 0, in vertex order, with ids's ids (nil: the graph's
// own). A distance is the shortest decimal form that reads back as its
// float32 (strconv's 'g', -1, 32); an unreached vertex has parent −1 and
// distance −1.
func sendSSSPTree(ctx context.Context, c comm.Comm, res *sssp.Result, ids *fileIDs, sink func([]byte) error) error {
	bits := func(v int) uint32 { return math.Float32bits(res.Dist[v]) }
	return sendTreeRecords(ctx, c, res.Parent, bits, ids, sink, func(b []byte, x uint32) []byte {
		d := math.Float32frombits(x)
		if math.IsInf(float64(d), 1) {
			return append(b, "-1"...)
		}
		return strconv.AppendFloat(b, float64(d), 'g', -1, 32)
	})
}
