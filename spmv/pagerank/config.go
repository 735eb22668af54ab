package pagerank

// PageRank's configuration: the algorithm's parameters with NetworkX's
// defaults, the edge partition (Kylix §II-B) and the allreduce network
// (Kylix's sparse networks, or Zhang and Qiu's dense chunked hypercube),
// and the check that names the field at fault.

import (
	"errors"
	"fmt"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/internal/enum"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// Partition is the edge partition of PageRank.
type Partition int

// Edge partitions of PageRank.
const (
	PartitionRandomEdge Partition = iota // hash of (u, v), Kylix §II-B
	PartitionBlock1D                     // block of the source vertex
)

// partitionNames are the names ParsePartition accepts.
var partitionNames = [...]string{PartitionRandomEdge: "random-edge", PartitionBlock1D: "1d"}

func (p Partition) String() string { return enum.Name(partitionNames[:], "partition", p) }

// ParsePartition turns a partition's name into a Partition.
func ParsePartition(s string) (Partition, error) {
	return enum.Parse[Partition](partitionNames[:], "partition", "random-edge or 1d", s)
}

// Allreduce is PageRank's allreduce: one of the sparse networks of
// allreduce.Kind, or the whole vector through the dense chunked hypercube.
type Allreduce int

// PageRank's allreduces.
const (
	AllreduceKylix  Allreduce = iota // allreduce.KindKylix
	AllreduceDirect                  // allreduce.KindDirect
	AllreduceBinary                  // allreduce.KindBinary
	AllreduceDense                   // hypercube.AlgChunked every iteration (pagerank_dense.go)
)

// allreduceNames are the names ParseAllreduce accepts.
var allreduceNames = [...]string{AllreduceKylix: "kylix", AllreduceDirect: "direct", AllreduceBinary: "binary", AllreduceDense: "dense"}

func (a Allreduce) String() string { return enum.Name(allreduceNames[:], "network", a) }

// ParseAllreduce turns a network's name into an Allreduce.
func ParseAllreduce(s string) (Allreduce, error) {
	return enum.Parse[Allreduce](allreduceNames[:], "network", "kylix, direct, binary or dense", s)
}

// sparseKind is the sparse network's allreduce.Kind (a is not AllreduceDense).
func (a Allreduce) sparseKind() allreduce.Kind {
	switch a {
	case AllreduceDirect:
		return allreduce.KindDirect
	case AllreduceBinary:
		return allreduce.KindBinary
	}
	return allreduce.KindKylix
}

// PageRank defaults, NetworkX's pagerank's: alpha, tol (the iteration
// stops when the L1 change is below n·tol, n the vertex count) and max_iter
// (NetworkX's is 100; a run that reaches it is not converged, where
// NetworkX raises PowerIterationFailedConvergence).
const (
	DefaultAlpha   = 0.85
	DefaultTol     = 1e-6
	DefaultMaxIter = 1000
)

// PageRank phase names (besides those of graph.Relabel and allreduce).
const (
	PhaseRoute   = "pagerank.route"
	PhaseCount   = "pagerank.count"
	PhaseScalars = "pagerank.scalars"
	PhaseGather  = "pagerank.gather"
	PhaseReport  = "pagerank.report"
	PhaseSetup   = "pagerank.setup"
)

// ErrConfig is wrapped by the errors about an invalid configuration.
var ErrConfig = errors.New("pagerank: invalid configuration")

// Config configures PageRank. The zero value is not valid: use
// DefaultConfig and change what is needed.
type Config struct {
	Alpha      float64 // damping factor, in [0, 1]
	Tol        float64 // stop when the L1 change is below n·Tol, as NetworkX's tol (in (0, 1])
	MaxIter    int     // stop after this many iterations (≥ 1)
	Iterations int     // > 0: run exactly this many iterations, ignoring Tol and MaxIter
	Undirected bool    // add the reverse of every edge
	Allreduce  Allreduce
	Degrees    []int     // kylix degrees; nil designs them (allreduce.AutoDegrees)
	Partition  Partition // PartitionRandomEdge or PartitionBlock1D
	Threads    int       // goroutines per rank for the sorts and the SpMV (≥ 1)
	// GaussSeidel sweeps a one-rank run's vertices in place, in the fused
	// iteration's position order (in-degree, descending): a vertex's new
	// rank reads the new r/d of the vertices before it in the sweep. The
	// fixed point is the same, reached in fewer iterations on the road and
	// Slashdot graphs and in more on Kronecker graphs (to 1e-10: road 61
	// against 119, Kronecker 69–70 against 37–39); the
	// sweep runs on one goroutine, so the result depends on no thread
	// count. One rank only, and not with AllreduceDense.
	GaussSeidel bool
	// Weighted uses the input's edge weights (the share is a
	// WeightedShare) as NetworkX's weight=: a vertex's rank goes to its
	// out-edges in proportion to their weights, and a vertex whose
	// out-edges weigh 0 in all is dangling (weights.go says how duplicates
	// combine).
	Weighted bool

	// Personalization, if set, is NetworkX's personalization: the
	// teleport distribution, normalised, in place of the uniform 1/n.
	// Dangling, if set, is NetworkX's dangling: where the rank of the
	// vertices without out-edges goes; unset, it follows Personalization
	// (uniform when that is unset too). NStart, if set, is NetworkX's
	// nstart: the start vector, normalised, in place of 1/n. A vertex not
	// listed has weight 0; a listed id must occur in some edge.
	Personalization, Dangling, NStart *Vector

	// SetupDone, if set, is called by every rank once its set-up is
	// complete and timed, before the first iteration (then the ranks
	// wait for each other): the place to return the set-up's garbage to
	// the operating system (memstat.Release), outside every timed region.
	SetupDone func()
	// Progress, if set, is called by every rank after each iteration.
	Progress func(Iteration)
}

// Iteration is an iteration a rank has finished, as Config.Progress
// reports it.
type Iteration struct {
	Number  int     // from 1, counting a resumed elastic run's earlier iterations
	L1      float64 // the L1 change of the scores
	Seconds float64 // the iteration's time on this rank: compute and communication
	// Threshold is the L1 change below which the run stops, n·Tol (0 when
	// it runs a fixed number of iterations).
	Threshold float64
}

// DefaultConfig is NetworkX's PageRank on the random edge partition
// and the kylix allreduce with designed degrees.
func DefaultConfig() Config {
	return Config{
		Alpha: DefaultAlpha, Tol: DefaultTol, MaxIter: DefaultMaxIter,
		Allreduce: AllreduceKylix, Partition: PartitionRandomEdge, Threads: 1,
	}
}

// configError is the error of an invalid field of a Config: a
// fielderr.Error naming the field, wrapped with ErrConfig.
func configError(field, format string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrConfig, fielderr.New(field, format, args...))
}

