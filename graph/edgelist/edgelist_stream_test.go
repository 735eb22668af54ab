package edgelist

import (
	"bytes"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// TestEdgeListEncoder: what the encoder writes decodes to the same tuples,
// in both formats, and a wrong count fails.
func TestEdgeListEncoder(t *testing.T) {
	edges := []graph.Edge{{U: 0, V: 1}, {U: 5, V: 5}, {U: 1 << 40, V: 3}, {U: 2, V: 0}}
	for _, format := range []string{EdgeListText, EdgeListBinary} {
		var buf bytes.Buffer
		e, err := NewEdgeListEncoder(&buf, format, int64(len(edges)))
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Write(edges[:1]); err != nil {
			t.Fatal(err)
		}
		if err := e.Write(edges[1:]); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := readEdgeListTest(&buf, "stream", format)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, edges) {
			t.Fatalf("%s: read back %v", format, got)
		}
		short, _ := NewEdgeListEncoder(&bytes.Buffer{}, format, 3)
		if err := short.Write(edges[:2]); err != nil || short.Close() == nil {
			t.Fatalf("%s: 2 tuples of 3 announced: Close succeeded", format)
		}
		long, _ := NewEdgeListEncoder(&bytes.Buffer{}, format, 1)
		if err := long.Write(edges[:2]); err == nil {
			t.Fatalf("%s: 2 tuples of 1 announced: Write succeeded", format)
		}
		neg, _ := NewEdgeListEncoder(&bytes.Buffer{}, format, 1)
		if err := neg.Write([]graph.Edge{{U: -1, V: 0}}); err == nil {
			t.Fatalf("%s: a negative id was written", format)
		}
	}
	if _, err := NewEdgeListEncoder(&bytes.Buffer{}, "csv", 0); err == nil {
		t.Fatal("unknown format accepted")
	}
}
