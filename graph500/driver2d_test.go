package graph500

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/spmv"
)

// TestRun2DMatchesRun1D: the 2D partition, on square, non-square and
// automatic grids, searches the same keys to the same nedge and depth as the
// 1D partition, and every search validates.
func TestRun2DMatchesRun1D(t *testing.T) {
	base := testConfig(10, 6)
	want, err := Run(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	if want.Partition != "1d" || len(want.RankLoads) != 6 {
		t.Fatalf("1D run: partition %q, %d rank loads", want.Partition, len(want.RankLoads))
	}
	for _, tc := range []struct {
		ranks, r, c int
		grid        string
		exchange    spmv.Exchange
	}{
		{6, 3, 2, "3x2", spmv.ExchangeAllgather},
		{6, 2, 3, "2x3", spmv.ExchangeSieve},
		{6, 0, 0, "3x2", spmv.ExchangePacked},
		{4, 0, 0, "2x2", spmv.ExchangePush},
		{5, 0, 0, "5x1", spmv.ExchangeAllgather},
	} {
		cfg := testConfig(10, tc.ranks)
		cfg.Partition2D, cfg.GridRows, cfg.GridCols, cfg.Exchange = true, tc.r, tc.c, tc.exchange
		cfg.Codec = "auto"
		run, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if !run.Validated() || run.Partition != "2d" || run.Grid != tc.grid || len(run.RankLoads) != tc.ranks {
			t.Fatalf("%+v: validated %v, partition %q grid %q, %d loads", tc, run.Validated(), run.Partition, run.Grid, len(run.RankLoads))
		}
		checkValidationTraffic(t, run)
		for i, s := range run.Searches {
			w := want.Searches[i]
			if s.Root != w.Root || s.NEdge != w.NEdge || len(s.Levels) != len(w.Levels) {
				t.Fatalf("%+v search %d: root %d nedge %d depth %d, 1D %d %d %d", tc, i, s.Root, s.NEdge, len(s.Levels), w.Root, w.NEdge, len(w.Levels))
			}
			for l := range s.Levels {
				if s.Levels[l].Frontier != w.Levels[l].Frontier {
					t.Fatalf("%+v search %d level %d: frontier %d, 1D %d", tc, i, l, s.Levels[l].Frontier, w.Levels[l].Frontier)
				}
			}
		}
		var edges int64
		for _, l := range run.RankLoads {
			edges += l.Edges
		}
		var want1D int64
		for _, l := range want.RankLoads {
			want1D += l.Edges
		}
		if edges != want1D {
			t.Fatalf("%+v: blocks hold %d entries, the 1D CSR %d", tc, edges, want1D)
		}
	}
}

func TestRun2DTree(t *testing.T) {
	// Config.Tree receives the same tree from a 2D run as from a 1D run.
	trees := make([][]byte, 2)
	for k, twoD := range []bool{false, true} {
		cfg := testConfig(8, 4)
		cfg.Root, cfg.Partition2D = 3, twoD
		cfg.Tree = func(chunk []byte) error { trees[k] = append(trees[k], chunk...); return nil }
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(trees[0], trees[1]) || len(trees[0]) == 0 {
		t.Fatalf("2D tree differs from 1D tree")
	}
}

func TestConfigGridChecks(t *testing.T) {
	for _, tc := range []struct {
		twoD       bool
		r, c, p    int
		wantSubstr string
	}{
		{false, 2, 2, 4, "needs the 2D partition"},
		{true, 2, 0, 4, "both sides"},
		{true, 3, 2, 4, "has 6 ranks, the job has 4"},
		{true, -1, -1, 1, "both sides"},
	} {
		cfg := testConfig(6, tc.p)
		cfg.Partition2D, cfg.GridRows, cfg.GridCols = tc.twoD, tc.r, tc.c
		if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), tc.wantSubstr) {
			t.Errorf("%+v: %v", tc, err)
		}
	}
}
