// The run driver: what one rank of a pagerank job runs around the
// algorithm — take its share of the input, run RunShare (or, elastic,
// RunElastic), and collect the run's report on rank 0 with the collectives
// that sum its traffic and take its slowest times: PageRank over Kylix's
// sparse allreduce (Kylix §VII), or the dense chunked allreduce of Zhang
// and Qiu §IV-E, and for an elastic job Zhang and Qiu's recovery and
// elastic growth (§II, §III, §V).
//
// Like graph500/ for BFS, the driver is SPMD code: RunRank and
// RunElasticRank are what one rank runs; the caller checks a JobConfig
// into a Source and a Job, starts the ranks on a transport and prints the
// Report. The driver holds no algorithm of its own: the matrix, the
// iterations and the allreduce are the kernel's (pagerank.go) and package
// allreduce's.

package pagerank

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/results"
)

// Job is a pagerank run: the algorithm's configuration and what the
// report collects.
type Job struct {
	Config
	Top    int  // report this many top vertices
	Gather bool // collect every vertex's score on rank 0 (Report.All)
}

// Check validates the configuration (Config.Check, and Top).
func (cfg Job) Check() error {
	if cfg.Top < 0 {
		return configError("Top", "%d is negative", cfg.Top)
	}
	return cfg.Config.Check()
}

// Input is where a run's edges come from. Share is this rank's share in
// c's job (it may read a stream once on rank 0 and spread it); Load is
// rank's share in a job of size ranks, read anew whenever an elastic job
// changes size. Both return shares that are read only when the set-up
// scans them.
type Input struct {
	Name     string // how the report names the input
	IDOffset int64  // added to the reported ids (1 for Matrix Market)
	Share    func(ctx context.Context, c comm.Comm) (graph.EdgeShare, error)
	Load     func(ctx context.Context, rank, size int) (graph.EdgeShare, error)
}

// Report is a finished run's results.PageRankRun (the JSON document)
// plus what only the text output needs.
type Report struct {
	results.PageRankRun
	All         []VertexScore `json:"-"` // Job.Gather: every vertex, ascending id
	WarnMaxIter bool          `json:"-"` // stopped at MaxIter without converging
	Undirected  bool          `json:"-"` // the edges read count twice, as arcs
	Weighted    bool          `json:"-"` // the edges' weights were read
}

// RunRank runs PageRank on one rank of c's job and returns the report on
// rank 0 (nil elsewhere).
func RunRank(ctx context.Context, c comm.Comm, in Input, cfg Job) (*Report, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	share, err := in.Share(ctx, c)
	if err != nil {
		return nil, err
	}
	res, err := RunShare(ctx, c, share, cfg.Config)
	if err != nil {
		return nil, err
	}
	return reportOf(ctx, c, res, cfg, in)
}

// loadSlots is how many int64s each rank's load takes in the report's sum:
// its matrix's edges, its process's peak memory, 1 if its long columns
// were gathered, its process's key (memstat.ProcessKey).
const loadSlots = 4

