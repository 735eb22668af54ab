package graph500

// The memory model of a Graph500 run, per rank, and the guard built on it.
//
// Every term is a data structure of the run, counted in bytes per input tuple
// of the rank's share (m/p), per vertex it owns (n/p), per vertex of its grid
// row or column (2D), or per vertex of the whole graph (n, the maps every
// rank keeps whole). The run's peak is the larger of its two phases, which
// never hold their memory at once:
//
//	1D kernel 1:  2·cb·m/p       the rows, allocated at their final size before
//	                             deduplication (cb = 4-byte columns, 8 above 2^32
//	                             vertices; self-loops are not stored)
//	            + 12·n/p         row offsets (8) and tuple degrees (4)
//	            + 46·chunk       the round buffers: a chunk of tuples (16 B each),
//	                             their half-edges grouped by owner (16 B), the
//	                             coded messages both ways (about 14 B)
//	1D searches:  2·cb·m/p + 12·n/p   the CSR (its columns keep their size before
//	                             deduplication)
//	            + 21·n/p         parent (8), level (4), queues (8), three bitmaps
//	            + td·m/p         the largest top-down level's records
//	            + maps·n         the global frontier (n/8 bytes, unless every level
//	                             is top-down), the sieve's directory (n/8; the
//	                             validator builds one when the search has none)
//	                             and the packed sieve's three maps (3n/8)
//	            + ghosts         the validator's levels of the boundary: a byte per
//	                             vertex of another rank its rows reference, at
//	                             most (p−1)/p·n and at most 2·m/p; its directory
//	                             row (n/8) and rank index (3n/64) join the maps
//
// The compressed layout (graph.BuildPackedFrom) replaces the columns, in
// both phases, by the packed rows, pb·m/p (pb bytes per input tuple,
// measured on Kronecker graphs and growing slowly with the scale, as the
// gaps between neighbours do: packedTupleBytes), and kernel 1 holds, beside
// the packed rows written so far, one range's plain rows (cb bytes per
// half-edge of the range): it cuts its ranges from a budget
// (MemoryEstimate.PackedBudget) that puts its peak at the searches', the
// first ranges, beside few packed rows, the largest; at least
// 2·cb·m/p / graph.MaxPackedRanges. The validator reads the packed rows as
// they are.
//
// A 2D rank of an R×C grid holds its block by rows and by columns (8 bytes
// per half-edge, 16 per tuple of its share), offsets of its non-empty rows
// and columns, and per vertex of its grid row (n/R) and column (n/C) the
// build's row offsets and counts, the search's and the validator's maps.
// With k blocks per rank (NumS's over-decomposition, blocks.go) every
// block is a rank of a 2D run of k·p ranks on the block grid, each with its
// own engine, validator and maps, and a rank holds k of them: the edge
// terms stay, the per-vertex terms of the grid lines and the owned vertices
// are counted once per block (measured at scale 18 on 16 ranks: 1.8× one
// block per rank's peak at 4 blocks, 6× at 16; the model gives 1.8× and
// 4.6×). LSHS may give a rank more than k blocks; the model counts k. A
// process holds its ranks' shares plus the Go runtime's base; the garbage
// collector's headroom (memstat.LeanPercent of what is allocated between
// collections) is in the measured coefficients. BENCHMARKS.md ("Memory per tuple against the memory model")
// compares the model with `graphrun bench memory`'s measured peaks.

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
)

