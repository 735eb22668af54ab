package graph500

// graphrun bfs's settings as its command line gives them, checked against
// each other and turned into a Config: the Kronecker graph, or an edge
// list; the frontier exchange and codec of paper 004 (REFERENCES.md); the
// 2D grid and its over-decomposition of paper 003; the roots and the tree.
// Every error is a fielderr.Error naming the flag at fault.

import (
	"errors"
	"math"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
)

// maxTupleBytesLog bounds, as a power of two, the bytes a run holds per
// edge tuple at its peak: a graph whose bytes would overflow int64 cannot
// be held, and its estimate cannot be computed.
const maxTupleBytesLog = 7

// KroneckerParams checks a Kronecker graph's scale and edge factor (the
// flags scale and edgefactor) and returns the graph's parameters. An error
// of the parameters' own validation is returned as it is.
func KroneckerParams(scale, edgefactor int, seed uint64, unpermuted bool) (kronecker.Params, error) {
	switch {
	case scale < 1 || scale > kronecker.MaxScale:
		return kronecker.Params{}, fielderr.New("scale", "%d is outside 1..%d", scale, kronecker.MaxScale)
	case edgefactor < 1:
		return kronecker.Params{}, fielderr.New("edgefactor", "%d is less than 1", edgefactor)
	case int64(edgefactor) > math.MaxInt64>>(scale+maxTupleBytesLog):
		return kronecker.Params{}, fielderr.New("edgefactor", "%d·2^%d tuples overflow a 64-bit count of their bytes", edgefactor, scale)
	}
	p := kronecker.DefaultParams(scale)
	p.EdgeFactor, p.Seed, p.Unpermuted = edgefactor, seed, unpermuted
	if err := p.Validate(); err != nil {
		return kronecker.Params{}, err
	}
	return p, nil
}

// The frontier exchange bfs uses by default in a job of processes
// (--procs, TCP, MPI), where the bytes on the network cost most: the
// packed sieve with the codec chosen per level (BENCHMARKS.md, "The
// exchange over a network": over 4 processes with 20 Mbit/s links at
// scale 20 it searches 3.0–4.2× faster than allgather on a quarter of the
// bytes). In-process ranks keep the exchange's default, allgather, whose
// bytes cost only memory bandwidth.
const (
	NetworkExchange = "packed"
	NetworkCodec    = "auto"
)

// Settings are bfs's search settings as its command line gives them, each
// field named after its flag.
type Settings struct {
	Roots                            int
	Root                             int64 // with Given("root"): one search from this vertex
	Out                              string
	Exchange, Codec, Algo, Direction string
	Partition, Grid, Placement       string
	BlocksPerRank                    int
	Directed                         bool
	NoValidate                       bool
	NoFuse                           bool
	// Given reports whether the flag of that name was given on the command
	// line: some settings' defaults and checks depend on it.
	Given func(flag string) bool
}

// CheckSource checks the settings against the graph searched: a Kronecker
// graph (file "") takes neither format nor directed; an edge list file
// takes none of the Kronecker graph's flags, and a directed search sets
// the push exchange, top-down, which no other exchange setting may
// contradict.
func (s *Settings) CheckSource(file string) error {
	if file == "" {
		for _, flag := range []string{"format", "directed"} {
			if s.Given(flag) {
				return fielderr.New(flag, "needs an edge list FILE")
			}
		}
		return nil
	}
	for _, flag := range []string{"scale", "edgefactor", "force"} {
		if s.Given(flag) {
			return fielderr.New(flag, "chooses a Kronecker graph: it cannot be combined with the edge list %s", file)
		}
	}
	if s.NoFuse {
		return fielderr.New("no-fuse", "concerns fused blocks, which only a Kronecker graph's run has: the blocks of the edge list %s always run one by one", file)
	}
	if s.Directed {
		for _, flag := range []string{"exchange", "codec", "algo", "direction", "partition", "grid"} {
			if s.Given(flag) {
				return fielderr.New(flag, "cannot be combined with --directed (top-down, push exchange, 1D partition)")
			}
		}
		s.Exchange, s.Direction = "push", "top-down"
	}
	return nil
}

// DefaultExchange gives the exchange its default for the job when neither
// exchange nor algo was given: in a job of processes NetworkExchange with
// NetworkCodec (unless codec was given), else the exchange's own default.
// It reports whether the exchange was defaulted.
func (s *Settings) DefaultExchange(jobOfProcesses bool) bool {
	if s.Given("exchange") || s.Given("algo") {
		return false
	}
	if jobOfProcesses {
		s.Exchange = NetworkExchange
		if !s.Given("codec") {
			s.Codec = NetworkCodec
		}
	}
	return true
}

