package graph500

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv"
	"github.com/graphrun/graphrun/spmv/bfs"
)

// TestBlocksPerRankSameTrees: k blocks per rank, placed by LSHS or round
// robin, write the same tree as the 1D engine and validate, on 1 to 16
// in-process ranks, on a permuted and an unpermuted (skewed) graph; the
// per-rank loads add up to the blocks' and the 1D run's entries.
func TestBlocksPerRankSameTrees(t *testing.T) {
	ranks := []int{1, 2, 3, 4, 7, 16}
	if testing.Short() {
		ranks = []int{1, 3, 16}
	}
	for _, unpermuted := range []bool{false, true} {
		tree := func(cfg Config) ([]byte, int64) {
			t.Helper()
			var out []byte
			cfg.Root = 1
			cfg.Graph.Unpermuted = unpermuted
			cfg.Tree = func(chunk []byte) error { out = append(out, chunk...); return nil }
			run, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !run.Validated() || len(out) == 0 || run.Unpermuted != unpermuted {
				t.Fatalf("%d ranks, %d blocks per rank: validated %v, %d tree bytes, unpermuted %v", cfg.Ranks, cfg.BlocksPerRank, run.Validated(), len(out), run.Unpermuted)
			}
			var edges int64
			for _, l := range run.RankLoads {
				edges += l.Edges
			}
			if len(run.RankLoads) != cfg.Ranks {
				t.Fatalf("%d ranks: %d rank loads", cfg.Ranks, len(run.RankLoads))
			}
			return out, edges
		}
		want, wantEdges := tree(testConfig(9, 1))
		for _, p := range ranks {
			for _, k := range []int{2, 4} {
				for _, pl := range []Placement{PlaceLSHS, PlaceRoundRobin} {
					name := fmt.Sprintf("unpermuted=%v/p=%d/k=%d/%s", unpermuted, p, k, pl)
					cfg := testConfig(9, p)
					cfg.Partition2D, cfg.BlocksPerRank, cfg.Placement = true, k, pl
					cfg.Exchange = []spmv.Exchange{spmv.ExchangeAllgather, spmv.ExchangeSieve, spmv.ExchangePacked}[(p+k)%3]
					got, edges := tree(cfg)
					if !slices.Equal(got, want) {
						t.Fatalf("%s: the tree differs from the 1D engine's", name)
					}
					if edges != wantEdges {
						t.Fatalf("%s: blocks hold %d entries, the 1D CSR %d", name, edges, wantEdges)
					}
				}
			}
		}
	}
}

// TestBlocksPerRankRun: a multi-root run reports its placement, the block
// grid and per-rank blocks, busy time and edges scanned.
func TestBlocksPerRankRun(t *testing.T) {
	cfg := testConfig(10, 4)
	cfg.NumRoots = 3
	cfg.Partition2D, cfg.BlocksPerRank, cfg.Placement = true, 4, PlaceLSHS
	cfg.Graph.Unpermuted = true
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Validated() || run.NumRanks != 4 || run.BlocksPerRank != 4 || run.Placement != "lshs" || run.Grid != "4x4" {
		t.Fatalf("validated %v, %d ranks, %d blocks per rank, placement %q, grid %q", run.Validated(), run.NumRanks, run.BlocksPerRank, run.Placement, run.Grid)
	}
	blocks := 0
	for r, l := range run.RankLoads {
		blocks += l.Blocks
		if l.Blocks < 1 || l.EdgesScanned <= 0 || l.BusySeconds <= 0 {
			t.Fatalf("rank %d: %d blocks, %d edges scanned, %g s busy", r, l.Blocks, l.EdgesScanned, l.BusySeconds)
		}
	}
	if blocks != 16 {
		t.Fatalf("%d blocks over the ranks, want 16", blocks)
	}
}

func TestBlocksPerRankChecks(t *testing.T) {
	for _, tc := range []struct {
		twoD       bool
		k, r, c    int
		pl         Placement
		wantSubstr string
	}{
		{false, 2, 0, 0, PlaceLSHS, "need the 2D partition"},
		{true, -1, 0, 0, PlaceLSHS, "BlocksPerRank: -1 is less than 1"},
		{true, 2, 2, 2, PlaceLSHS, "has 4 ranks, the job has 8"},
		{true, 2, 0, 0, Placement(7), "unknown placement"},
	} {
		cfg := testConfig(6, 4)
		cfg.Partition2D, cfg.BlocksPerRank, cfg.GridRows, cfg.GridCols, cfg.Placement = tc.twoD, tc.k, tc.r, tc.c, tc.pl
		if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), tc.wantSubstr) {
			t.Errorf("%+v: %v", tc, err)
		}
	}
	if _, err := ParsePlacement("lpt"); err == nil {
		t.Error("ParsePlacement accepted lpt")
	}
	for _, pl := range []Placement{PlaceLSHS, PlaceRoundRobin} {
		if got, err := ParsePlacement(pl.String()); err != nil || got != pl {
			t.Errorf("ParsePlacement(%q) = %v, %v", pl, got, err)
		}
	}
}

// A process's busy time is, per search and level, its slowest block's; its
// CPU time per search the largest a block measured.
func TestBlockBusySlowestPerLevel(t *testing.T) {
	steps := func(ms ...int) *bfs.Result {
		res := &bfs.Result{}
		for _, m := range ms {
			d := time.Duration(m) * time.Millisecond
			res.Steps = append(res.Steps, spmv.LevelStats{Traverse: d, Compress: d / 2})
		}
		return res
	}
	var b blockBusy
	b.record(1, steps(2), 5*time.Millisecond)
	b.record(0, steps(2, 4), 7*time.Millisecond)
	b.record(0, steps(4, 2, 6), 11*time.Millisecond)
	// search 0: max(3, 6) + max(6, 3) + 9 ms; search 1: 3 ms.
	busy, cpu := b.total()
	if want := 24 * time.Millisecond; time.Duration(busy) != want {
		t.Fatalf("busy %v, want %v", time.Duration(busy), want)
	}
	// search 0: max(7, 11) ms; search 1: 5 ms.
	if want := 16 * time.Millisecond; time.Duration(cpu) != want {
		t.Fatalf("CPU %v, want %v", time.Duration(cpu), want)
	}
}

// A block's fixed work is blockWordCost per word of its row and column
// bitmaps per exchanged level (level 0, the root's, excluded).
func TestBlockFixedWork(t *testing.T) {
	grid, err := partition.NewGrid(1<<12, 2, 4) // 8 blocks of 512 vertices
	if err != nil {
		t.Fatal(err)
	}
	run := &results.Graph500Run{Searches: []results.Search{
		{Levels: make([]results.Level, 4)}, {Levels: make([]results.Level, 3)}, {}}}
	// (3 + 2) levels × (RowSpan 4·512 + ColSpan 2·512)/64 words.
	if got, want := blockFixedWork(run, grid), int64(blockWordCost*5*(32+16)); got != want {
		t.Fatalf("fixed work %d, want %d", got, want)
	}
}