// Coefficients of the model (bytes), measured on scales 16 to 24 with
// `graphrun bench memory` (BENCHMARKS.md).
const (
	baseBytes        = 16 << 20 // the Go runtime and the binary
	perRankBytes     = 1 << 20  // an in-process rank's own buffers and goroutines
	k1VertexBytes    = 12       // row offsets and tuple degrees, per owned vertex
	k1ChunkBytes     = 46       // round buffers per chunk tuple
	bfsVertexBytes   = 21       // parent, level, queues and bitmaps, per owned vertex
	topDownEdgeBytes = 0.75     // records of the largest top-down level, per tuple
	ghostBytes       = 1        // the validator's level of a boundary vertex
	// block2DBytes is a 2D rank's blocks per half-edge: by rows and by
	// columns, 4 bytes each.
	block2DBytes = 8
	// grid2DVertexBytes is what a 2D rank holds per vertex of its grid row
	// and column: in kernel 1 the row offsets and counts (12 per row) and the
	// transposition's column counts; in the searches sparse offsets, masks
	// and the frontier, found and ghost maps.
	grid2DVertexBytes = 20
	// gcHeadroom is the garbage collector's margin over the live heap at
	// memstat.LeanPercent.
	gcHeadroom = 1.05
	// Kernel 3 (sssp.go), which runs after the BFS's state is freed: per
	// half-edge the weights (4; the engine orders the CSR's rows by weight
	// in place, no copy); per owned vertex distances, parents, relaxed
	// distances, stamps and light counts (36); per boundary vertex the
	// validator's id and distance (8); per tuple the largest phase's
	// requests (12 bytes per request, measured below one request per tuple
	// at scales 16 to 18) and the weights' round buffers (100 per chunk
	// tuple); on the 2D grid ssspGridBytes per vertex of the grid row and
	// column instead of the ghosts.
	ssspEdgeBytes    = 4
	ssspVertexBytes  = 36
	ssspGhostBytes   = 8
	ssspRequestBytes = 12
	ssspK1ChunkBytes = 100
	ssspGridBytes    = 20 // 2D: per vertex of the grid row and column
	// packedTupleBytes20 and packedTupleScaleBytes model the packed rows'
	// bytes per input tuple of a Kronecker graph of edgefactor 16 at scale
	// s: packedTupleBytes20 + packedTupleScaleBytes·(s − 20)
	// (BenchmarkPackedCodes, BENCHMARKS.md "Graph500 scale 26 and 27"). Below
	// scale 20 the scale-20 figure holds.
	packedTupleBytes20    = 3.1
	packedTupleScaleBytes = 0.22
)

// packedTupleBytes is the model's packed bytes per input tuple at scale s,
// never more than the plain columns' 2·cb.
func packedTupleBytes(scale int, cb int64) float64 {
	return min(float64(2*cb), packedTupleBytes20+packedTupleScaleBytes*float64(max(0, scale-20)))
}

// MemoryConfig is what the model needs to know of a run.
type MemoryConfig struct {
	Scale, EdgeFactor  int
	Ranks              int  // ranks of the job
	LocalRanks         int  // ranks on the machine being estimated (0: Ranks)
	Processes          int  // processes holding them (0: 1, all ranks in one process)
	Partition2D        bool // the run searches 2D blocks
	GridRows, GridCols int  // the 2D grid (the block grid with BlocksPerRank); 0×0: partition.AutoGrid
	BlocksPerRank      int  // 2D: blocks per rank (0 or 1: one)
	Exchange           spmv.Exchange
	Direction          spmv.Direction
	Validate           bool
	SSSP               bool // the run makes kernel 3's searches after the BFS's
	Compressed         bool // 1D rows in the compressed layout (graph.BuildPackedFrom)
}

// MemoryEstimate is the model's answer, in bytes.
type MemoryEstimate struct {
	Kernel1  int64 // one rank's peak in kernel 1
	Searches int64 // one rank's peak in the searches and their validation
	// Machine is what the machine's processes hold together: a base per
	// process plus, per local rank, the larger phase.
	Machine int64
	// PackedBudget is, for the compressed layout (1D), what a rank's kernel
	// 1 may hold at once in packed rows and one range's plain rows
	// (graph.BuildPackedFrom's budget): Kernel1 less the round buffers, row
	// offsets and tuple degrees. Kernel1 is the searches' peak, or on
	// graphs so small that the round buffers outweigh the rows that of the
	// smallest ranges, so kernel 1 reads the source the fewest times that
	// keep its peak there.
	PackedBudget int64
}

// errTooLarge is returned when a term of the estimate overflows int64.
var errTooLarge = errors.New("graph500: the run's memory does not fit a 64-bit count")

// checked accumulates products and sums that must fit an int64; the first
// overflow sticks.
type checked struct {
	v   int64
	err error
}

func (c *checked) add(x int64) {
	if c.err != nil {
		return
	}
	s, carry := bits.Add64(uint64(c.v), uint64(x), 0)
	if x < 0 || carry != 0 || s > math.MaxInt64 {
		c.err = errTooLarge
		return
	}
	c.v = int64(s)
}

// mul returns a·b or an overflow error.
func mul(a, b int64) (int64, error) {
	if a < 0 || b < 0 {
		return 0, errTooLarge
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, errTooLarge
	}
	return int64(lo), nil
}

// addMul adds a·b.
func (c *checked) addMul(a, b int64) {
	if c.err != nil {
		return
	}
	p, err := mul(a, b)
	if err != nil {
		c.err = err
		return
	}
	c.add(p)
}

// addFrac adds x·f for a non-negative fraction or factor f.
func (c *checked) addFrac(x int64, f float64) {
	v := float64(x) * f
	if v >= math.MaxInt64 {
		c.err = errTooLarge
		return
	}
	c.add(int64(math.Ceil(v)))
}

