package sieve_test

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/sieve"
)

// fig2 runs fn on 4 in-process ranks holding the graph of Lv et al. Fig. 2:
// v0..v7 with P1 = {v0, v1} ... P4 = {v6, v7}, each rank's pair at the
// start of its 64-vertex block (vertex id 64·(k/2) + k mod 2 for v_k).
func fig2(fn func(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D) error) {
	id := func(k int64) int64 { return 64*(k/2) + k%2 }
	var edges []graph.Edge
	for _, e := range [][2]int64{{0, 2}, {0, 3}, {0, 5}, {1, 6}, {1, 7}, {2, 4}, {3, 5}, {3, 6}, {4, 7}, {5, 7}} {
		edges = append(edges, graph.Edge{U: id(e[0]), V: id(e[1])})
	}
	part, err := partition.NewBlock1D(4*64, 4)
	if err != nil {
		panic(err)
	}
	err = inproc.Run(context.Background(), 4, func(ctx context.Context, c comm.Comm) error {
		var mine []graph.Edge
		if c.Rank() == 0 {
			mine = edges
		}
		g, err := graph.BuildUndirected(ctx, c, part, mine, 1)
		if err != nil {
			return err
		}
		return fn(ctx, c, g, part)
	})
	if err != nil {
		panic(err)
	}
}

// BuildExchanged builds the cross directory as Lv et al. §V-A do: every
// rank sends each peer its directory vector once. On the paper's example,
// P2's column says that P4 needs only v3 from it (V_{4,2} = (0, 1)).
func ExampleBuildExchanged() {
	var dirs [4]*sieve.Directory
	fig2(func(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D) error {
		d, err := sieve.BuildExchanged(ctx, c, g, part, 1)
		dirs[c.Rank()] = d
		return err
	})
	p2 := dirs[1]
	fmt.Println("peers:", p2.Peers())
	for i := range p2.Peers() {
		var set []string
		for l := range int64(2) {
			if p2.Column(i).Test(l) {
				set = append(set, fmt.Sprintf("v%d", 2+l))
			}
		}
		fmt.Printf("V(P%d,P2) = %v, %d of P2's 64 vertices, %v\n", i+1, set, p2.Ones(i), p2.Kind(i))
	}
	fmt.Printf("density towards P4: %.4f\n", p2.Density(3))
	// Output:
	// peers: 4
	// V(P1,P2) = [v2 v3], 2 of P2's 64 vertices, mixed
	// V(P2,P2) = [], 0 of P2's 64 vertices, empty
	// V(P3,P2) = [v2 v3], 2 of P2's 64 vertices, mixed
	// V(P4,P2) = [v3], 1 of P2's 64 vertices, mixed
	// density towards P4: 0.0156
}

// A Packer sends each peer only the directory positions not sent yet, and
// a RowIndex numbers the positions a rank receives.
func ExampleNewPacker() {
	var live [2]int
	var index int64
	fig2(func(ctx context.Context, c comm.Comm, g *graph.CSR, part partition.Block1D) error {
		switch c.Rank() {
		case 1: // P2
			d, err := sieve.Build(g, part, 1, 1)
			if err != nil {
				return err
			}
			pk, err := sieve.NewPacker(d, g, 1)
			if err != nil {
				return err
			}
			f := make([]uint64, d.Words())
			f[0] = 0b11 // v2 and v3 in the frontier
			live[0] = pk.Live(3)
			pk.Pack(nil, f, 3)
			live[1] = pk.Live(3)
		case 3: // P4
			x, err := sieve.BuildRowIndex(g, part, 3, 1)
			if err != nil {
				return err
			}
			index = x.Len()
		}
		return nil
	})
	fmt.Println("P2→P4 live positions before and after sending v3:", live[0], live[1])
	fmt.Println("vertices P4 receives levels for:", index)
	// Output:
	// P2→P4 live positions before and after sending v3: 1 0
	// vertices P4 receives levels for: 4
}
