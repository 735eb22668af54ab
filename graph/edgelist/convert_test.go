package edgelist

import (
	"bytes"
	"context"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// TestWriteConverted: an edge list of a symmetric matrix's entries holds
// each entry once, with the id offset added; a .grb keeps the entries once
// and says so in its header.
func TestWriteConverted(t *testing.T) {
	ef := &EdgeFile{Edges: []graph.Edge{{U: 0, V: 1}, {U: 2, V: 2}}, Symmetric: true}
	var b bytes.Buffer
	what, err := WriteConverted(context.Background(), &b, ef, EdgeListText, 1)
	if err != nil || what != "2 tuples" || b.String() != "1 2\n3 3\n" {
		t.Fatalf("el: %q, %v, %q", what, err, b.String())
	}
	b.Reset()
	what, err = WriteConverted(context.Background(), &b, ef, "grb", 1)
	if err != nil || what != "3 vertices and 2 tuples" {
		t.Fatalf("grb: %q, %v", what, err)
	}
}