// EstimateMemory returns the model's estimate for the ranks of a run on one
// machine. It refuses, with an error, a run whose counts overflow 64 bits.
func EstimateMemory(cfg MemoryConfig) (MemoryEstimate, error) {
	var est MemoryEstimate
	if cfg.Scale < 1 || cfg.Scale > 62 || cfg.EdgeFactor < 1 || cfg.Ranks < 1 || cfg.LocalRanks < 0 || cfg.Processes < 0 || cfg.BlocksPerRank < 0 {
		return est, fmt.Errorf("graph500: memory model: scale %d, edgefactor %d, %d ranks (%d local) out of range",
			cfg.Scale, cfg.EdgeFactor, cfg.Ranks, cfg.LocalRanks)
	}
	local := int64(cfg.LocalRanks)
	if local == 0 {
		local = int64(cfg.Ranks)
	}
	if k := cfg.BlocksPerRank; cfg.Partition2D && k > 1 {
		// Every block is a rank of a k·p-rank 2D run.
		ranks, err := mul(int64(cfg.Ranks), int64(k))
		if err != nil || ranks > math.MaxInt32 {
			return est, errTooLarge
		}
		cfg.Ranks = int(ranks)
		local *= int64(k)
	}
	p := int64(cfg.Ranks)
	n := int64(1) << cfg.Scale
	m, err := mul(int64(cfg.EdgeFactor), n)
	if err != nil {
		return est, err
	}
	mr := (m + p - 1) / p // tuples of the largest share
	nr := (n + p - 1) / p // vertices of the largest share (a little less than Block1D's)
	cb := int64(4)
	if n > 1<<32 {
		cb = 8
	}
	chunk := min(mr, max(1<<14, min(1<<20, mr/32)))

	var k1, s checked
	var fixed int64 // compressed 1D: kernel 1's round buffers, offsets and degrees
	k1.addMul(k1ChunkBytes, chunk)
	var gridVertices int64 // 2D: the vertices of a rank's grid row and column
	if cfg.Partition2D {
		r, c := cfg.GridRows, cfg.GridCols
		if r*c != cfg.Ranks {
			r, c, _ = partition.AutoGrid(cfg.Ranks)
		}
		gridVertices = (n+int64(r)-1)/int64(r) + (n+int64(c)-1)/int64(c)
		k1.addMul(2*block2DBytes, mr)
		k1.addMul(grid2DVertexBytes, gridVertices)
		s.addMul(2*block2DBytes, mr)
		s.addMul(grid2DVertexBytes, gridVertices)
	} else {
		rows := float64(2 * cb)
		if cfg.Compressed {
			rows = packedTupleBytes(cfg.Scale, cb)
		}
		k1.addMul(k1VertexBytes, nr)
		fixed = k1.v
		k1.addFrac(mr, rows)
		if cfg.Compressed { // the smallest range's plain rows, raised to the searches' below
			k1.addFrac(mr, float64(2*cb)/graph.MaxPackedRanges)
		}
		s.addFrac(mr, rows)
		s.addMul(k1VertexBytes, nr)
		s.addFrac(mr, topDownEdgeBytes)
	}
	// The BFS's state and, after it, kernel 3's: the larger one counts.
	var bfsState, ssspState checked
	bfsState.addMul(bfsVertexBytes, nr)
	if cfg.Validate {
		// Ghost levels: a byte per boundary vertex, at most every other
		// rank's vertex and at most one per half-edge.
		bfsState.addFrac(min(n-n/p, 2*mr), ghostBytes)
	}
	if !cfg.Partition2D {
		bfsState.addFrac(n, mapBytes(cfg, p))
	}
	if cfg.SSSP {
		ssspState.addMul(2*ssspEdgeBytes, mr)
		ssspState.addMul(ssspVertexBytes, nr)
		ssspState.addMul(ssspRequestBytes, mr)
		ssspState.addMul(ssspK1ChunkBytes, chunk)
		switch {
		case cfg.Partition2D:
			// Per vertex of the grid row and column: the requests'
			// bounds and combining (16 per row) and the validator's
			// distances (4 per row and column).
			ssspState.addMul(ssspGridBytes, gridVertices)
		case cfg.Validate:
			ssspState.addFrac(min(n-n/p, 2*mr), ssspGhostBytes)
		}
	}
	if bfsState.err != nil || ssspState.err != nil {
		return est, errTooLarge
	}
	s.add(max(bfsState.v, ssspState.v))
	for _, c := range []*checked{&k1, &s} {
		if c.err != nil {
			return est, c.err
		}
	}
	if cfg.Compressed && !cfg.Partition2D {
		// Kernel 1 fills its ranges within a budget that puts its peak at
		// the searches'.
		k1.v = max(k1.v, s.v)
		est.PackedBudget = k1.v - fixed
	}
	est.Kernel1, est.Searches = k1.v, s.v
	var machine checked
	machine.addMul(int64(max(1, cfg.Processes)), baseBytes)
	machine.addMul(local, perRankBytes)
	machine.addFrac(max(k1.v, s.v), gcHeadroom*float64(local))
	if machine.err != nil {
		return est, machine.err
	}
	est.Machine = machine.v
	return est, nil
}

