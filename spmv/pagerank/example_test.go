package pagerank_test

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/spmv/pagerank"
)

// ExampleRun runs PageRank on two in-process ranks, each giving half of
// the edges, and prints the top vertices rank 0 learns (TopK is a
// collective, so every rank calls it).
func ExampleRun() {
	edges := []graph.Edge{{U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 1}, {U: 3, V: 2}, {U: 4, V: 3}}
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		half := len(edges) / 2
		mine := edges[:half]
		if c.Rank() == 1 {
			mine = edges[half:]
		}
		res, err := pagerank.Run(ctx, c, mine, pagerank.DefaultConfig())
		if err != nil {
			return err
		}
		top, err := res.TopK(ctx, c, 3)
		if err != nil || c.Rank() != 0 {
			return err
		}
		fmt.Printf("%d vertices, %d edges, converged %v\n", res.NumVertices, res.NumEdges, res.Converged)
		for _, v := range top {
			fmt.Printf("vertex %d: %.4f\n", v.ID, v.Score)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 4 vertices, 5 edges, converged true
	// vertex 3: 0.3869
	// vertex 2: 0.3736
	// vertex 1: 0.2020
}
