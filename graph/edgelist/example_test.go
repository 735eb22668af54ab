package edgelist_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// A .el file written with WriteEdgeList reads back whole with ReadEdges, and
// split between two ranks with ReadEdgesRange, whose shares concatenate to
// the whole list.
func ExampleWriteEdgeList() {
	dir, err := os.MkdirTemp("", "edgelist")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "g.el")
	err = edgelist.WriteEdgeList(path, edgelist.EdgeListText, func(yield func([]graph.Edge) error) error {
		return yield([]graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 2, V: 0}, {U: 7, V: 1}})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ef, err := edgelist.ReadEdges(path, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ef.Format, ef.Edges, ef.Vertices)
	for rank := range 2 {
		share, err := edgelist.ReadEdgesRange(path, "", rank, 2)
		fmt.Println(rank, share, err)
	}
	// Output:
	// el [{0 1} {1 2} {2 0} {7 1}] 8
	// 0 [{0 1} {1 2}] <nil>
	// 1 [{2 0} {7 1}] <nil>
}

// A stream (standard input, a pipe) has no name to say its format, so
// ReadStream is told it.
func ExampleReadStream() {
	edges, err := edgelist.ReadStream(context.Background(), strings.NewReader("# a comment\n3 4\n4 5\n"), "stdin", edgelist.EdgeFormatSNAP)
	fmt.Println(edges, err)
	// Output:
	// [{3 4} {4 5}] <nil>
}

// A weighted read hands each edge's weight beside it, exactly as a
// float32 was written; a symmetric matrix's mirrored entry carries its
// entry's weight. A file without weights is refused.
func ExampleReadWeightedEdges() {
	dir, err := os.MkdirTemp("", "edgelist")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	wel := filepath.Join(dir, "g.wel")
	mtx := filepath.Join(dir, "g.mtx")
	el := filepath.Join(dir, "g.el")
	os.WriteFile(wel, []byte("0 1 0.1\n1 2 0.75\n"), 0o644)
	os.WriteFile(mtx, []byte("%%MatrixMarket matrix coordinate integer symmetric\n3 3 1\n3 1 4\n"), 0o644)
	os.WriteFile(el, []byte("0 1\n"), 0o644)
	for _, path := range []string{wel, mtx, el} {
		ef, err := edgelist.ReadWeightedEdges(path, "")
		if err != nil {
			fmt.Println(filepath.Ext(path), errors.Is(err, edgelist.ErrUnweighted))
			continue
		}
		fmt.Println(filepath.Ext(path), ef.Edges, ef.Weights)
	}
	// Output:
	// .wel [{0 1} {1 2}] [0.1 0.75]
	// .mtx [{2 0} {0 2}] [4 4]
	// .el true
}