// Check validates the configuration; its errors wrap ErrConfig and a
// fielderr.Error naming the field at fault.
func (cfg Config) Check() error {
	bad := configError
	switch {
	case !(cfg.Alpha >= 0 && cfg.Alpha <= 1):
		return bad("Alpha", "%v is outside [0, 1]", cfg.Alpha)
	case cfg.Iterations < 0:
		return bad("Iterations", "%d is less than 1", cfg.Iterations)
	case !(cfg.Tol > 0 && cfg.Tol <= 1):
		return bad("Tol", "%v is outside (0, 1]", cfg.Tol)
	case cfg.MaxIter < 1:
		return bad("MaxIter", "%d is less than 1", cfg.MaxIter)
	case cfg.Threads < 1:
		return bad("Threads", "%d is less than 1", cfg.Threads)
	case cfg.Partition != PartitionRandomEdge && cfg.Partition != PartitionBlock1D:
		return bad("Partition", "unknown partition %v (want %s or %s)", cfg.Partition, PartitionRandomEdge, PartitionBlock1D)
	case cfg.GaussSeidel && cfg.Allreduce == AllreduceDense:
		return bad("GaussSeidel", "sweeps one rank's vertices in place: not with allreduce %s", AllreduceDense)
	case cfg.GaussSeidel && (cfg.Personalization != nil || cfg.Dangling != nil):
		return bad("GaussSeidel", "sweeps with a uniform teleport only: not with a personalization or dangling distribution")
	case cfg.GaussSeidel && cfg.Weighted:
		return bad("GaussSeidel", "sweeps unweighted edges only: not with weights")
	}
	for _, v := range []struct {
		field string
		vec   *Vector
	}{{"Personalization", cfg.Personalization}, {"Dangling", cfg.Dangling}, {"NStart", cfg.NStart}} {
		if v.vec == nil {
			continue
		}
		if err := v.vec.check(); err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, fielderr.Wrap(v.field, err))
		}
	}
	switch cfg.Allreduce {
	case AllreduceKylix:
	case AllreduceDirect, AllreduceBinary, AllreduceDense:
		if cfg.Degrees != nil {
			return bad("Degrees", "only the kylix allreduce takes degrees (allreduce %s)", cfg.Allreduce)
		}
	default:
		return bad("Allreduce", "unknown network %v (want %s, %s, %s or %s)", cfg.Allreduce,
			AllreduceKylix, AllreduceDirect, AllreduceBinary, AllreduceDense)
	}
	return nil
}

// threshold is the L1 change below which a run on n vertices has
// converged: n·Tol, NetworkX's stopping test.
func (cfg Config) threshold(n int64) float64 { return float64(n) * cfg.Tol }

// progressThreshold is Iteration.Threshold: the threshold, or 0 for a run
// of exactly Iterations iterations.
func (cfg Config) progressThreshold(n int64) float64 {
	if cfg.Iterations > 0 {
		return 0
	}
	return cfg.threshold(n)
}
