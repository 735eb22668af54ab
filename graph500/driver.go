// Package graph500 is the Graph500 BFS benchmark driver: on every rank it
// generates the Kronecker tuples, runs kernel 1 (construction of the
// partitioned graph) and kernel 2 (breadth-first search) from 64 search
// keys of degree ≥ 1, not counting self-loops, each search timed from its
// start until the parents are in memory and validated, and gathers the
// statistics block the specification prints (TEPS = nedge/time, nedge the
// input tuples inside the searched component). With Config.SSSP it then
// runs kernel 3, shortest paths from the same keys on the weighted graph
// (sssp.go), as the reference's bfs_sssp binary does. RunFile runs the BFS
// procedure on a user's edge list.
//
// It holds no algorithm of its own: the generator is gen/kronecker, kernel
// 1 package graph, the searches and their validation packages spmv/bfs and
// spmv/sssp, the placement of over-decomposed 2D blocks package partition,
// and the transport that runs several blocks per process comm/multiplex.
//
// Sources: "Graph500 Benchmark Specification", version 3.0 (the procedure
// and the statistics); Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui
// Sun, "Compression and Sieve: Reducing Communication in Parallel Breadth
// First Search on Distributed Memory Systems", arXiv preprint (Institute
// of Computing Technology, CAS), 2012 (the exchanges and codecs of the
// searches, and their algorithm names); Melih Elibol, Vinamra Benara, Samyu
// Yagati, Lianmin Zheng, Alvin Cheung, Michael I. Jordan and Ion Stoica,
// "NumS: Scalable Array Programming for the Cloud", arXiv preprint, 2022
// (over-decomposition and LSHS placement); Huasha Zhao and John Canny,
// "Kylix: A Sparse Allreduce for Commodity Clusters", ICPP, IEEE, 2014
// (edge lists read by every rank); Ulrich Meyer and Peter Sanders,
// "Δ-stepping: a parallelizable shortest path algorithm", Journal of
// Algorithms 49(1), 2003 (kernel 3's searches).
package graph500

import (
	"context"
	"fmt"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
)

// Run runs the benchmark on cfg.Ranks in-process ranks and returns rank 0's
// report. A failed validation is not an error: the report says so.
func Run(ctx context.Context, cfg Config) (*results.Graph500Run, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cfg.sharedProcess = cfg.Ranks > 1
	return runInProcess(ctx, cfg.Ranks, func(ctx context.Context, c comm.Comm) (*results.Graph500Run, error) {
		return RunRank(ctx, c, cfg)
	})
}