// mapBytes is what a 1D rank holds per vertex of the whole graph in maps:
// the global frontier (unless every level is top-down), the sieve's
// directory or the packed sieve's three maps, and, validated, the
// validator's directory column and row (n bits each) unless the sieve's or
// the packed sieve's serve, and the row's rank index for sparse ghosts
// (3n/64 bytes, beyond 2 ranks).
func mapBytes(cfg MemoryConfig, p int64) float64 {
	maps := 0.0
	if cfg.Direction != spmv.DirectionTopDown && cfg.Exchange != spmv.ExchangePush {
		maps += 1.0 / 8 // the global frontier
		switch cfg.Exchange {
		case spmv.ExchangeSieve:
			maps += 1.0 / 8
		case spmv.ExchangePacked:
			maps += 4.0 / 8
		}
	}
	if cfg.Validate {
		if cfg.Exchange != spmv.ExchangeSieve && cfg.Exchange != spmv.ExchangePacked {
			maps += 1.0 / 8
		}
		if cfg.Exchange != spmv.ExchangePacked {
			maps += 1.0 / 8
		}
		if p > 2 {
			maps += 3.0 / 64
		}
	}
	return maps
}

// GuardMargin is the share of the available memory a run may be estimated
// to need: the model is within ±25 % of measured peaks (BENCHMARKS.md), so
// a run estimated at 80 % of what is available still fits when the model
// is a quarter low.
const GuardMargin = 0.8

// Fits reports whether an estimate fits in avail bytes with GuardMargin.
func Fits(est MemoryEstimate, avail int64) bool {
	return float64(est.Machine) <= GuardMargin*float64(avail)
}

// LargestScale returns the largest scale (1..40) whose estimate for cfg's
// machine Fits in avail bytes, or 0 if none does.
func LargestScale(avail int64, cfg MemoryConfig) int {
	best := 0
	for s := 1; s <= 40; s++ {
		cfg.Scale = s
		if est, err := EstimateMemory(cfg); err == nil && Fits(est, avail) {
			best = s
		}
	}
	return best
}

// AvailableMemory reads MemAvailable from /proc/meminfo (Linux). It returns
// an error where that is not known; callers then skip the guard.
func AvailableMemory() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("available memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("available memory: /proc/meminfo: %w", err)
			}
			return kb * 1024, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("available memory: %w", err)
	}
	return 0, fmt.Errorf("available memory: no MemAvailable in /proc/meminfo")
}

// CheckMemory refuses, unless force, a run whose estimate (EstimateMemory)
// does not fit the memory available (AvailableMemory, with GuardMargin;
// where that is unknown the run is allowed), naming the largest scale that
// fits; a run whose counts overflow is refused even with force. Its errors
// are fielderr.Errors: of EdgeFactor when the run's counts overflow, of
// Scale when its estimate does not fit the available memory.
func CheckMemory(cfg MemoryConfig, force bool) error {
	return checkMemoryIn(cfg, force, AvailableMemory)
}

// checkMemoryIn is CheckMemory with the available memory read by avail.
func checkMemoryIn(cfg MemoryConfig, force bool, avail func() (int64, error)) error {
	need, err := EstimateMemory(cfg)
	if err != nil {
		return fielderr.New("EdgeFactor", "scale %d with edgefactor %d: %v", cfg.Scale, cfg.EdgeFactor, err)
	}
	if force {
		return nil
	}
	if have, err := avail(); err == nil && !Fits(need, have) {
		return fielderr.New("Scale", "scale %d needs about %.1f GiB on this machine and %.1f GiB are available (a run may take %.0f %% of it); the largest scale that fits is %d",
			cfg.Scale, gib(need.Machine), gib(have), 100*GuardMargin, LargestScale(have, cfg))
	}
	return nil
}

// gib is b in GiB.
func gib(b int64) float64 { return float64(b) / (1 << 30) }