// Config checks the search settings and returns the run's Config on the
// graph (a Kronecker graph, or with file an edge list, whose ids any root
// may be) over ranks ranks, with the note of an automatic 2D grid far
// from square. The caller adds the ranks, threads and callbacks.
func (s *Settings) Config(graph kronecker.Params, file bool, ranks int) (cfg Config, gridNote string, err error) {
	cfg = Config{Graph: graph, NumRoots: s.Roots, Root: s.Root, Validate: !s.NoValidate, Codec: s.Codec,
		Partition2D: s.Partition == "2d", BlocksPerRank: s.BlocksPerRank, Unfused: s.NoFuse}
	if cfg.Exchange, err = spmv.ParseExchange(s.Exchange); err != nil {
		return Config{}, "", fielderr.Wrap("exchange", err)
	}
	if cfg.Direction, err = spmv.ParseDirection(s.Direction); err != nil {
		return Config{}, "", fielderr.Wrap("direction", err)
	}
	if _, err := frontier.New(s.Codec); err != nil {
		return Config{}, "", fielderr.Wrap("codec", err)
	}
	if cfg.Exchange == spmv.ExchangePush && s.Given("direction") && cfg.Direction != spmv.DirectionTopDown {
		return Config{}, "", fielderr.New("direction", "%s needs --exchange allgather (push is top-down at every level)", cfg.Direction)
	}
	switch {
	case s.BlocksPerRank < 1:
		return Config{}, "", fielderr.New("blocks-per-rank", "%d is less than 1", s.BlocksPerRank)
	case s.BlocksPerRank > 1 && s.Partition != "2d":
		return Config{}, "", fielderr.New("blocks-per-rank", "needs --partition 2d")
	case s.NoFuse && (s.BlocksPerRank < 2 || s.Placement != "lshs"):
		return Config{}, "", fielderr.New("no-fuse", "needs --blocks-per-rank > 1 and --placement lshs (only LSHS's blocks run fused)")
	}
	if cfg.Placement, err = ParsePlacement(s.Placement); err != nil {
		return Config{}, "", fielderr.Wrap("placement", err)
	}
	if gridNote, err = s.grid(&cfg, ranks*s.BlocksPerRank); err != nil {
		return Config{}, "", err
	}
	rootSet := s.Given("root")
	switch {
	case rootSet && file && s.Root < 0:
		return Config{}, "", fielderr.New("root", "%d is negative: vertex ids are not", s.Root)
	case rootSet && !file && (s.Root < 0 || s.Root >= graph.NumVertices()):
		return Config{}, "", fielderr.New("root", "%d is outside [0, %d) for scale %d", s.Root, graph.NumVertices(), graph.Scale)
	case !rootSet && s.Roots < 1:
		return Config{}, "", fielderr.New("roots", "%d is less than 1", s.Roots)
	case s.Out != "" && !rootSet:
		return Config{}, "", fielderr.New("out", "needs --root (the tree of one search)")
	}
	if !rootSet {
		cfg.Root = -1
	}
	return cfg, gridNote, nil
}

// grid checks the partition and grid against the job's rank count (times
// the blocks per rank) and fills in cfg's grid: the most square one when
// grid was not given. It returns AutoGrid's note when the automatic grid
// is far from square.
func (s *Settings) grid(cfg *Config, ranks int) (note string, err error) {
	switch s.Partition {
	case "1d":
		if s.Given("grid") {
			return "", fielderr.New("grid", "needs --partition 2d")
		}
		return "", nil
	case "2d":
	default:
		return "", fielderr.New("partition", "unknown partition %q (want 1d or 2d)", s.Partition)
	}
	if !s.Given("grid") {
		cfg.GridRows, cfg.GridCols, note = partition.AutoGrid(ranks) // note: only for a prime or lopsided rank count
		return note, nil
	}
	r, c, err := partition.ParseGrid(s.Grid)
	if err != nil {
		return "", fielderr.Wrap("grid", err)
	}
	if r*c != ranks {
		return "", fielderr.New("grid", "%dx%d has %d ranks, the job has %d", r, c, r*c, ranks)
	}
	cfg.GridRows, cfg.GridCols = r, c
	return "", nil
}

// CheckRunMemory refuses, unless force, a Kronecker run of cfg whose
// memory estimate exceeds what this machine has (CheckMemory): ranks in
// the job, localRanks of them on this machine, processes of its own there
// (0 for in-process ranks). A run whose counts overflow is refused even
// with force. Its errors are fielderr.Errors.
func CheckRunMemory(cfg Config, ranks, localRanks, processes int, force bool) error {
	err := CheckMemory(runMemoryConfig(cfg, ranks, localRanks, processes), force)
	var me *MemoryError
	if errors.As(err, &me) {
		return fielderr.New(me.Field, "%s", me.Msg)
	}
	return err
}

// runMemoryConfig is the memory model's view of a Kronecker run of cfg: a
// run whose blocks run fused holds one block per rank (fused.go), not
// BlocksPerRank.
func runMemoryConfig(cfg Config, ranks, localRanks, processes int) MemoryConfig {
	mc := MemoryConfig{
		Scale: cfg.Graph.Scale, EdgeFactor: cfg.Graph.EdgeFactor, Ranks: ranks, LocalRanks: localRanks, Processes: processes,
		Partition2D: cfg.Partition2D, BlocksPerRank: cfg.BlocksPerRank, Exchange: cfg.Exchange, Direction: cfg.Direction, Validate: cfg.Validate,
	}
	if cfg.BlocksPerRank > 1 && cfg.Graph.Scale >= 1 && cfg.Graph.Scale <= 62 {
		if blocks, err := cfg.grid(cfg.Graph.NumVertices(), ranks); err == nil {
			if _, ok := fusable(cfg, blocks, ranks); ok {
				mc.BlocksPerRank = 1
			}
		}
	}
	return mc
}
