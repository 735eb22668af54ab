package results

import (
	"encoding/json"
	"fmt"
	"io"
)

// The iteration methods of a PageRank run (PageRankRun.Method).
const (
	PageRankJacobi      = "jacobi"       // every vertex from the previous iteration's ranks
	PageRankGaussSeidel = "gauss-seidel" // sweeps in place, when the run was configured for Gauss-Seidel
)

// How a rank summed its long columns (PageRankRankLoad.ColumnSums), chosen
// by timing both on the first iterations (spmv's columnRuns.gathers).
const (
	PageRankColumnLoop    = "loop"    // the Go loop
	PageRankColumnGathers = "gathers" // AVX2 gathers
)

// PageRankRun is the run record of a PageRank run (schema_version 2): the
// Envelope's keys, the run's parameters, its convergence, the per-iteration
// time split, the traffic (configuration excluded) and the per-layer volume
// of the allreduce (Kylix Fig. 5). The CLI writes it and `graphrun report`
// reads it.
type PageRankRun struct {
	Envelope
	Input            string          `json:"input"`
	NumRanks         int             `json:"num_ranks"`
	Threads          int             `json:"threads"`
	Vertices         int64           `json:"vertices"`
	Edges            int64           `json:"edges"`
	Alpha            float64         `json:"alpha"`
	Tol              float64         `json:"tol"`
	Iterations       int             `json:"iterations"`
	Converged        bool            `json:"converged"`
	Residual         float64         `json:"residual"`
	TotalRank        float64         `json:"total_rank"`
	Allreduce        string          `json:"allreduce"`
	Partition        string          `json:"partition"`
	Method           string          `json:"method"` // PageRankJacobi or PageRankGaussSeidel
	Setup            PageRankSetup   `json:"setup"`
	TimePerIteration PageRankTimes   `json:"time_per_iteration"`
	IterationTime    PageRankSpread  `json:"iteration_time"`
	CommBytes        int64           `json:"comm_bytes"`    // all ranks, all iterations
	CommMessages     int64           `json:"comm_messages"` // all ranks, all iterations
	Layers           []PageRankLayer `json:"layers"`
	Top              []TopVertex     `json:"top"`

	// L1Changes is the L1 change of the rank vector after each iteration,
	// IterationTimes each iteration's wall time on the slowest rank in
	// seconds (both absent when there was no iteration).
	L1Changes      []float64 `json:"l1_changes,omitempty"`
	IterationTimes []float64 `json:"iteration_times,omitempty"`

	// InputEdges is the number of edges read (all ranks, before
	// the undirected view's reverses and deduplication); PeakMemoryBytes the
	// largest peak resident set size of the job's processes (the whole
	// process: set-up, iterations and report), JobPeakMemoryBytes the sum
	// of the peaks of its Processes processes (in-process ranks share one;
	// with replicas, one replica per rank); RankLoads each rank's share of
	// the matrix and its process's peak.
	InputEdges         int64              `json:"input_edges"`
	PeakMemoryBytes    int64              `json:"peak_memory_bytes"`
	JobPeakMemoryBytes int64              `json:"job_peak_memory_bytes,omitempty"`
	Processes          int                `json:"processes,omitempty"`
	RankLoads          []PageRankRankLoad `json:"rank_loads"`
}

// PageRankRankLoad is one rank's load: the distinct edges of its matrix,
// the peak resident set size of the process it ran in (the same for the
// in-process ranks of one process) and how it summed its long columns.
type PageRankRankLoad struct {
	Rank            int    `json:"rank"`
	Edges           int64  `json:"edges"`
	PeakMemoryBytes int64  `json:"peak_memory_bytes"`
	ColumnSums      string `json:"column_sums"` // PageRankColumnLoop or PageRankColumnGathers
}

// PageRankSetup is the time before the first iteration in seconds, the
// maximum over the ranks: all of it (reading or generating the input, in
// two passes, relabel, route the edges, build the matrix, out-degrees,
// configure the allreduce), and the allreduce's
// configuration alone (Kylix §V's "configuration").
type PageRankSetup struct {
	Total         float64 `json:"total"`
	Configuration float64 `json:"configuration"`
}

// PageRankTimes are seconds per iteration, the maximum over the ranks.
type PageRankTimes struct {
	Compute       float64 `json:"compute"`
	Communication float64 `json:"communication"`
}

// PageRankSpread is the spread of the iterations' wall times in seconds,
// each iteration timed on the slowest rank: a loaded machine shows as a
// median well above the minimum.
type PageRankSpread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// PageRankLayer is the traffic of one layer of the allreduce network over
// all ranks and iterations.
type PageRankLayer struct {
	Layer    int   `json:"layer"`
	Bytes    int64 `json:"bytes"`
	Messages int64 `json:"messages"`
}

// TopVertex is one of the highest-ranked vertices, by its original id.
type TopVertex struct {
	ID    int64   `json:"id"`
	Score float64 `json:"score"`
}

// ReadPageRankJSON decodes a PageRank run record and checks the fields a
// report needs. A record of a later schema_version than SchemaVersion is
// refused.
func ReadPageRankJSON(r io.Reader) (*PageRankRun, error) {
	var run PageRankRun
	if err := json.NewDecoder(r).Decode(&run); err != nil {
		return nil, fmt.Errorf("results: pagerank JSON: %w", err)
	}
	switch {
	case run.NumRanks < 1:
		return nil, fmt.Errorf("results: pagerank JSON: num_ranks %d < 1", run.NumRanks)
	case run.Vertices < 0 || run.Edges < 0 || run.Iterations < 0:
		return nil, fmt.Errorf("results: pagerank JSON: negative vertices, edges or iterations")
	}
	return &run, nil
}

// LayerVolume is one butterfly layer's traffic, all ranks, per iteration or
// in total.
type LayerVolume struct {
	Bytes    float64
	Messages float64
}

// LayerVolumes returns the run's per-layer traffic per iteration.
func (r *PageRankRun) LayerVolumes() []LayerVolume {
	it := float64(max(1, r.Iterations))
	v := make([]LayerVolume, len(r.Layers))
	for i, l := range r.Layers {
		v[i] = LayerVolume{Bytes: float64(l.Bytes) / it, Messages: float64(l.Messages) / it}
	}
	return v
}

// AllreduceLabel names a PageRank run's allreduce for its summary line:
// "kylix 4x4 allreduce", or "no allreduce" on one rank, which has nothing
// to reduce with.
func AllreduceLabel(network string, ranks int) string {
	if ranks == 1 {
		return "no allreduce"
	}
	return network + " allreduce"
}
