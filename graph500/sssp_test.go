package graph500

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/results"
)

// A run with kernel 3 makes one validated shortest path search per BFS
// key, on the same keys and components, the same on any rank count, and
// prints the reference's sssp lines.
func TestRunSSSP(t *testing.T) {
	var want []int64
	for _, ranks := range []int{1, 2, 3} {
		cfg := testConfig(10, ranks)
		cfg.SSSP = true
		run, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if run.SSSP == nil || len(run.SSSP.Searches) != run.NBFS() || !run.Validated() {
			t.Fatalf("ranks %d: sssp %+v, validated %v", ranks, run.SSSP, run.Validated())
		}
		var got []int64
		for i, x := range run.SSSP.Searches {
			b := run.Searches[i]
			if x.Root != b.Root || x.NEdge != b.NEdge || !x.Validated || x.Phases < 2 {
				t.Fatalf("ranks %d, search %d: sssp %+v, bfs root %d nedge %d", ranks, i, x, b.Root, b.NEdge)
			}
			// Requests are not compared: a rank drops those to its own
			// vertices that cannot lower their distance, which depends on
			// the partition.
			got = append(got, x.Root, x.NEdge, int64(x.Buckets), int64(x.Phases))
		}
		if want == nil {
			want = got
		} else if !slices.Equal(got, want) {
			t.Fatalf("ranks %d: roots, nedge, buckets, phases %v, want %v", ranks, got, want)
		}
		if ranks > 1 && run.SSSP.CommBytes == 0 {
			t.Fatalf("ranks %d: no SSSP traffic counted", ranks)
		}
		var b strings.Builder
		if err := run.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{"sssp min_time:", "sssp harmonic_mean_TEPS:     !  ", "sssp stddev_validate:"} {
			if !strings.Contains(b.String(), "\n"+l) {
				t.Fatalf("ranks %d: no %q line in\n%s", ranks, l, b.String())
			}
		}
	}
}

// On the 2D grids kernel 3 makes the 1D run's searches: the same keys,
// components, buckets and phases, every search validated over the blocks,
// and the first search's tree, distances and parents, byte for byte the
// 1D one's.
func TestRunSSSP2DEquals1D(t *testing.T) {
	tree := func(cfg *Config) *strings.Builder {
		var b strings.Builder
		cfg.Tree = func(chunk []byte) error { b.Write(chunk); return nil }
		return &b
	}
	summary := func(run *results.Graph500Run) []int64 {
		var got []int64
		for _, x := range run.SSSP.Searches {
			got = append(got, x.Root, x.NEdge, int64(x.Buckets), int64(x.Phases))
		}
		return got
	}
	cfg := testConfig(10, 1)
	cfg.SSSP, cfg.NumRoots = true, 4
	wantTree := tree(&cfg)
	one, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := summary(one)
	for _, rc := range [][2]int{{1, 1}, {2, 1}, {1, 2}, {2, 2}, {2, 3}} {
		cfg := testConfig(10, rc[0]*rc[1])
		cfg.SSSP, cfg.NumRoots, cfg.Partition2D, cfg.GridRows, cfg.GridCols = true, 4, true, rc[0], rc[1]
		if rc[0] == 2 && rc[1] == 2 {
			cfg.Codec = "auto" // compact requests
		}
		got := tree(&cfg)
		run, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("grid %dx%d: %v", rc[0], rc[1], err)
		}
		if run.Partition != "2d" || run.SSSP == nil || !run.Validated() || len(run.SSSP.Searches) != 4 {
			t.Fatalf("grid %dx%d: partition %s, sssp %+v, validated %v", rc[0], rc[1], run.Partition, run.SSSP, run.Validated())
		}
		if s := summary(run); !slices.Equal(s, want) {
			t.Fatalf("grid %dx%d: roots, nedge, buckets, phases %v, 1D %v", rc[0], rc[1], s, want)
		}
		if got.String() != wantTree.String() || got.Len() == 0 {
			t.Fatalf("grid %dx%d: the first search's tree differs from the 1D one's", rc[0], rc[1])
		}
	}
}

