package graph500

// The configuration of a benchmark run and its checks: the Kronecker
// graph, the frontier exchange and codec of Lv et al., the 2D grid and its
// over-decomposition (NumS §4), the search keys and the tree. Config is the
// one struct a caller fills; every error of its checks is a fielderr.Error
// naming the Go field at fault ("BlocksPerRank"), so that a command line
// maps it to its own option. A field whose zero value means its default
// says so; RootSet marks a Root chosen by the caller, which must then be a
// vertex.

import (
	"fmt"
	"math"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/spmv"
)

// DefaultRoots is the number of search keys of a Graph500 run.
const DefaultRoots = 64

// Config is one benchmark run.
type Config struct {
	Graph    kronecker.Params
	Ranks    int // in-process ranks for Run (RunRank takes the size from its Comm)
	Threads  int // goroutines per rank for generation, kernel 1 and traversal
	NumRoots int // searches to run (DefaultRoots); ignored when Root ≥ 0
	// Root, when ≥ 0, replaces the sampled keys by one search from this vertex
	// (any vertex, even an isolated one).
	Root int64
	// RootSet says that Root was chosen: Check then refuses a Root that
	// is not a vertex, a negative one included, instead of reading a
	// negative Root as "sample the keys".
	RootSet   bool
	Validate  bool
	Exchange  spmv.Exchange
	Direction spmv.Direction
	Codec     string // frontier codec name (frontier.New); "" is raw
	// Partition2D runs the searches on the 2D grid partition (bfs.BFS2D)
	// instead of the 1D row blocks. GridRows×GridCols is the process grid;
	// 0×0 means partition.AutoGrid.
	Partition2D        bool
	GridRows, GridCols int
	// Compress builds and searches the 1D rows in the compressed layout
	// (graph.BuildPackedFrom: about 2 bytes per stored entry where the
	// plain rows take 4), for graphs whose plain rows do not fit
	// (AutoCompress). The trees are the same.
	Compress bool
	// BlocksPerRank > 1 (2D only) cuts the matrix into BlocksPerRank blocks
	// per rank, GridRows×GridCols being then the block grid, and places
	// them on the ranks by Placement (see runBlocks); 0 means 1.
	BlocksPerRank int
	Placement     Placement
	// Unfused runs LSHS's blocks one by one (comm/multiplex) even when its
	// layout could run fused, one block per rank of the renumbered graph
	// (fused.go), as it otherwise does.
	Unfused bool
	// SSSP runs kernel 3 after the BFS searches: the generator's edge
	// weights, shortest paths from the same keys (1D partition only).
	SSSP bool
	// Delta is the bucket width Δ of the shortest path searches; 0
	// chooses it from the graph (sssp.DefaultDelta).
	Delta     float64
	blockBusy *blockBusy // set by runBlocks on its block-ranks' configs
	// sharedProcess is set by Run and RunFile when several in-process ranks
	// share this process: its CPU time is then no rank's own, and the
	// report leaves the ranks' cpu_seconds out.
	sharedProcess bool

	// Progress, if not nil, is called on rank 0 as each step of the run
	// starts and ends (Event).
	Progress func(Event)
	// Warn, if not nil, receives warnings on rank 0.
	Warn func(msg string)
	// Tree, if not nil, receives on rank 0, after the first timed search, the
	// lines "vertex parent level" of every vertex, in vertex order, one
	// chunk per rank; with SSSP, those of the first shortest path search,
	// "vertex parent distance" (sssp_tree.go).
	Tree func(chunk []byte) error
}

func (cfg *Config) warn(c comm.Comm, format string, args ...any) {
	if cfg.Warn != nil && c.Rank() == 0 {
		cfg.Warn(fmt.Sprintf(format, args...))
	}
}

// oneRoot reports whether the run searches from Root alone.
func (cfg *Config) oneRoot() bool { return cfg.RootSet || cfg.Root >= 0 }

