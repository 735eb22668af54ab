package sssp_test

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv/sssp"
)

// Shortest paths from vertex 0 of a small weighted graph on two ranks:
// kernel 1 builds the CSR, BuildWeights gives its entries their tuples'
// weights (the smaller of a duplicate pair's), and the validator checks
// the result.
func Example() {
	edges := graph.WeightedEdges{
		Edges:   graph.EdgeSlice{{U: 0, V: 1}, {U: 1, V: 2}, {U: 0, V: 2}, {U: 2, V: 100}, {U: 0, V: 2}},
		Weights: []float32{0.25, 0.25, 0.75, 0.5, 0.625},
	}
	part, _ := partition.NewBlock1D(128, 2)
	dist := make([]float32, 128)
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		mine := edges // rank 0 holds every tuple, rank 1 none
		if c.Rank() == 1 {
			mine = graph.WeightedEdges{}
		}
		g, _, err := graph.BuildUndirectedFrom(ctx, c, part, mine, 1)
		if err != nil {
			return err
		}
		w, err := graph.BuildWeights(ctx, c, part, g, mine, 1)
		if err != nil {
			return err
		}
		s, err := sssp.New(ctx, c, g, w, part, sssp.Config{Threads: 1})
		if err != nil {
			return err
		}
		res, err := s.Run(ctx, 0)
		if err != nil {
			return err
		}
		copy(dist[g.FirstGlobal:], res.Dist)
		v, err := sssp.NewValidator(ctx, c, g, w, part, 1)
		if err != nil {
			return err
		}
		return v.Validate(ctx, 0, res.Dist, res.Parent)
	})
	fmt.Println(err, dist[1], dist[2], dist[100], dist[3])
	// Output: <nil> 0.25 0.5 1 +Inf
}
