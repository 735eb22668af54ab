package pagerank

// graphrun pagerank's settings as its command line gives them, checked
// against each other and turned into a Source and a Config: an edge list
// or a Graph500 Kronecker graph (paper 000 §VII runs PageRank on edge
// lists), the allreduce network and its degrees (paper 000's Kylix, or
// paper 002 §IV-E's dense hypercube), and the elastic job that survives
// losses and takes processes in (paper 002 §II, §III, §V); see
// REFERENCES.md. Every error is a fielderr.Error naming the flag at fault,
// in the order the command line checks them.

import (
	"errors"
	"strings"
	"sync"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/memstat"
)

// Settings are pagerank's settings as its command line gives them, each
// field named after its flag.
type Settings struct {
	Kron                          int // a Kronecker graph of this scale instead of an edge list
	Alpha, Tol                    float64
	MaxIter, Iterations           int
	Undirected, GaussSeidel       bool
	Allreduce, Degrees, Partition string
	Top                           int
	Out                           string // every vertex's score to this file
	Elastic, Join                 bool
	// Given reports whether the flag of that name was given on the command
	// line: some settings' checks depend on it.
	Given func(flag string) bool
}

// CheckJoin checks the settings of a process joining a running elastic
// job (Join): it needs Elastic, and the degrees are the job's. jobErr is
// the transport's verdict on the join (launch.CheckJoin), returned between
// the two checks, as the command line orders them.
func (s Settings) CheckJoin(jobErr error) error {
	if !s.Elastic {
		return fielderr.New("join", "needs --elastic: only an elastic job takes processes in")
	}
	if jobErr != nil {
		return jobErr
	}
	if s.Given("degrees") && !strings.EqualFold(strings.TrimSpace(s.Degrees), "auto") {
		return fielderr.New("degrees", "cannot be combined with --join: the degrees are designed anew whenever the job changes size")
	}
	return nil
}

// Source checks the run's input, an edge list file (file: the FILE
// argument, "" for none) or Kron, and returns it. openFile resolves file
// with its format, as every command reading an edge list does, its
// errors returned as they are. A stream is read once by rank 0, so
// neither an elastic job, which re-reads its input when it changes size,
// nor a replicated one (replicated) can read it.
func (s Settings) Source(file string, openFile func(path string) (*edgelist.Input, error), replicated bool) (*Source, error) {
	switch {
	case s.Given("kron") && file != "":
		return nil, fielderr.New("kron", "cannot be combined with the edge list %s", file)
	case s.Given("kron"):
		if s.Kron < 1 || s.Kron > kronecker.MaxScale {
			return nil, fielderr.New("kron", "%d is outside 1..%d", s.Kron, kronecker.MaxScale)
		}
		src := &Source{Kron: kronecker.DefaultParams(s.Kron)}
		if err := src.Kron.Validate(); err != nil {
			return nil, fielderr.Wrap("kron", err)
		}
		return src, nil
	case file == "":
		return nil, errors.New("pagerank needs an edge list FILE (or - for standard input) or --kron SCALE")
	}
	in, err := openFile(file)
	if err != nil {
		return nil, err
	}
	if in.Stream {
		switch {
		case s.Elastic:
			return nil, fielderr.New("elastic", "%s is a stream, read once: an elastic job re-reads its input when it changes size; give a regular file", in.Path)
		case replicated:
			return nil, fielderr.New("replicas", "%s is a stream, read once by rank 0: replicas cannot read it too; give a regular file", in.Path)
		}
	}
	return &Source{File: in}, nil
}

// Config checks the algorithm's settings and returns the run's Config on a
// job of ranks ranks with threads goroutines per rank; the caller adds the
// callbacks. With Elastic, elasticErr is the transport's verdict on an
// elastic job (launch.Plan.CheckElastic), returned before the check that
// the allreduce can be elastic.
func (s Settings) Config(ranks, threads int, elasticErr error) (Config, error) {
	cfg := Config{PageRankConfig: DefaultPageRankConfig(), Top: s.Top, Gather: s.Out != ""}
	cfg.Threads = threads
	cfg.Alpha, cfg.Tol, cfg.MaxIter, cfg.Iterations = s.Alpha, s.Tol, s.MaxIter, s.Iterations
	// The names are checked after the other fields, in Check's order.
	part, partErr := ParsePageRankPartition(s.Partition)
	network, networkErr := ParsePageRankAllreduce(s.Allreduce)
	cfg.Undirected, cfg.Allreduce, cfg.Partition, cfg.GaussSeidel = s.Undirected, network, part, s.GaussSeidel
	if s.Given("iterations") && s.Iterations == 0 {
		return Config{}, fielderr.New("iterations", "%d is less than 1", s.Iterations)
	}
	if err := cfg.Check(); err != nil {
		var ce *PageRankConfigError
		if errors.As(err, &ce) {
			return Config{}, fielderr.New(ce.Field, "%s", ce.Msg)
		}
		return Config{}, err
	}
	if partErr != nil {
		return Config{}, fielderr.Wrap("partition", partErr)
	}
	if networkErr != nil {
		return Config{}, fielderr.Wrap("allreduce", networkErr)
	}
	switch {
	case s.GaussSeidel && ranks != 1:
		return Config{}, fielderr.New("gauss-seidel", "sweeps one rank's vertices in place: needs one rank, not %d", ranks)
	case s.GaussSeidel && s.Elastic:
		return Config{}, fielderr.New("gauss-seidel", "sweeps one rank's vertices in place: not with --elastic")
	}
	switch {
	case cfg.Allreduce == AllreduceKylix:
		deg, err := allreduce.ParseDegrees(s.Degrees, ranks)
		if err != nil {
			return Config{}, fielderr.Wrap("degrees", err)
		}
		cfg.Degrees = deg
	case s.Given("degrees"):
		return Config{}, fielderr.New("degrees", "only the kylix allreduce takes degrees (--allreduce %s)", s.Allreduce)
	}
	if !s.Elastic {
		return cfg, nil
	}
	if elasticErr != nil {
		return Config{}, elasticErr
	}
	if s.Allreduce == AllreduceDense.String() {
		return Config{}, fielderr.New("elastic", "runs on the sparse allreduces, not --allreduce %s", AllreduceDense)
	}
	return cfg, nil
}

// GCPercent is the garbage collector's target during a pagerank run
// (memstat.LeanHeap): the heap is a few large arrays without pointers, so
// a collection costs little, and Go's default of 100 lets the heap grow to
// twice what it holds. Measured on pagerank --kron 21 --undirected
// --iterations 5 (BENCHMARKS.md, "PageRank memory"): peaks of 682–690 MB
// at 10, 710 at 20, 725 at 50, 720 at 100, set-up time the same within
// noise.
const GCPercent = 10

// LeanHeap sets this process's garbage collector target to GCPercent for a
// run of cfg, and has cfg return the set-up's garbage to the system once
// per process, before the iterations and outside the timed regions
// (memstat.Release). The returned function restores the previous target.
func LeanHeap(cfg *Config) (restore func()) {
	prev := memstat.LeanHeap(GCPercent)
	var release sync.Once
	cfg.SetupDone = func() { release.Do(memstat.Release) }
	return func() { memstat.LeanHeap(prev) }
}
