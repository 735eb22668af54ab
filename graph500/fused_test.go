package graph500

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv"
)

// TestFusedSameTrees: LSHS's symmetric layouts run fused (one block per rank
// of the renumbered graph) write the 1D engine's tree in the generator's
// ids and validate, on 1, 4 and 16 ranks with 4 blocks each (square
// grids) and on 2 and 8 (2x1 and 4x2 processes), permuted and
// unpermuted, with every exchange; the report names the groups, and
// Unfused runs the same layout's blocks one by one.
func TestFusedSameTrees(t *testing.T) {
	for _, unpermuted := range []bool{false, true} {
		tree := func(cfg Config) ([]byte, *results.Graph500Run) {
			t.Helper()
			var out []byte
			cfg.Root = 3
			cfg.Graph.Unpermuted = unpermuted
			cfg.Tree = func(chunk []byte) error { out = append(out, chunk...); return nil }
			run, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !run.Validated() || len(out) == 0 {
				t.Fatalf("%d ranks: validated %v, %d tree bytes", cfg.Ranks, run.Validated(), len(out))
			}
			return out, run
		}
		want, _ := tree(testConfig(12, 1))
		for k, p := range []int{1, 4, 16, 2, 8} {
			for _, unfused := range []bool{false, true} {
				name := fmt.Sprintf("unpermuted=%v/p=%d/unfused=%v", unpermuted, p, unfused)
				cfg := testConfig(12, p)
				cfg.Partition2D, cfg.BlocksPerRank, cfg.Placement, cfg.Unfused = true, 4, PlaceLSHS, unfused
				cfg.Exchange = []spmv.Exchange{spmv.ExchangeAllgather, spmv.ExchangeSieve, spmv.ExchangePacked}[k%3]
				got, run := tree(cfg)
				if !slices.Equal(got, want) {
					gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
					for i := range min(len(gl), len(wl)) {
						if gl[i] != wl[i] {
							t.Logf("line %d: got %q want %q", i, gl[i], wl[i])
							break
						}
					}
					t.Fatalf("%s: the tree differs from the 1D engine's (fused %q)", name, run.Fused)
				}
				groups := strings.Fields(run.Fused)
				if unfused != (run.Fused == "") || (!unfused && len(groups) != []int{1, 2, 4, 1, 2}[k]) {
					t.Fatalf("%s: fused %q", name, run.Fused)
				}
				if run.BlocksPerRank != 4 || run.Placement != "lshs" || len(run.RankLoads) != p {
					t.Fatalf("%s: %d blocks per rank, placement %q, %d rank loads", name, run.BlocksPerRank, run.Placement, len(run.RankLoads))
				}
				for r, l := range run.RankLoads {
					if l.Blocks != 4 {
						t.Fatalf("%s: rank %d holds %d blocks", name, r, l.Blocks)
					}
				}
			}
		}
	}
}

// TestFusedSameKeys: a fused multi-key run searches the keys of the 1D run,
// reports them in the generator's ids, and finds the same nedge per search.
func TestFusedSameKeys(t *testing.T) {
	base := testConfig(12, 4)
	base.Graph.Unpermuted = true
	want, err := Run(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	cfg := base
	cfg.Ranks = 16
	cfg.Partition2D, cfg.BlocksPerRank, cfg.Placement = true, 4, PlaceLSHS
	got, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got.Fused == "" || got.Grid != "8x8" || !got.Validated() || len(got.Searches) != len(want.Searches) {
		t.Fatalf("fused %q, grid %s, validated %v, %d searches (want %d)", got.Fused, got.Grid, got.Validated(), len(got.Searches), len(want.Searches))
	}
	for i, s := range got.Searches {
		if w := want.Searches[i]; s.Root != w.Root || s.NEdge != w.NEdge {
			t.Fatalf("search %d: root %d nedge %d, want root %d nedge %d", i, s.Root, s.NEdge, w.Root, w.NEdge)
		}
	}
}

// TestFusable: fusing needs LSHS, a block grid that refines the most
// square process grid, and equal vertex pieces.
func TestFusable(t *testing.T) {
	grid := func(scale, r, c int) partition.Grid {
		g, err := partition.NewGrid(int64(1)<<scale, r, c)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	lshs, rr, unfused := Config{Placement: PlaceLSHS}, Config{Placement: PlaceRoundRobin}, Config{Placement: PlaceLSHS, Unfused: true}
	for _, c := range []struct {
		name   string
		cfg    Config
		blocks partition.Grid
		p      int
		want   bool
	}{
		{"8x8 on 16", lshs, grid(12, 8, 8), 16, true},
		{"round-robin", rr, grid(12, 8, 8), 16, false},
		{"unfused", unfused, grid(12, 8, 8), 16, false},
		{"8x4 on 8 (4x2)", lshs, grid(12, 8, 4), 8, true},
		{"4x3 on 3 (3x1)", lshs, grid(12, 4, 3), 3, false},
		{"segments of 64-vertex pieces", lshs, grid(9, 8, 8), 16, false},
		{"4x4 on 4", lshs, grid(12, 4, 4), 4, true},
		{"8x8 on 4", lshs, grid(14, 8, 8), 4, true},
	} {
		if _, got := fusable(c.cfg, c.blocks, c.p); got != c.want {
			t.Errorf("%s: fusable %v, want %v", c.name, got, c.want)
		}
	}
}
