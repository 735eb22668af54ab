package graph500

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/testgraph"
	"github.com/graphrun/graphrun/spmv"
)

// refLevels reads the level sizes of a *.bfs.txt reference answer.
func refLevels(t *testing.T, path string) []int64 {
	t.Helper()
	ref, err := testgraph.ReadBFSReference(path)
	if err != nil {
		t.Fatal(err)
	}
	return ref.LevelSizes
}

// serialBFS is the independent oracle: a plain queue BFS (testgraph.Levels)
// over the edges of path, along out-edges if directed and over the
// undirected view otherwise, keyed by the file's ids (offset added). It
// returns every reached vertex's level.
func serialBFS(t *testing.T, path string, offset, root int64, directed bool) map[int64]int32 {
	t.Helper()
	ef, err := edgelist.ReadEdges(path, "")
	if err != nil {
		t.Fatal(err)
	}
	adj := map[int64][]int64{}
	for _, e := range ef.Edges {
		u, v := e.U+offset, e.V+offset
		adj[u] = append(adj[u], v)
		if !directed {
			adj[v] = append(adj[v], u)
		}
	}
	return testgraph.Levels(adj, root)
}

// treeLine is one "vertex parent level" line of Config.Tree.
type treeLine struct {
	v, p  int64
	level int32
}

func parseTree(t *testing.T, data []byte) []treeLine {
	t.Helper()
	var out []treeLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			t.Fatalf("tree line %q: want 3 fields", sc.Text())
		}
		v, err1 := strconv.ParseInt(f[0], 10, 64)
		p, err2 := strconv.ParseInt(f[1], 10, 64)
		l, err3 := strconv.ParseInt(f[2], 10, 32)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("tree line %q: bad number", sc.Text())
		}
		out = append(out, treeLine{v, p, int32(l)})
	}
	return out
}

// levelSizes counts the reached vertices of each level of a tree.
func levelSizes(tree []treeLine) []int64 {
	var sizes []int64
	for _, l := range tree {
		if l.level < 0 {
			continue
		}
		for int(l.level) >= len(sizes) {
			sizes = append(sizes, 0)
		}
		sizes[l.level]++
	}
	return sizes
}

