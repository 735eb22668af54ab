package kronecker

import (
	"slices"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// TestUnpermutedIsRaw: with Unpermuted, Generate and GenerateParallel give
// the raw quadrant-descent labels, and the hubs are the low ids.
func TestUnpermutedIsRaw(t *testing.T) {
	p := DefaultParams(12)
	p.Unpermuted = true
	n := int(p.NumEdges())
	got, par, raw := make([]graph.Edge, n), make([]graph.Edge, n), make([]graph.Edge, n)
	p.Generate(0, got)
	p.GenerateParallel(0, par, 3)
	p.generateRaw(0, raw)
	if !slices.Equal(got, raw) || !slices.Equal(par, raw) {
		t.Fatal("unpermuted tuples differ from the raw ones")
	}
	deg := make([]int, p.NumVertices())
	for _, e := range got {
		deg[e.U]++
		deg[e.V]++
	}
	if top := slices.Index(deg, slices.Max(deg)); top != 0 {
		t.Fatalf("the largest degree is at vertex %d, want 0 (A is the largest initiator probability)", top)
	}
}
