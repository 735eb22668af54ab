package pagerank

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/internal/fielderr"
)

// measuredPeaks are peak resident set sizes (KiB) of `pagerank --kron S
// --ranks R --iterations 1` on 2026-11-28 (tuples as directed edges; one
// rank with the matrix built in the fused order).
var measuredPeaks = []struct{ scale, ranks, kib int }{
	{18, 1, 61740}, {20, 1, 176300}, {22, 1, 640704},
	{18, 4, 126868}, {20, 4, 407356}, {22, 4, 1526948}, {24, 4, 5144284},
}

// measuredFiles are the peaks (KiB) of `pagerank kS.el --iterations 1` on
// the text files `graphrun generate -s S` writes (S = 18, 20, 22), one
// rank, 2026-11-28: the tuples read and the vertices that occur.
var measuredFiles = []struct{ edges, vertices, kib int64 }{
	{4194304, 173878, 60724}, {16777216, 646177, 177656}, {67108864, 2396020, 640392},
}

// measuredWeighted are those peaks with the generator's weights (weights
// on), one rank, --iterations 3, 2026-11-28.
var measuredWeighted = []struct{ scale, kib int }{{18, 126816}, {20, 453700}}

// TestEstimateMemoryWithinMeasured: the model is within ±25 % of the
// measured peaks, grows with the scale, the ranks and Undirected, and
// refuses what it cannot count.
func TestEstimateMemoryWithinMeasured(t *testing.T) {
	for _, m := range measuredPeaks {
		est, err := EstimateMemory(MemoryConfig{Scale: m.scale, EdgeFactor: 16, Ranks: m.ranks})
		if err != nil {
			t.Fatal(err)
		}
		if r := float64(est) / float64(m.kib<<10); r < 0.75 || r > 1.25 {
			t.Errorf("scale %d, %d ranks: estimate %d bytes is %.2f× the measured peak", m.scale, m.ranks, est, r)
		}
	}
	for _, m := range measuredWeighted {
		est, err := EstimateMemory(MemoryConfig{Scale: m.scale, EdgeFactor: 16, Ranks: 1, Weighted: true})
		if err != nil {
			t.Fatal(err)
		}
		if r := float64(est) / float64(m.kib<<10); r < 0.75 || r > 1.25 {
			t.Errorf("scale %d weighted: estimate %d bytes is %.2f× the measured peak", m.scale, est, r)
		}
	}
	for _, m := range measuredFiles {
		est, err := EstimateMemory(MemoryConfig{Edges: m.edges, Vertices: m.vertices, Ranks: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r := float64(est) / float64(m.kib<<10); r < 0.75 || r > 1.25 {
			t.Errorf("%d edges of %d vertices: estimate %d bytes is %.2f× the measured peak", m.edges, m.vertices, est, r)
		}
	}
	small, _ := EstimateMemory(MemoryConfig{Scale: 20, EdgeFactor: 16, Ranks: 2})
	und, _ := EstimateMemory(MemoryConfig{Scale: 20, EdgeFactor: 16, Ranks: 2, Undirected: true})
	procs, _ := EstimateMemory(MemoryConfig{Scale: 20, EdgeFactor: 16, Ranks: 2, Processes: 2})
	if !(und > small && procs > small) {
		t.Errorf("estimates %d, undirected %d, in 2 processes %d", small, und, procs)
	}
	for _, bad := range []MemoryConfig{{Scale: 0, EdgeFactor: 16, Ranks: 1}, {Scale: 20, EdgeFactor: 16}, {Scale: 41, EdgeFactor: 16, Ranks: 1},
		{Edges: 100, Vertices: 10, Ranks: 2}, {Edges: 100, Ranks: 1}, {Edges: 100, Vertices: 10, Ranks: 1, Weighted: true}} {
		if _, err := EstimateMemory(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestCheckMemory: a run that does not fit is refused naming Kron and the
// largest scale that fits, which does fit; force lets it run; an unknown
// amount of memory lets it run; an edge list is not guarded.
func TestCheckMemory(t *testing.T) {
	const avail = 8 << 30
	have := func() (int64, error) { return avail, nil }
	cfg := MemoryConfig{Scale: 30, EdgeFactor: 16, Ranks: 1}
	err := checkMemoryIn(cfg, false, have)
	best := LargestScale(avail, cfg)
	if fielderr.Field(err) != "Kron" || best < 20 || best >= 30 || !strings.Contains(err.Error(), "the largest scale that fits is "+strconv.Itoa(best)) {
		t.Fatalf("scale 30 in 8 GiB: %v (largest %d)", err, best)
	}
	cfg.Scale = best
	if err := checkMemoryIn(cfg, false, have); err != nil {
		t.Errorf("the largest scale is refused: %v", err)
	}
	cfg.Scale = 30
	if err := checkMemoryIn(cfg, true, have); err != nil {
		t.Errorf("forced: %v", err)
	}
	if err := checkMemoryIn(cfg, false, func() (int64, error) { return 0, errors.New("unknown") }); err != nil {
		t.Errorf("unknown memory: %v", err)
	}
	if err := pagerankDefaults().CheckMemory(1, 1, 0, false); err != nil {
		t.Errorf("an edge list: %v", err)
	}
	if err := with(pagerankDefaults("Kron"), func(s *JobConfig) { s.Kron = 40 }).CheckMemory(1, 1, 0, false); fielderr.Field(err) != "Kron" {
		t.Errorf("kron 40: %v", err)
	}
}
