package graph500

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// TestWriteTuples: the text edge list holds every tuple, one per line, the
// same for any thread count; the .grb graph counts the vertices that occur.
func TestWriteTuples(t *testing.T) {
	p := kronecker.DefaultParams(6)
	var one, four, grb bytes.Buffer
	if _, err := WriteTuples(context.Background(), &one, p, 1, false, edgelist.EdgeListText); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteTuples(context.Background(), &four, p, 4, false, edgelist.EdgeListText); err != nil {
		t.Fatal(err)
	}
	if n := int64(strings.Count(one.String(), "\n")); n != p.NumEdges() || !bytes.Equal(one.Bytes(), four.Bytes()) {
		t.Fatalf("%d lines for %d tuples; 1 and 4 threads equal: %v", n, p.NumEdges(), bytes.Equal(one.Bytes(), four.Bytes()))
	}
	n, err := WriteTuples(context.Background(), &grb, p, 2, true, "")
	if err != nil || n < 1 || n > p.NumVertices() || grb.Len() == 0 {
		t.Fatalf("grb: %d vertices of %d, %d bytes, %v", n, p.NumVertices(), grb.Len(), err)
	}
}