// Check reports the first invalid field of a run on the Kronecker graph
// cfg.Graph.
func (cfg *Config) Check() error {
	if err := cfg.Graph.Validate(); err != nil {
		return err
	}
	if err := cfg.checkSearch(); err != nil {
		return err
	}
	if err := cfg.checkSSSP(); err != nil {
		return err
	}
	if n := cfg.Graph.NumVertices(); cfg.oneRoot() && (cfg.Root < 0 || cfg.Root >= n) {
		return fielderr.New("Root", "%d is outside [0, %d) for scale %d", cfg.Root, n, cfg.Graph.Scale)
	}
	return nil
}

// checkSearch checks what a run on any graph is given: its ranks and
// threads, the codec, the partition and its blocks, the number of keys.
func (cfg *Config) checkSearch() error {
	switch {
	case cfg.Ranks < 1:
		return fielderr.New("Ranks", "%d is less than 1", cfg.Ranks)
	case cfg.Threads < 1:
		return fielderr.New("Threads", "%d is less than 1", cfg.Threads)
	}
	if cfg.Codec != "" {
		if _, err := frontier.New(cfg.Codec); err != nil {
			return fielderr.Wrap("Codec", err)
		}
	}
	if cfg.Compress && cfg.Partition2D {
		return fielderr.New("Compress", "the compressed layout is for the 1D partition's rows")
	}
	if cfg.Compress && cfg.SSSP {
		return fielderr.New("Compress", "shortest paths read the plain rows")
	}
	if cfg.Unfused && (cfg.BlocksPerRank < 2 || cfg.Placement != PlaceLSHS) {
		return fielderr.New("Unfused", "needs more than one block per rank and the LSHS placement (only LSHS's blocks run fused)")
	}
	if err := cfg.checkGrid(cfg.Ranks); err != nil {
		return err
	}
	if !cfg.oneRoot() && cfg.NumRoots < 1 {
		return fielderr.New("NumRoots", "%d is less than 1", cfg.NumRoots)
	}
	return nil
}

// maxBlocksPerRank bounds the over-decomposition: NumS's placement works
// with a few blocks per rank, and a larger count would size the block grid
// (and the memory estimate) by a number nobody meant.
const maxBlocksPerRank = 1024

// checkGrid checks the partition, the blocks per rank and their placement,
// and the grid against a job of ranks ranks (times the blocks per rank).
func (cfg *Config) checkGrid(ranks int) error {
	k := cfg.BlocksPerRank
	switch {
	case k < 0:
		return fielderr.New("BlocksPerRank", "%d is less than 1", k)
	case k > maxBlocksPerRank:
		return fielderr.New("BlocksPerRank", "%d is more than %d", k, maxBlocksPerRank)
	case k > 1 && !cfg.Partition2D:
		return fielderr.New("BlocksPerRank", "%d blocks per rank need the 2D partition", k)
	case cfg.Placement != PlaceLSHS && cfg.Placement != PlaceRoundRobin:
		return fielderr.New("Placement", "unknown placement %d", cfg.Placement)
	}
	ranks *= max(1, k)
	r, c := cfg.GridRows, cfg.GridCols
	switch {
	case !cfg.Partition2D && (r != 0 || c != 0):
		return fielderr.New("GridRows", "a %dx%d grid needs the 2D partition", r, c)
	case r < 0 || c < 0 || (r == 0) != (c == 0):
		return fielderr.New("GridRows", "%dx%d: give both sides, or neither for the automatic grid", r, c)
	case r*c != 0 && r*c != ranks:
		return fielderr.New("GridRows", "%dx%d has %d ranks, the job has %d", r, c, r*c, ranks)
	}
	return nil
}

// maxTupleBytesLog bounds, as a power of two, the bytes a run holds per
// edge tuple at its peak: a graph whose bytes would overflow int64 cannot
// be held, and its estimate cannot be computed.
const maxTupleBytesLog = 7

