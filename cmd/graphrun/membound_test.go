package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/spmv/pagerank"
)

// TestMaxEdgesPerRank: the bound splits the available memory among the
// machine's ranks at the least bytes an edge takes.
func TestMaxEdgesPerRank(t *testing.T) {
	for _, c := range []struct {
		avail      int64
		ranks      int
		least, max int64
	}{
		{8 << 30, 1, leastPlainEdgeBytes, 1 << 30},
		{8 << 30, 4, leastPlainEdgeBytes, 1 << 28},
		{8 << 30, 4, leastPackedEdgeBytes, 1 << 29},
		{8 << 30, 0, leastPlainEdgeBytes, 1 << 30}, // convert's plan: no ranks
		{4, 1, leastPlainEdgeBytes, 1},
	} {
		if got := maxEdgesPerRank(c.avail, c.ranks, c.least); got != c.max {
			t.Errorf("maxEdgesPerRank(%d, %d, %d) = %d, want %d", c.avail, c.ranks, c.least, got, c.max)
		}
	}
}

// TestTooManyEdgesIsBadInput: a small gzip that expands to more edges
// than a rank's bound ends a BFS run on 2 ranks promptly with an error
// naming the file, which both bfs and pagerank report as bad input (exit
// 2), not after allocating by the count.
func TestTooManyEdgesIsBadInput(t *testing.T) {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write(bytes.Repeat([]byte("0 1\n"), 1<<18))
	_ = w.Close()
	path := filepath.Join(t.TempDir(), "repeated.el.gz")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := edgelist.NewInput(path, "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	in.MaxEdges = 1 << 12
	cfg := graph500.FileConfig{Config: graph500.Config{Ranks: 2, Threads: 1, NumRoots: 1, Root: -1}, Input: in}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err = graph500.RunFile(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "repeated.el.gz") || !strings.Contains(err.Error(), "more than 4096 edges") {
		t.Fatalf("%v, want an error naming the file and the bound", err)
	}
	if !graph500.IsInputError(err) || !pagerank.IsInputError(err) {
		t.Errorf("%v is not bad input for bfs and pagerank (exit 2)", err)
	}
	if ctx.Err() != nil {
		t.Error("the run did not end within 5 minutes")
	}
}
