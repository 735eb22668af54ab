package graph

import (
	"bytes"
	"slices"
	"testing"
)

// TestEdgeListEncoder: what the encoder writes decodes to the same tuples,
// in both formats, and a wrong count fails.
func TestEdgeListEncoder(t *testing.T) {
	edges := []Edge{{0, 1}, {5, 5}, {1 << 40, 3}, {2, 0}}
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
		if err := neg.Write([]Edge{{-1, 0}}); err == nil {
			t.Fatalf("%s: a negative id was written", format)
		}
	}
	if _, err := NewEdgeListEncoder(&bytes.Buffer{}, "csv", 0); err == nil {
		t.Fatal("unknown format accepted")
	}
}
