package graph_test

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
)

// Relabel gives sparse ids the dense ids 0..n−1 in increasing order,
// whatever rank holds which edge; kernel 1 then builds the CSR, whose rows
// answer HasEdge and Neighbor with global ids.
func ExampleRelabel() {
	shares := [][]graph.Edge{{{U: 1000, V: 5}}, {{U: 5, V: 70}, {U: 70, V: 1000}}}
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		dense, original, n, err := graph.Relabel(ctx, c, shares[c.Rank()])
		if err != nil {
			return err
		}
		part, err := partition.NewBlock1D(n, c.Size())
		if err != nil {
			return err
		}
		g, err := graph.BuildUndirected(ctx, c, part, dense, 1)
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			fmt.Println("vertices", n, "original ids", original)
			fmt.Println("0-1:", g.HasEdge(0, 1), "0-2:", g.HasEdge(0, 2), "first neighbour of 1:", g.Neighbor(g.Offsets[1]))
		}
		return nil
	})
	fmt.Println(err)
	// Output:
	// vertices 3 original ids [5 70 1000]
	// 0-1: true 0-2: true first neighbour of 1: 2
	// <nil>
}
