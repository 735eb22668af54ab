package pagerank

// The memory model of a pagerank run, per rank, and the guard built on it:
// a run on a Kronecker graph that would not fit the machine is refused
// before any allocation, naming the largest scale that fits.
//
// On several ranks, a rank's peak is its set-up's: the routed edges as
// 64-bit keys, sorted in place and then rewritten as the matrix's 32-bit
// sources (edgeBytes per tuple of its share, the collector's headroom
// included), plus what it holds per vertex of the whole graph: the
// relabelling's maps, the in- and out-sets with their values, out-degrees
// and slots, and the allreduce's index sets (vertexBytes each; a Kronecker
// share of 16 tuples per vertex touches most vertices on any rank count);
// the iterations allocate nothing more. Undirected doubles the tuples.
// Weights add memWeightEdgeBytes per tuple: a float32 beside each key and
// the weighted sort's second copy of both (weights.go); measured 12.4 and
// 13.1 B per tuple more at scales 18 and 20 on one rank (2026-11-28). A
// process adds the Go runtime's base. These coefficients are fitted to
// peaks measured at scales 18 to 24 on 4 in-process ranks, and to the
// undirected runs of BENCHMARKS.md ("Memory per tuple against the memory
// model", `graphrun bench memory`).
//
// One unweighted rank builds its matrix in the fused run's order
// (pagerank_matrix_fused.go): its peak is the larger of the build's (the
// 8-byte keys of every tuple, memOneRankKeyBytes, beside the in-set, its
// degrees and slots, the in-degrees, the fused order and the relabelling's
// map of original ids: memOneRankVertexBytes per vertex that occurs) and
// the fused run's set-up (the 4-byte sources, after the keys' other half
// went back, beside the run's and the allreduce's vectors:
// memFusedKeyBytes and memFusedVertexBytes), which is the larger below
// about 17 tuples per vertex. A Kronecker graph of 16 tuples per vertex
// has 0.57 of its 2^scale ids in an edge (memKronOccupied). The model is
// 1.00 to 1.15 of the peaks measured on one rank at Kronecker scales 18 to
// 22, generated or read from a text file (2026-11-28, memory_test.go).
import (
	"fmt"
	"strings"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// Coefficients of the model (bytes).
const (
	memBaseBytes    = 26 << 20 // the Go runtime and the binary
	memPerRankBytes = 4 << 20  // an in-process rank's own buffers and goroutines
	memEdgeBytes    = 9.5      // per tuple of the rank's share
	memVertexBytes  = 51       // per vertex of the graph, on every rank
	// memWeightEdgeBytes is what weights add per tuple of the share.
	memWeightEdgeBytes = 13

	// One unweighted rank: per key and per vertex that occurs, at the
	// build's peak and at the fused run's.
	memOneRankKeyBytes    = 8
	memOneRankVertexBytes = 38
	memFusedKeyBytes      = 4
	memFusedVertexBytes   = 110
	// memKronOccupied is the share of a Kronecker graph's 2^scale ids that
	// occur in an edge at edgefactor 16.
	memKronOccupied = 0.57
)

// MemoryConfig is what the model needs to know of a run.
type MemoryConfig struct {
	// Edges and Vertices describe an edge list instead of a Kronecker
	// graph: the tuples read and the vertices that occur in them (Scale and
	// EdgeFactor are then not read). Its model covers one rank.
	Edges, Vertices   int64
	Scale, EdgeFactor int
	Undirected        bool
	Weighted          bool // the generator's weights (Source.Weighted)
	Ranks             int  // ranks of the job
	LocalRanks        int  // ranks on the machine being estimated (0: Ranks)
	Processes         int  // processes holding them (0: 1, all ranks in one process)
}

// EstimateMemory returns the model's estimate, in bytes, of the peak of
// the local ranks' processes together.
func EstimateMemory(cfg MemoryConfig) (int64, error) {
	local := float64(cfg.LocalRanks)
	if local == 0 {
		local = float64(cfg.Ranks)
	}
	oneRank := cfg.Ranks == 1 && local == 1 && !cfg.Weighted
	var n, m float64 // vertices (2^scale, or those that occur in an edge list) and tuples
	switch {
	case cfg.Edges > 0 || cfg.Vertices > 0:
		if cfg.Edges < 1 || cfg.Vertices < 1 || cfg.Vertices > 2*cfg.Edges || !oneRank || cfg.Processes > 1 {
			return 0, fmt.Errorf("pagerank: memory model: %d edges of %d vertices on %d ranks (%d local): the model of an edge list covers one unweighted rank",
				cfg.Edges, cfg.Vertices, cfg.Ranks, cfg.LocalRanks)
		}
		n, m = float64(cfg.Vertices), float64(cfg.Edges)
	case cfg.Scale < 1 || cfg.Scale > kronecker.MaxScale || cfg.EdgeFactor < 1 || cfg.EdgeFactor > 1<<20 ||
		cfg.Ranks < 1 || cfg.LocalRanks < 0 || cfg.Processes < 0:
		return 0, fmt.Errorf("pagerank: memory model: scale %d, edgefactor %d, %d ranks (%d local) out of range",
			cfg.Scale, cfg.EdgeFactor, cfg.Ranks, cfg.LocalRanks)
	default:
		n = float64(int64(1) << cfg.Scale)
		m = float64(cfg.EdgeFactor) * n
	}
	if cfg.Undirected {
		m *= 2
	}
	var est float64
	if oneRank {
		if cfg.Edges == 0 {
			n *= memKronOccupied
		}
		est = memBaseBytes + memPerRankBytes + max(memOneRankKeyBytes*m+memOneRankVertexBytes*n, memFusedKeyBytes*m+memFusedVertexBytes*n)
	} else {
		edgeBytes := memEdgeBytes
		if cfg.Weighted {
			edgeBytes += memWeightEdgeBytes
		}
		perRank := memPerRankBytes + edgeBytes*m/float64(cfg.Ranks) + memVertexBytes*n
		est = float64(max(1, cfg.Processes))*memBaseBytes + local*perRank
	}
	if est >= 1<<62 {
		return 0, fmt.Errorf("pagerank: memory model: scale %d does not fit a 64-bit count", cfg.Scale)
	}
	return int64(est), nil
}

// LargestScale returns the largest scale whose estimate for cfg's machine
// fits in avail bytes with graph500.GuardMargin, or 0 if none does.
func LargestScale(avail int64, cfg MemoryConfig) int {
	best := 0
	for s := 1; s <= kronecker.MaxScale; s++ {
		cfg.Scale = s
		if est, err := EstimateMemory(cfg); err == nil && fits(est, avail) {
			best = s
		}
	}
	return best
}

// fits reports whether an estimate fits in avail bytes with the margin of
// graph500's guard (the model is within ±25 % of measured peaks).
func fits(est, avail int64) bool { return float64(est) <= graph500.GuardMargin*float64(avail) }

// CheckMemory refuses, unless force, a run whose estimate does not fit the
// memory available (graph500.AvailableMemory; where that is unknown the
// run is allowed), naming the largest scale that fits. Its errors are
// fielderr.Errors of Kron.
func CheckMemory(cfg MemoryConfig, force bool) error {
	return checkMemoryIn(cfg, force, graph500.AvailableMemory)
}

// checkMemoryIn is CheckMemory with the available memory read by avail.
func checkMemoryIn(cfg MemoryConfig, force bool, avail func() (int64, error)) error {
	need, err := EstimateMemory(cfg)
	if err != nil {
		return fielderr.Wrap("Kron", err)
	}
	if force {
		return nil
	}
	if have, err := avail(); err == nil && !fits(need, have) {
		return fielderr.New("Kron", "scale %d needs about %.1f GiB on this machine and %.1f GiB are available (a run may take %.0f %% of it); the largest scale that fits is %d",
			cfg.Scale, float64(need)/(1<<30), float64(have)/(1<<30), 100*graph500.GuardMargin, LargestScale(have, cfg))
	}
	return nil
}

// CheckMemory refuses, unless force, a run on the Kronecker graph of Kron
// (a run on an edge list is not guarded) whose estimate does not fit this
// machine: ranks in the job, localRanks of them here, in processes of
// their own (0 for in-process ranks). Its errors are fielderr.Errors of
// Kron.
func (jc JobConfig) CheckMemory(ranks, localRanks, processes int, force bool) error {
	if !jc.KronSet {
		return nil
	}
	return CheckMemory(MemoryConfig{
		Scale: jc.Kron, EdgeFactor: kronecker.DefaultEdgeFactor, Undirected: jc.Undirected,
		Weighted: strings.EqualFold(strings.TrimSpace(jc.Weights), "on"), Ranks: ranks, LocalRanks: localRanks, Processes: processes,
	}, force)
}
