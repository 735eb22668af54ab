package graph500

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv"
)

func testConfig(scale, ranks int) Config {
	p := kronecker.DefaultParams(scale)
	return Config{Graph: p, Ranks: ranks, Threads: 2, NumRoots: 8, Root: -1, Validate: true}
}

// TestRunIsRankInvariant: the same seed gives the same keys, nedge and levels
// on any rank count and exchange, and every search validates.
func TestRunIsRankInvariant(t *testing.T) {
	var want []int64
	for _, ranks := range []int{1, 2, 3, 5} {
		for _, ex := range []spmv.Exchange{spmv.ExchangeAllgather, spmv.ExchangePush} {
			cfg := testConfig(10, ranks)
			cfg.Exchange = ex
			run, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !run.Validated() || run.NBFS() != 8 || run.NumRanks != ranks {
				t.Fatalf("ranks %d: validated %v, %d searches", ranks, run.Validated(), run.NBFS())
			}
			var got []int64
			for _, s := range run.Searches {
				got = append(got, s.Root, s.NEdge, int64(len(s.Levels)))
			}
			if want == nil {
				want = got
			} else if !slices.Equal(got, want) {
				t.Fatalf("ranks %d %v: roots/nedge/levels %v, want %v", ranks, ex, got, want)
			}
			if ranks > 1 && (run.CommBytes == 0 || run.ConstructionBytes == 0 || run.ConstructionMessages == 0) {
				t.Fatalf("ranks %d: no communication counted (searches %d B, kernel 1 %d B in %d messages)",
					ranks, run.CommBytes, run.ConstructionBytes, run.ConstructionMessages)
			}
			if ranks == 1 && run.ConstructionBytes != 0 {
				t.Fatalf("one rank: kernel 1 sent %d bytes", run.ConstructionBytes)
			}
			var top int64
			for _, l := range run.RankLoads {
				top = max(top, l.PeakMemoryBytes)
			}
			if _, err := memstat.PeakRSS(); err == nil && (run.PeakMemoryBytes <= 0 || top != run.PeakMemoryBytes || len(run.RankLoads) != ranks) {
				t.Fatalf("ranks %d: peak memory %d, rank loads %v", ranks, run.PeakMemoryBytes, run.RankLoads)
			}
			checkValidationTraffic(t, run)
		}
	}
}

func TestSampleRootsFewCandidates(t *testing.T) {
	// Scale 3, edgefactor 1: 8 tuples over 8 vertices, so fewer than 64
	// vertices qualify; every one of them is searched, with a warning.
	cfg := testConfig(3, 2)
	cfg.Graph.EdgeFactor = 1
	cfg.NumRoots = 64
	var warnings []string
	cfg.Warn = func(m string) { warnings = append(warnings, m) }
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.NBFS() >= 8 || run.NBFS() < 1 || len(warnings) != 1 || !strings.Contains(warnings[0], "searches instead of 64") {
		t.Fatalf("%d searches, warnings %q", run.NBFS(), warnings)
	}
	if !slices.IsSortedFunc(run.Searches, func(a, b results.Search) int { return int(a.Root - b.Root) }) {
		t.Fatalf("roots not in increasing order")
	}
}

func TestSampleRootsAreUniqueAndDeterministic(t *testing.T) {
	var first []int64
	for _, ranks := range []int{1, 4} {
		cfg := testConfig(12, ranks)
		cfg.NumRoots = 64
		cfg.Validate = false
		run, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var roots []int64
		seen := map[int64]bool{}
		for _, s := range run.Searches {
			if seen[s.Root] {
				t.Fatalf("root %d drawn twice", s.Root)
			}
			seen[s.Root] = true
			roots = append(roots, s.Root)
			if s.NEdge == 0 {
				t.Fatalf("root %d has no edge", s.Root)
			}
		}
		if len(roots) != 64 {
			t.Fatalf("%d roots", len(roots))
		}
		if first == nil {
			first = roots
		} else if !slices.Equal(first, roots) {
			t.Fatalf("roots differ between rank counts")
		}
	}
}

func TestRunRankFailsTogether(t *testing.T) {
	// A bad config on one rank only: all ranks must return, none hang.
	cfg := testConfig(8, 3)
	err := inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		my := cfg
		if c.Rank() == 1 {
			my.Graph.Scale = 0
		}
		_, err := RunRank(ctx, c, my)
		return err
	})
	if err == nil {
		t.Fatal("expected an error")
	}
}

