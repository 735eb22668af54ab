package graph500

import (
	"testing"

	"github.com/graphrun/graphrun/spmv"
)

// TestMemoryEstimateBlocks: with k blocks per rank the estimate grows as
// the measured peaks do (measured 2026-11-24: scale 18 on 16 in-process ranks, validated, sieve, 121–125 MB
// with one block per rank, 213–223 MB with 4, 723–746 MB with 16, i.e.
// 1.8× and 6×), one block per rank is the plain 2D estimate, and 1D
// ignores the setting.
func TestMemoryEstimateBlocks(t *testing.T) {
	cfg := MemoryConfig{Scale: 18, EdgeFactor: 16, Ranks: 16, Processes: 1, Partition2D: true,
		Exchange: spmv.ExchangeSieve, Validate: true}
	estimate := func(k int) int64 {
		c := cfg
		c.BlocksPerRank = k
		e, err := EstimateMemory(c)
		if err != nil {
			t.Fatal(err)
		}
		return e.Machine
	}
	one := estimate(1)
	if zero := estimate(0); zero != one {
		t.Fatalf("0 blocks per rank: %d bytes, 1: %d", zero, one)
	}
	for _, m := range []struct {
		k        int
		measured float64 // peak with k blocks per rank / peak with one
	}{{4, 1.8}, {16, 6.0}} {
		got := float64(estimate(m.k)) / float64(one)
		if got < 0.75*m.measured || got > 1.25*m.measured {
			t.Errorf("%d blocks per rank: estimate %.2f× one block per rank's, measured %.1f×", m.k, got, m.measured)
		}
	}
	// The estimate of k blocks on p ranks is that of k·p ranks of one block
	// each, k per rank.
	many := cfg
	many.Ranks, many.LocalRanks = 64, 64
	e64, err := EstimateMemory(many)
	if err != nil {
		t.Fatal(err)
	}
	if e64.Machine != estimate(4) {
		t.Fatalf("4 blocks on 16 ranks: %d bytes, 64 ranks: %d", estimate(4), e64.Machine)
	}
	oneD := MemoryConfig{Scale: 18, EdgeFactor: 16, Ranks: 16, Validate: true}
	a, _ := EstimateMemory(oneD)
	oneD.BlocksPerRank = 4
	b, _ := EstimateMemory(oneD)
	if a != b {
		t.Fatalf("1D with 4 blocks per rank: %+v, without %+v", b, a)
	}
	if _, err := EstimateMemory(MemoryConfig{Scale: 18, EdgeFactor: 16, Ranks: 16, Partition2D: true, BlocksPerRank: -1}); err == nil {
		t.Fatal("-1 blocks per rank: no error")
	}
}

// TestRunMemoryFused: a run whose blocks run fused is estimated as one
// block per rank (its processes peak as one block per rank's do
// on the emulated cluster); unfused and round-robin blocks as
// BlocksPerRank.
func TestRunMemoryFused(t *testing.T) {
	cfg := testConfig(18, 16)
	cfg.Partition2D, cfg.BlocksPerRank = true, 4
	for _, c := range []struct {
		placement Placement
		unfused   bool
		want      int
	}{{PlaceLSHS, false, 1}, {PlaceLSHS, true, 4}, {PlaceRoundRobin, false, 4}} {
		cfg.Placement, cfg.Unfused = c.placement, c.unfused
		if got := runMemoryConfig(cfg, 16, 16, 16).BlocksPerRank; got != c.want {
			t.Errorf("%s, unfused %v: estimated as %d blocks per rank, want %d", c.placement, c.unfused, got, c.want)
		}
	}
	cfg.Placement, cfg.Unfused, cfg.Graph.Scale = PlaceLSHS, false, 9 // pieces of 64 vertices: not fusable
	if got := runMemoryConfig(cfg, 16, 16, 16).BlocksPerRank; got != 4 {
		t.Errorf("scale 9: estimated as %d blocks per rank, want 4", got)
	}
}