// runInProcess runs rank on ranks in-process ranks and returns rank 0's
// report.
func runInProcess(ctx context.Context, ranks int, rank func(context.Context, comm.Comm) (*results.Graph500Run, error)) (*results.Graph500Run, error) {
	var run *results.Graph500Run
	err := inproc.Run(ctx, ranks, func(ctx context.Context, c comm.Comm) error {
		r, err := rank(ctx, c)
		if c.Rank() == 0 {
			run = r
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return run, nil
}

// maxOverRanks returns the largest of every rank's value of x.
func maxOverRanks(ctx context.Context, c comm.Comm, phase string, x float64) (float64, error) {
	v := []float64{x}
	err := c.AllreduceFloat64(ctx, phase, v, comm.Max)
	return v[0], err
}

// RunRank is one rank's share of the benchmark. Every rank of c must call it
// with the same cfg. It returns the report on rank 0 and nil elsewhere.
func RunRank(ctx context.Context, c comm.Comm, cfg Config) (*results.Graph500Run, error) {
	if err := cfg.Graph.Validate(); err != nil {
		return nil, err
	}
	if cfg.BlocksPerRank > 1 {
		return runBlocks(ctx, c, cfg)
	}
	rank, size := c.Rank(), c.Size()
	params := cfg.Graph
	part, err := partition.NewBlock1D(params.NumVertices(), size)
	if err != nil {
		return nil, err
	}
	var grid partition.Grid
	if cfg.Partition2D {
		if grid, err = cfg.grid(params.NumVertices(), size); err != nil {
			return nil, err
		}
		part = grid.Part // the same vertex ownership
	}

	// Kernels 0 and 1.
	share := params.Share(rank, size, cfg.Threads)
	g, blocks, times, err := buildGraph(ctx, c, cfg, part, grid, share)
	if err != nil {
		return nil, err
	}
	b := &builtGraph{g: g, blocks: blocks, part: part, grid: grid, times: times, tuples: params.NumEdges()}
	if cfg.SSSP {
		b.weights = share
	}
	var head *results.Graph500Run
	if rank == 0 {
		head = &results.Graph500Run{Scale: params.Scale, EdgeFactor: params.EdgeFactor, Seed: params.Seed, Unpermuted: params.Unpermuted}
	}
	return searchGraph(ctx, c, cfg, b, head)
}

// builtGraph is what kernel 1 built, for the searches: the 1D CSR or the
// 2D blocks, their partition, the kernels' times and the number of input
// tuples. A graph read from a file also has the rank's share of the map
// from dense to the file's ids.
type builtGraph struct {
	g      *graph.CSR
	blocks *graph.Block2D
	part   partition.Block1D
	grid   partition.Grid
	times  buildTimes
	tuples int64
	// ids maps the vertices to the file's ids (nil for a generated graph,
	// whose ids are its own).
	ids *fileIDs
	// directed: g holds out-edges only (directed.go); its TupleDegree
	// counts out-tuples.
	directed bool
	// weights is the source of the tuples' weights when the run makes
	// kernel 3's searches after the BFS's (sssp.go); nil otherwise.
	weights graph.WeightSource
	// order renumbers the generator's vertices for a fused run (fused.go;
	// nil otherwise): the graph, the searches and the validation are in
	// its new ids; the keys, the reported roots and the tree in the
	// generator's.
	order *partition.SegmentOrder
}

// buildTimes are the slowest rank's times of kernels 0 and 1.
type buildTimes struct {
	generation, construction float64
}

// buildGraph runs kernels 0 and 1: the 1D CSR, or for a 2D run the 2D
// blocks.
//
// The tuple list never exists: kernel 1 reads this rank's share (of the
// generator, or of a file's relabelled tuples) twice, once to count its rows and once to fill them
// (graph.BuildUndirectedFrom). Kernel 0 has no pass of its own, so its time is
// the generation within kernel 1's counting pass, and kernel 1's time is the
// rest — the second generation included.
func buildGraph(ctx context.Context, c comm.Comm, cfg Config, part partition.Block1D, grid partition.Grid, share graph.TupleSource) (*graph.CSR, *graph.Block2D, buildTimes, error) {
	var times buildTimes
	cfg.start(c, StageConstruct, 0, 1)
	// The layout is the job's (and this allreduce its barrier): compressed
	// if any rank chose it, as AutoCompress decides per machine.
	agree := []int64{0}
	if cfg.Compress {
		agree[0] = 1
	}
	if err := c.AllreduceInt64(ctx, "driver.sync", agree, comm.Max); err != nil {
		return nil, nil, times, err
	}
	cfg.Compress = agree[0] == 1 && !cfg.Partition2D
	t0 := time.Now()
	var g *graph.CSR
	var blocks *graph.Block2D
	var st graph.BuildStats
	var err error
	if cfg.Partition2D {
		// The searches, the key sampling and the validation all read the
		// blocks: the run holds no 1D copy of the graph.
		if blocks, st, err = graph.BuildUndirected2DFrom(ctx, c, grid, share, cfg.Threads); err != nil {
			return nil, nil, times, fmt.Errorf("kernel 1 (2D): %w", err)
		}
	} else if cfg.Compress {
		mc := runMemoryConfig(cfg, c.Size(), 0, 0)
		mc.Compressed = true
		est, _ := EstimateMemory(mc) // a refused model leaves the budget 0: one range
		if g, st, err = graph.BuildPackedFrom(ctx, c, part, share, cfg.Threads, est.PackedBudget); err != nil {
			return nil, nil, times, fmt.Errorf("kernel 1 (compressed): %w", err)
		}
	} else if g, st, err = graph.BuildUndirectedFrom(ctx, c, part, share, cfg.Threads); err != nil {
		return nil, nil, times, fmt.Errorf("kernel 1: %w", err)
	}
	total := time.Since(t0).Seconds()
	gen := st.ReadTime[0].Seconds()
	t := []float64{gen, total - gen}
	if err := c.AllreduceFloat64(ctx, "driver.sync", t, comm.Max); err != nil {
		return nil, nil, times, err
	}
	times.generation, times.construction = t[0], t[1]
	return g, blocks, times, nil
}

// checkTupleCount is kernel 1's bookkeeping check: every input tuple must be
// accounted for, as adjacency (counted at both ends, or at the source only
// when directed) or as a self-loop.
func checkTupleCount(ctx context.Context, c comm.Comm, owned ownedVertices, want int64, directed bool) error {
	var ends int64
	for _, d := range owned.tupleDegree {
		ends += int64(d)
	}
	s := []int64{ends, owned.selfLoops}
	if err := c.AllreduceInt64(ctx, "driver.sync", s, comm.Sum); err != nil {
		return err
	}
	if directed {
		s[0] *= 2 // each out-tuple counted once, at its source
	}
	if s[0]%2 != 0 || s[0]/2+s[1] != want {
		return fmt.Errorf("kernel 1 lost tuples: %d edge ends and %d self-loops for %d tuples", s[0], s[1], want)
	}
	return nil
}

// newID is the built graph's id of the generator's vertex v.
func (b *builtGraph) newID(v int64) int64 {
	if b.order == nil {
		return v
	}
	return b.order.New(v)
}
