package graph500

import (
	"testing"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// TestKroneckerParams: scale and edgefactor out of range, or whose bytes
// overflow, name their field.
func TestKroneckerParams(t *testing.T) {
	p, err := KroneckerParams(10, 16, 7, true)
	if err != nil || p.Scale != 10 || p.EdgeFactor != 16 || p.Seed != 7 || !p.Unpermuted {
		t.Fatalf("KroneckerParams(10, 16, 7, true) = %+v, %v", p, err)
	}
	for _, tc := range []struct {
		scale, edgefactor int
		field             string
	}{
		{0, 16, "Scale"}, {kronecker.MaxScale + 1, 16, "Scale"}, {10, 0, "EdgeFactor"}, {30, 1 << 40, "EdgeFactor"},
	} {
		if _, err := KroneckerParams(tc.scale, tc.edgefactor, 1, false); fielderr.Field(err) != tc.field {
			t.Errorf("KroneckerParams(%d, %d): %v, want an error of %s", tc.scale, tc.edgefactor, err, tc.field)
		}
	}
}

// TestConfigNamesTheFieldAtFault: every invalid value or contradiction
// between the fields of a run is refused naming the Go field.
func TestConfigNamesTheFieldAtFault(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"defaults", func(*Config) {}, ""},
		{"one chosen root", func(c *Config) { c.Root, c.RootSet = 3, true }, ""},
		{"no ranks", func(c *Config) { c.Ranks = 0 }, "Ranks"},
		{"no threads", func(c *Config) { c.Threads = 0 }, "Threads"},
		{"unknown codec", func(c *Config) { c.Codec = "lz9" }, "Codec"},
		{"negative blocks", func(c *Config) { c.BlocksPerRank = -1 }, "BlocksPerRank"},
		{"blocks in 1D", func(c *Config) { c.BlocksPerRank = 2 }, "BlocksPerRank"},
		{"a billion blocks", func(c *Config) { c.Partition2D, c.BlocksPerRank = true, 1_000_000_000 }, "BlocksPerRank"},
		{"unfused one block", func(c *Config) { c.Partition2D, c.Unfused = true, true }, "Unfused"},
		{"unfused round robin", func(c *Config) {
			c.Partition2D, c.BlocksPerRank, c.Placement, c.Unfused = true, 2, PlaceRoundRobin, true
		}, "Unfused"},
		{"unknown placement", func(c *Config) { c.Placement = 7 }, "Placement"},
		{"grid in 1D", func(c *Config) { c.GridRows, c.GridCols = 2, 2 }, "GridRows"},
		{"one side of a grid", func(c *Config) { c.Partition2D, c.GridRows = true, 4 }, "GridRows"},
		{"grid of other ranks", func(c *Config) { c.Partition2D, c.GridRows, c.GridCols = true, 3, 3 }, "GridRows"},
		{"no roots", func(c *Config) { c.NumRoots = 0 }, "NumRoots"},
		{"compressed 1D", func(c *Config) { c.Compress = true }, ""},
		{"compressed 2D", func(c *Config) { c.Compress, c.Partition2D = true, true }, "Compress"},
		{"root out of the graph", func(c *Config) { c.Root, c.RootSet = 256, true }, "Root"},
		{"negative chosen root", func(c *Config) { c.Root, c.RootSet = -1, true }, "Root"},
	} {
		cfg := testConfig(8, 4)
		tc.edit(&cfg)
		if got := fielderr.Field(cfg.Check()); got != tc.field {
			t.Errorf("%s: %v names %q, want %q", tc.name, cfg.Check(), got, tc.field)
		}
	}
}

// TestFileConfigNamesTheFieldAtFault: a run on an edge list has no fused
// blocks, searches a directed graph in 1D, and refuses a negative chosen
// root, which a Kronecker run's check would take as out of its range; its
// settings check without the input.
func TestFileConfigNamesTheFieldAtFault(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*FileConfig)
		field string
	}{
		{"defaults", func(*FileConfig) {}, ""},
		{"any chosen root", func(c *FileConfig) { c.Root, c.RootSet = 1<<40, true }, ""},
		{"unfused", func(c *FileConfig) { c.Partition2D, c.BlocksPerRank, c.Unfused = true, 4, true }, "Unfused"},
		{"directed 2D", func(c *FileConfig) { c.Directed, c.Partition2D = true, true }, "Partition2D"},
		{"directed compressed", func(c *FileConfig) { c.Directed, c.Compress = true, true }, "Compress"},
		{"negative chosen root", func(c *FileConfig) { c.Root, c.RootSet = -2, true }, "Root"},
		{"no roots", func(c *FileConfig) { c.NumRoots = 0 }, "NumRoots"},
	} {
		cfg := FileConfig{Config: Config{Ranks: 2, Threads: 1, NumRoots: DefaultRoots, Root: -1}}
		tc.edit(&cfg)
		if got := fielderr.Field(cfg.CheckSettings()); got != tc.field {
			t.Errorf("%s: %v names %q, want %q", tc.name, cfg.CheckSettings(), got, tc.field)
		}
	}
	cfg := FileConfig{Config: Config{Ranks: 1, Threads: 1, NumRoots: 1, Root: -1}}
	if got := fielderr.Field(cfg.Check()); got != "Input" {
		t.Errorf("no input: %v", cfg.Check())
	}
	cfg.Input = &edgelist.Input{}
	if err := cfg.Check(); err != nil {
		t.Errorf("with an input: %v", err)
	}
}
