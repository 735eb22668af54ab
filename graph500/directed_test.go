package graph500

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/internal/testgraph"
)

// TestFileBFSDirected checks the directed search on the Slashdot graph
// (directed) and on a small graph with a vertex that has in-edges only:
// every vertex's level is the serial directed BFS's, unreached ones
// included, the tree is the same on 1, 3 and 4 ranks and validates, and
// nedge is the reached vertices' out-tuples.
func TestFileBFSDirected(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "d.txt")
	// 1→2→3, 3→1 (a cycle), 2→4 (4 has no out-edge), 5→1 (5 unreachable from 1), 2→4 twice, 3→3.
	if err := os.WriteFile(small, []byte("1 2\n2 3\n3 1\n2 4\n5 1\n2 4\n3 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		root  int64
		nedge int64
	}{{small, 1, 5}, {testgraph.RealFile(t, "soc-Slashdot0902.txt.gz"), 0, 870161}} {
		serial := serialBFS(t, c.path, 0, c.root, true)
		var want []treeLine
		for _, ranks := range []int{1, 3, 4} {
			cfg := fileConfig(t, c.path, ranks, c.root)
			cfg.Directed = true
			var buf bytes.Buffer
			cfg.Tree = func(b []byte) error { buf.Write(b); return nil }
			run, err := RunFile(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !run.Validated() || run.Searches[0].NEdge != c.nedge || run.Exchange != "push" {
				t.Fatalf("%s, %d ranks: validated %v, nedge %d (want %d), exchange %s", c.path, ranks, run.Validated(), run.Searches[0].NEdge, c.nedge, run.Exchange)
			}
			tree := parseTree(t, buf.Bytes())
			for _, l := range tree {
				if sl, ok := serial[l.v]; ok != (l.level >= 0) || ok && sl != l.level {
					t.Fatalf("%s: vertex %d at level %d, serial %d (reached %v)", c.path, l.v, l.level, sl, ok)
				}
			}
			if want == nil {
				want = tree
			} else if !slices.Equal(tree, want) {
				t.Fatalf("%s: the tree on %d ranks differs from 1 rank's", c.path, ranks)
			}
		}
	}
	// The sampled keys validate too; the 2D partition is refused.
	cfg := fileConfig(t, small, 2, -1)
	cfg.Directed = true
	if run, err := RunFile(context.Background(), cfg); err != nil || !run.Validated() || len(run.Searches) != 4 {
		t.Fatalf("sampled: %v, %v", run, err)
	}
	cfg.Partition2D = true
	if _, err := RunFile(context.Background(), cfg); err == nil {
		t.Error("a directed 2D run was accepted")
	}
}
