package kronecker_test

import (
	"fmt"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
)

// The Graph500 graph of scale 4: 16 vertices, 256 tuples. Tuple k depends
// only on the parameters and k, so any range can be generated on its own;
// the labels go through a bijection of [0, 16), which Unpermute inverts.
func ExampleParams_Generate() {
	p := kronecker.DefaultParams(4)
	fmt.Println(p.NumVertices(), "vertices,", p.NumEdges(), "tuples")
	all := make([]graph.Edge, p.NumEdges())
	p.Generate(0, all)
	some := make([]graph.Edge, 3)
	p.Generate(100, some)
	fmt.Println(some[0] == all[100] && some[2] == all[102])
	var ids []int64
	for x := range p.NumVertices() {
		y := p.Permute(x)
		if p.Unpermute(y) != x {
			panic("not inverted")
		}
		ids = append(ids, y)
	}
	fmt.Println(len(ids), "labels, each once:", distinct(ids))
	// Output:
	// 16 vertices, 256 tuples
	// true
	// 16 labels, each once: true
}

func distinct(ids []int64) bool {
	seen := map[int64]bool{}
	for _, x := range ids {
		seen[x] = true
	}
	return len(seen) == len(ids)
}