// KroneckerParams checks a Kronecker graph's scale and edge factor and
// returns the graph's parameters; its errors name kronecker.Params's
// fields. An error of the parameters' own validation is returned as it
// is.
func KroneckerParams(scale, edgefactor int, seed uint64, unpermuted bool) (kronecker.Params, error) {
	switch {
	case scale < 1 || scale > kronecker.MaxScale:
		return kronecker.Params{}, fielderr.New("Scale", "%d is outside 1..%d", scale, kronecker.MaxScale)
	case edgefactor < 1:
		return kronecker.Params{}, fielderr.New("EdgeFactor", "%d is less than 1", edgefactor)
	case int64(edgefactor) > math.MaxInt64>>(scale+maxTupleBytesLog):
		return kronecker.Params{}, fielderr.New("EdgeFactor", "%d·2^%d tuples overflow a 64-bit count of their bytes", edgefactor, scale)
	}
	p := kronecker.DefaultParams(scale)
	p.EdgeFactor, p.Seed, p.Unpermuted = edgefactor, seed, unpermuted
	if err := p.Validate(); err != nil {
		return kronecker.Params{}, err
	}
	return p, nil
}

// The frontier exchange and codec for a job of processes, where the
// bytes on the network cost most: the packed sieve with the codec chosen
// per level (BENCHMARKS.md, "Communication per search": over 4
// processes with 20 Mbit/s links at scale 20 it searches 3.0–4.2× faster
// than allgather on a quarter of the bytes). In-process ranks keep the
// exchange's default, allgather, whose bytes cost only memory bandwidth.
const (
	NetworkExchange = "packed"
	NetworkCodec    = "auto"
)

// CheckRunMemory refuses, unless force, a Kronecker run of cfg whose
// memory estimate exceeds what this machine has (CheckMemory): ranks in
// the job, localRanks of them on this machine, processes of its own there
// (0 for in-process ranks). A run whose counts overflow is refused even
// with force. Its errors are fielderr.Errors of the graph's Scale or
// EdgeFactor.
func CheckRunMemory(cfg Config, ranks, localRanks, processes int, force bool) error {
	return CheckMemory(runMemoryConfig(cfg, ranks, localRanks, processes), force)
}

// AutoCompress reports whether a Kronecker run of cfg should build the
// compressed layout: a 1D run whose plain rows would not fit the memory
// this machine has (CheckRunMemory's guard, with cfg.Compress off) while
// the compressed ones fit. Where the available memory is not known it
// keeps the plain rows.
func AutoCompress(cfg Config, ranks, localRanks, processes int) bool {
	return autoCompressIn(runMemoryConfig(cfg, ranks, localRanks, processes), AvailableMemory)
}

// autoCompressIn is AutoCompress on the memory model's view of the run,
// with the available memory read by avail.
func autoCompressIn(mc MemoryConfig, avail func() (int64, error)) bool {
	if mc.Partition2D || mc.SSSP {
		return false
	}
	have, err := avail()
	if err != nil {
		return false
	}
	mc.Compressed = false
	plain, err := EstimateMemory(mc)
	if err != nil || Fits(plain, have) {
		return false
	}
	mc.Compressed = true
	packed, err := EstimateMemory(mc)
	return err == nil && Fits(packed, have)
}

// runMemoryConfig is the memory model's view of a Kronecker run of cfg: a
// run whose blocks run fused holds one block per rank (fused.go), not
// BlocksPerRank.
func runMemoryConfig(cfg Config, ranks, localRanks, processes int) MemoryConfig {
	mc := MemoryConfig{
		Scale: cfg.Graph.Scale, EdgeFactor: cfg.Graph.EdgeFactor, Ranks: ranks, LocalRanks: localRanks, Processes: processes,
		Partition2D: cfg.Partition2D, BlocksPerRank: cfg.BlocksPerRank, Exchange: cfg.Exchange, Direction: cfg.Direction, Validate: cfg.Validate,
		SSSP:       cfg.SSSP,
		Compressed: cfg.Compress,
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