func TestMemoryEstimate(t *testing.T) {
	cfg := MemoryConfig{Scale: 20, EdgeFactor: 16, Ranks: 2, Validate: true}
	e20, err := EstimateMemory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Scale = 22
	e22, err := EstimateMemory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if e22.Machine <= 3*e20.Machine || e22.Machine >= 5*e20.Machine {
		t.Fatalf("scale 20: %d bytes, scale 22: %d: not about 4×", e20.Machine, e22.Machine)
	}
	cfg.Scale = 20
	if s := LargestScale(int64(float64(e20.Machine)/GuardMargin)+1, cfg); s != 20 {
		t.Fatalf("largest scale for the scale-20 estimate is %d", s)
	}
	if s := LargestScale(1, cfg); s != 0 {
		t.Fatalf("largest scale for 1 byte is %d", s)
	}
	// One rank of 512 on a machine holds 1/512 of the edges and the whole
	// graph's maps; 2D holds more than 1D; validation and the packed sieve
	// cost memory.
	big := MemoryConfig{Scale: 33, EdgeFactor: 16, Ranks: 512, LocalRanks: 1, Processes: 1,
		Exchange: spmv.ExchangePacked, Validate: true}
	e, err := EstimateMemory(big)
	if err != nil {
		t.Fatal(err)
	}
	if e.Machine < 16<<30*17/512 || e.Machine > 24<<30 {
		t.Fatalf("scale 33 on 512 ranks: %d bytes per node", e.Machine)
	}
	for _, change := range []func(*MemoryConfig){
		func(c *MemoryConfig) { c.Partition2D = true },
		func(c *MemoryConfig) { c.Exchange = spmv.ExchangePacked },
		func(c *MemoryConfig) { c.Validate = true },
	} {
		c := MemoryConfig{Scale: 22, EdgeFactor: 16, Ranks: 4}
		base, _ := EstimateMemory(c)
		change(&c)
		more, _ := EstimateMemory(c)
		if more.Machine <= base.Machine {
			t.Fatalf("%+v: %d bytes, no more than %d", c, more.Machine, base.Machine)
		}
	}
	// Overflowing counts are an error, never a negative estimate.
	for _, c := range []MemoryConfig{
		{Scale: 14, EdgeFactor: 1000000000000000000, Ranks: 1},
		{Scale: 40, EdgeFactor: 1 << 30, Ranks: 1},
		{Scale: 62, EdgeFactor: 16, Ranks: 1},
	} {
		if e, err := EstimateMemory(c); err == nil {
			t.Errorf("%+v: estimate %d, no error", c, e.Machine)
		}
	}
	if e, err := EstimateMemory(MemoryConfig{Scale: 28, EdgeFactor: 536870912, Ranks: 1}); err != nil || e.Machine < 1<<60 {
		t.Errorf("2^57 tuples: %d bytes, %v", e.Machine, err)
	}
	if s := LargestScale(1<<62, MemoryConfig{EdgeFactor: 1000000000000000000, Ranks: 1}); s != 0 {
		t.Errorf("an edgefactor of 10^18 fits scale %d", s)
	}
}

// checkValidationTraffic: a validated run reports what its validation sent,
// per search and in total, nothing on one rank, and the per-rank figures
// add up to the total.
func checkValidationTraffic(t *testing.T, run *results.Graph500Run) {
	t.Helper()
	var bytes, messages, perRank int64
	for i, s := range run.Searches {
		if (s.ValidateBytes == 0) != (run.NumRanks == 1) || (s.ValidateMessages == 0) != (run.NumRanks == 1) {
			t.Fatalf("%d ranks, search %d: validation sent %d bytes in %d messages", run.NumRanks, i, s.ValidateBytes, s.ValidateMessages)
		}
		bytes += s.ValidateBytes
		messages += s.ValidateMessages
	}
	for _, l := range run.RankLoads {
		perRank += l.ValidateBytes
	}
	if bytes != run.ValidateBytes || messages != run.ValidateMessages || perRank != bytes {
		t.Fatalf("%d ranks: validation bytes %d per search, %d in total, %d over the ranks; messages %d and %d",
			run.NumRanks, bytes, run.ValidateBytes, perRank, messages, run.ValidateMessages)
	}
}

// TestCompressedRunMatchesPlain: a run over the compressed rows has the
// keys, nedge, levels and tree of the run over the plain rows, on 1 and 3
// ranks and several exchanges, validates, and reports its layout.
func TestCompressedRunMatchesPlain(t *testing.T) {
	for _, ranks := range []int{1, 3} {
		for _, ex := range []spmv.Exchange{spmv.ExchangeAllgather, spmv.ExchangePacked, spmv.ExchangePush} {
			var trees [2][]byte
			var keys [2][]int64
			for i, compress := range []bool{false, true} {
				cfg := testConfig(11, ranks)
				cfg.Exchange, cfg.Compress = ex, compress
				cfg.Tree = func(chunk []byte) error {
					trees[i] = append(trees[i], chunk...)
					return nil
				}
				run, err := Run(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				want := map[bool]string{false: "plain", true: "compressed"}[compress]
				if !run.Validated() || run.Adjacency != want || run.AdjacencyBytesPerArc <= 0 || (compress && run.AdjacencyBytesPerArc >= 4) {
					t.Fatalf("%d ranks, %v, compress %v: validated %v, adjacency %q at %.2f B/arc", ranks, ex, compress, run.Validated(), run.Adjacency, run.AdjacencyBytesPerArc)
				}
				for _, s := range run.Searches {
					keys[i] = append(keys[i], s.Root, s.NEdge, int64(len(s.Levels)))
				}
			}
			if !slices.Equal(keys[0], keys[1]) || len(trees[0]) == 0 || !slices.Equal(trees[0], trees[1]) {
				t.Fatalf("%d ranks, %v: compressed run differs from the plain one", ranks, ex)
			}
		}
	}
}