func fileConfig(t *testing.T, path string, ranks int, root int64) FileConfig {
	t.Helper()
	in, err := edgelist.NewInput(path, "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := FileConfig{Config: Config{Ranks: ranks, Threads: 1, NumRoots: DefaultRoots, Root: root, Validate: true}, Input: in}
	cfg.Graph.Seed = 1
	return cfg
}

// runTree runs one search from root and returns its report and tree.
func runTree(t *testing.T, cfg FileConfig) ([]treeLine, int64) {
	t.Helper()
	var buf bytes.Buffer
	cfg.Tree = func(b []byte) error { buf.Write(b); return nil }
	run, err := RunFile(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Validated() || len(run.Searches) != 1 {
		t.Fatalf("%d searches, validated %v", len(run.Searches), run.Validated())
	}
	if run.Searches[0].Root != cfg.Root {
		t.Fatalf("report names root %d, want the file's %d", run.Searches[0].Root, cfg.Root)
	}
	return parseTree(t, buf.Bytes()), run.Searches[0].NEdge
}

// TestFileBFSLevels: on both real graphs, the search from the reference's
// source gives its level sizes on 1, 3, 4 and 8 ranks, each exchange on two
// of them (spmv/bfs's tests check every exchange on every rank count), and
// every vertex's level and parent agree with an independent serial BFS (ids
// are the file's: 1-based for Matrix Market).
func TestFileBFSLevels(t *testing.T) {
	for _, c := range []struct {
		file, ref string
		offset    int64
		root      int64
	}{
		{"soc-Slashdot0902.txt.gz", "soc-Slashdot0902.bfs.txt", 0, 0},
		{"road-luxembourg-osm.mtx", "road-luxembourg-osm.bfs.txt", 1, 2},
	} {
		path := testgraph.RealFile(t, c.file)
		want := refLevels(t, testgraph.RealFile(t, c.ref))
		serial := serialBFS(t, path, c.offset, c.root, false)
		for _, run := range []struct {
			ranks int
			ex    spmv.Exchange
		}{{1, spmv.ExchangeAllgather}, {3, spmv.ExchangePacked}, {4, spmv.ExchangeAllgather}, {8, spmv.ExchangePacked}} {
			ranks, ex := run.ranks, run.ex
			cfg := fileConfig(t, path, ranks, c.root)
			cfg.Exchange = ex
			tree, _ := runTree(t, cfg)
			if got := levelSizes(tree); !slices.Equal(got, want) {
				t.Fatalf("%s, %d ranks, %v: level sizes %v, want %v", c.file, ranks, ex, got, want)
			}
			for _, l := range tree {
				sl, ok := serial[l.v]
				switch {
				case !ok:
					t.Fatalf("%s: vertex %d is not in the file's graph", c.file, l.v)
				case sl != l.level:
					t.Fatalf("%s: vertex %d at level %d, serial BFS %d", c.file, l.v, l.level, sl)
				case l.v != c.root && serial[l.p] != l.level-1:
					t.Fatalf("%s: vertex %d's parent %d is at level %d", c.file, l.v, l.p, serial[l.p])
				}
			}
			if len(tree) != len(serial) {
				t.Fatalf("%s: %d tree lines, %d vertices", c.file, len(tree), len(serial))
			}
		}
	}
}

// TestFileBFS2DSameTree checks that the 2D partition gives the 1D tree and
// edge count, with one block per rank and with several placed either way
// (the blocks built from parts of the ranks' tuples).
func TestFileBFS2DSameTree(t *testing.T) {
	path := testgraph.RealFile(t, "road-luxembourg-osm.mtx")
	one, nedge := runTree(t, fileConfig(t, path, 1, 2))
	for _, c := range []struct {
		ranks, blocks int
		placement     Placement
	}{
		{4, 1, PlaceLSHS},
		{1, 4, PlaceLSHS},
		{3, 2, PlaceRoundRobin},
		{4, 4, PlaceLSHS},
		{4, 4, PlaceRoundRobin},
	} {
		cfg := fileConfig(t, path, c.ranks, 2)
		cfg.Partition2D, cfg.BlocksPerRank, cfg.Placement = true, c.blocks, c.placement
		two, got := runTree(t, cfg)
		if !slices.Equal(one, two) || got != nedge {
			t.Fatalf("%d ranks, %d blocks per rank, %s: the 2D tree (nedge %d) differs from the 1D one (nedge %d)", c.ranks, c.blocks, c.placement, got, nedge)
		}
	}
}

// TestFileBlockWork: the LSHS pilot on a file measures the same work for
// every block however many ranks host the 16 blocks (what a block reads
// does not depend on where it lives), the work is more than the fixed
// cost, and the block counts add up to twice the tuples that are not
// self-loops.
func TestFileBlockWork(t *testing.T) {
	path := testgraph.RealFile(t, "soc-Slashdot0902.txt.gz")
	var want []int64
	for _, ranks := range []int{1, 2, 4} {
		var work, counts []int64
		var tuples int64
		err := inproc.Run(context.Background(), ranks, func(ctx context.Context, c comm.Comm) error {
			cfg := fileConfig(t, path, ranks, -1)
			cfg.Partition2D, cfg.BlocksPerRank = true, 16/ranks
			f, err := loadFile(ctx, c, &cfg)
			if err != nil {
				return err
			}
			defer f.close()
			grid, err := cfg.grid(f.n, c.Size())
			if err != nil {
				return err
			}
			n, err := blockEdges(ctx, c, f.share, grid)
			if err != nil {
				return err
			}
			w, err := fileBlockWork(ctx, c, cfg, f, grid, n)
			if c.Rank() == 0 {
				work, counts, tuples = w, n, f.tuples
			}
			return err
		})
		if err != nil {
			t.Fatalf("%d ranks: %v", ranks, err)
		}
		var entries int64
		for _, e := range counts {
			entries += e
		}
		if len(work) != 16 || entries <= 0 || entries > 2*tuples {
			t.Fatalf("%d ranks: %d blocks' work, %d entries of %d tuples", ranks, len(work), entries, tuples)
		}
		if want == nil {
			want = work
			if slices.Min(work) == slices.Max(work) {
				t.Fatalf("every block has the same work %d: no entries read counted", work[0])
			}
			continue
		}
		if !slices.Equal(work, want) {
			t.Fatalf("%d ranks: work %v, on 1 rank %v", ranks, work, want)
		}
	}
}

// TestFileBFSSampled checks the 64-key run on both real graphs (the road
// graph on the 2D partition): it validates, names the input and its
// counts, and its roots are distinct file ids (1-based for Matrix Market).
func TestFileBFSSampled(t *testing.T) {
	for _, c := range []struct {
		file             string
		vertices, tuples int64
		twoD             bool
	}{
		{"soc-Slashdot0902.txt.gz", 82168, 948464, false},
		{"road-luxembourg-osm.mtx", 114599, 119666, true}, // one tuple per stored entry
	} {
		path := testgraph.RealFile(t, c.file)
		cfg := fileConfig(t, path, 3, -1)
		cfg.Partition2D = c.twoD
		run, err := RunFile(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Searches) != DefaultRoots || !run.Validated() {
			t.Fatalf("%s: %d searches, validated %v", c.file, len(run.Searches), run.Validated())
		}
		if run.Input != path || run.Vertices != c.vertices || run.Tuples != c.tuples {
			t.Fatalf("%s: input %q, %d vertices, %d tuples", c.file, run.Input, run.Vertices, run.Tuples)
		}
		seen := map[int64]bool{}
		for _, s := range run.Searches {
			if seen[s.Root] || s.Root < cfg.Input.IDOffset || s.Root >= c.vertices+cfg.Input.IDOffset { // both graphs' ids are contiguous
				t.Fatalf("%s: root %d repeated or not a file id", c.file, s.Root)
			}
			seen[s.Root] = true
		}
	}
}

// TestFileBFSSmall checks a small graph with sparse ids: fewer keys than
// asked with a warning, a root not in the graph, a root with only a
// self-loop, and a file without edges.
func TestFileBFSSmall(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(path, []byte("# ids are sparse\n100 200\n200 300\n300 100\n7 7\n100 200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fileConfig(t, path, 2, -1)
	var warnings []string
	cfg.Warn = func(m string) { warnings = append(warnings, m) }
	run, err := RunFile(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var roots []int64
	for _, s := range run.Searches {
		roots = append(roots, s.Root)
	}
	if !slices.Equal(roots, []int64{100, 200, 300}) || len(warnings) != 1 || !run.Validated() {
		t.Fatalf("roots %v, warnings %q, validated %v", roots, warnings, run.Validated())
	}
	// The duplicate tuple counts in nedge, the self-loop elsewhere does not.
	if run.Searches[0].NEdge != 4 {
		t.Errorf("nedge %d, want 4", run.Searches[0].NEdge)
	}
	cfg = fileConfig(t, path, 3, 5)
	var ie *InputError
	if _, err := RunFile(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "root 5 is not a vertex") || !errors.As(err, &ie) {
		t.Errorf("root 5: %v", err)
	}
	cfg = fileConfig(t, path, 2, 7)
	warnings = nil
	cfg.Warn = func(m string) { warnings = append(warnings, m) }
	tree, nedge := runTree(t, cfg)
	if nedge != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], "root 7 has no edges") {
		t.Errorf("self-loop root: nedge %d, warnings %q", nedge, warnings)
	}
	want := []treeLine{{7, 7, 0}, {100, -1, -1}, {200, -1, -1}, {300, -1, -1}}
	if !slices.Equal(tree, want) {
		t.Errorf("tree %v, want %v", tree, want)
	}
	empty := filepath.Join(dir, "e.txt")
	if err := os.WriteFile(empty, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RunFile(context.Background(), fileConfig(t, empty, 2, -1)); err == nil || !errors.As(err, &ie) {
		t.Errorf("empty file: %v", err)
	}
}