// Delta overrides the bucket width and is reported; the searches agree
// with the default's on the components.
func TestRunSSSPDelta(t *testing.T) {
	cfg := testConfig(9, 2)
	cfg.SSSP, cfg.Delta, cfg.NumRoots = true, 0.25, 4
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.SSSP.Delta != 0.25 || !run.Validated() {
		t.Fatalf("delta %v, validated %v", run.SSSP.Delta, run.Validated())
	}
}

// The kernel 3 fields are checked, naming the field.
func TestSSSPConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*Config)
	}{
		{"Delta", func(c *Config) { c.Delta = 0.5 }},
		{"Delta", func(c *Config) { c.SSSP, c.Delta = true, -1 }},
		{"BlocksPerRank", func(c *Config) { c.SSSP, c.Partition2D, c.BlocksPerRank = true, true, 2 }},
	} {
		cfg := testConfig(8, 4)
		tc.edit(&cfg)
		if err := cfg.Check(); fielderr.Field(err) != tc.field {
			t.Errorf("%+v: got %v, want an error of %s", cfg, err, tc.field)
		}
	}
	// A file's run searches its undirected view; unit weights and a
	// bucket width need the searches.
	for _, tc := range []struct {
		field string
		edit  func(*FileConfig)
	}{
		{"Directed", func(c *FileConfig) { c.SSSP, c.Directed = true, true }},
		{"UnitWeights", func(c *FileConfig) { c.UnitWeights = true }},
		{"Delta", func(c *FileConfig) { c.Delta = 0.5 }},
		{"", func(c *FileConfig) { c.SSSP, c.UnitWeights, c.Delta = true, true, 0.5 }},
	} {
		fc := FileConfig{Config: testConfig(8, 1)}
		tc.edit(&fc)
		if err := fc.CheckSettings(); fielderr.Field(err) != tc.field || (tc.field == "") != (err == nil) {
			t.Errorf("%+v: got %v, want an error of %q", fc, err, tc.field)
		}
	}
}

// The memory model counts kernel 3's weights, rows and requests, on the
// 1D rows and on the 2D grid.
func TestMemoryCountsSSSP(t *testing.T) {
	for _, mc := range []MemoryConfig{
		{Scale: 20, EdgeFactor: 16, Ranks: 2, Validate: true},
		{Scale: 20, EdgeFactor: 16, Ranks: 4, Validate: true, Partition2D: true},
	} {
		bfsOnly, err := EstimateMemory(mc)
		if err != nil {
			t.Fatal(err)
		}
		mc.SSSP = true
		both, err := EstimateMemory(mc)
		if err != nil {
			t.Fatal(err)
		}
		// Kernel 3 runs after the BFS's state is freed; it holds at least
		// the weights (4 bytes per half-edge) and its requests (12 per
		// tuple) of the rank's tuples, in place of the BFS's state (below
		// 24 bytes per owned vertex with the ghosts and maps).
		tuples, vertices := int64(16<<20)/int64(mc.Ranks), int64(1<<20)/int64(mc.Ranks)
		if extra := both.Searches - bfsOnly.Searches; extra < (4*2+12)*tuples-24*vertices {
			t.Errorf("2D %v: kernel 3 adds %d bytes per rank, less than its weights and requests", mc.Partition2D, extra)
		}
	}
}

// With a frontier codec the requests travel compact: the same searches in
// fewer bytes.
func TestRunSSSPCompactRequests(t *testing.T) {
	var runs [2]*results.Graph500Run
	for i, codec := range []string{"raw", "auto"} {
		cfg := testConfig(10, 3)
		cfg.SSSP, cfg.Codec, cfg.NumRoots = true, codec, 4
		run, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !run.Validated() {
			t.Fatalf("codec %s: not validated", codec)
		}
		runs[i] = run
	}
	for i, x := range runs[1].SSSP.Searches {
		y := runs[0].SSSP.Searches[i]
		if x.NEdge != y.NEdge || x.Phases != y.Phases || x.Buckets != y.Buckets {
			t.Fatalf("search %d: compact %+v, fixed %+v", i, x, y)
		}
	}
	if c, f := runs[1].SSSP.CommBytes, runs[0].SSSP.CommBytes; c >= f {
		t.Errorf("compact requests sent %d bytes, fixed ones %d", c, f)
	}
}