// reportOf collects a finished run's report on rank 0 (nil elsewhere); c
// is the Comm the result lives on. Every rank calls it with the same Top
// and Gather.
func reportOf(ctx context.Context, c comm.Comm, res *Result, cfg Job, in Input) (*Report, error) {
	top, err := res.TopK(ctx, c, cfg.Top)
	if err != nil {
		return nil, err
	}
	var all []VertexScore
	if cfg.Gather {
		if all, err = res.Gather(ctx, c, 0); err != nil {
			return nil, err
		}
	}
	// Iteration traffic and times over all ranks; every rank's load in its
	// own slots.
	sums := []int64{res.Traffic.BytesSent, res.Traffic.Messages}
	for _, lv := range res.LayerVolume {
		t := lv.Total()
		sums = append(sums, t.BytesSent, t.Messages)
	}
	loads := len(sums)
	sums = append(sums, make([]int64, loadSlots*c.Size())...)
	peak, err := memstat.PeakRSS()
	if err != nil {
		peak = 0 // not measurable here: reported as 0
	}
	mine := sums[loads+loadSlots*c.Rank():]
	mine[0], mine[1], mine[3] = res.LocalEdges, peak, memstat.ProcessKey()
	if res.GatheredColumns {
		mine[2] = 1
	}
	if err := c.AllreduceInt64(ctx, PhaseReport, sums, comm.Sum); err != nil {
		return nil, fmt.Errorf("pagerank: report: %w", err)
	}
	times := []float64{res.Setup.Seconds(), res.Configuration.Seconds(), res.Compute.Seconds(), res.Communication.Seconds()}
	for _, d := range res.IterationTimes {
		times = append(times, d.Seconds())
	}
	if err := c.AllreduceFloat64(ctx, PhaseReport, times, comm.Max); err != nil {
		return nil, fmt.Errorf("pagerank: report: %w", err)
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	rep := &Report{
		PageRankRun: results.PageRankRun{
			Envelope: results.Envelope{Command: "pagerank"}, Input: in.Name, NumRanks: c.Size(), Threads: cfg.Threads,
			Vertices: res.NumVertices, Edges: res.NumEdges, Alpha: cfg.Alpha, Tol: cfg.Tol,
			Iterations: res.Iterations, Converged: res.Converged, Residual: res.Residual, TotalRank: res.Total,
			Allreduce: res.Network, Partition: cfg.Partition.String(), Method: results.PageRankJacobi,
			CommBytes: sums[0], CommMessages: sums[1], InputEdges: res.InputEdges,
			Layers: make([]results.PageRankLayer, len(res.LayerVolume)),
			Top:    make([]results.TopVertex, len(top)),
		},
		WarnMaxIter: !res.Converged,
		Undirected:  cfg.Undirected,
		Weighted:    cfg.Weighted,
	}
	if cfg.GaussSeidel {
		rep.Method = results.PageRankGaussSeidel
	}
	rep.Setup = results.PageRankSetup{Total: times[0], Configuration: times[1]}
	rep.L1Changes, rep.IterationTimes = res.L1Changes, times[4:]
	if res.Iterations > 0 {
		it := float64(res.Iterations)
		rep.TimePerIteration = results.PageRankTimes{Compute: times[2] / it, Communication: times[3] / it}
		iters := slices.Clone(times[4:])
		slices.Sort(iters)
		rep.IterationTime = results.PageRankSpread{Min: iters[0], Median: iters[len(iters)/2], Max: iters[len(iters)-1]}
	}
	for i := range rep.Layers {
		rep.Layers[i] = results.PageRankLayer{Layer: i + 1, Bytes: sums[2+2*i], Messages: sums[3+2*i]}
	}
	peaks, keys := make([]int64, c.Size()), make([]int64, c.Size())
	for r := range c.Size() {
		its := sums[loads+loadSlots*r:]
		peaks[r], keys[r] = its[1], its[3]
		load := results.PageRankRankLoad{Rank: r, Edges: its[0], PeakMemoryBytes: its[1], ColumnSums: results.PageRankColumnLoop}
		if its[2] != 0 {
			load.ColumnSums = results.PageRankColumnGathers
		}
		rep.RankLoads = append(rep.RankLoads, load)
		rep.PeakMemoryBytes = max(rep.PeakMemoryBytes, load.PeakMemoryBytes)
	}
	rep.JobPeakMemoryBytes, rep.Processes = memstat.JobPeak(peaks, keys)
	for i, v := range top {
		rep.Top[i] = results.TopVertex{ID: v.ID + in.IDOffset, Score: v.Score}
	}
	for i := range all {
		all[i].ID += in.IDOffset
	}
	rep.All = all
	return rep, nil
}

// IsInputError reports whether err is about the input (a malformed edge
// list or a file that cannot be read) rather than the run.
func IsInputError(err error) bool {
	var le *edgelist.EdgeListError
	var pe *fs.PathError
	return errors.As(err, &le) || errors.As(err, &pe) || errors.Is(err, ErrWeight)
}
