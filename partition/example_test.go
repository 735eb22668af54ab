package partition_test

import (
	"fmt"

	"github.com/graphrun/graphrun/partition"
)

// Six blocks of very different sizes on four ranks: NumS's load-simulated
// greedy against the cyclic layout, by eq. 2 (Objective) and by the
// max/mean imbalance of the ranks' memory.
func ExamplePlaceLSHS() {
	var blocks []partition.PlacementBlock
	for _, e := range []int64{900, 50, 300, 300, 40, 600} {
		blocks = append(blocks, partition.PlacementBlock{Edges: e, Memory: 8 * e})
	}
	pb, err := partition.GridProblem(1<<12, 2, 3, 4, blocks)
	if err != nil {
		panic(err)
	}
	lshs, _ := partition.PlaceLSHS(pb, partition.OrderLargestFirst, 0)
	rr, _ := partition.PlaceRoundRobin(pb)
	for _, c := range []struct {
		name string
		p    partition.Placement
	}{{"lshs", lshs}, {"round-robin", rr}} {
		fmt.Printf("%-11s owners %v, eq. 2 = %d, memory imbalance %.2f\n", c.name, c.p.Owner, c.p.Objective(), c.p.Imbalance().Memory)
	}
	// Output:
	// lshs        owners [0 1 1 3 3 2], eq. 2 = 7969, memory imbalance 1.55
	// round-robin owners [0 1 2 3 0 1], eq. 2 = 9398, memory imbalance 1.65
}
