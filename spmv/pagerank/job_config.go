package pagerank

// A pagerank job's configuration as its caller gives it, checked against
// itself and turned into a Source and a Job: an edge list or a Graph500
// Kronecker graph (Kylix §VII runs PageRank on edge lists), the allreduce
// network and its degrees (Kylix's sparse networks, or the dense hypercube
// of Zhang and Qiu §IV-E), and the elastic job that survives losses and
// takes processes in (Zhang and Qiu §II, §III, §V). Every error about one
// setting is a fielderr.Error naming the JobConfig field at fault, and the
// checks run in a fixed order (the fields, the names, the degrees, then the
// elastic job), so the first fault reported does not depend on the caller.

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/memstat"
)

// JobConfig is a pagerank job as its caller configures it: the input, the
// algorithm's settings (the allreduce, partition and degrees by name, as
// ParseAllreduce, ParsePartition and allreduce.ParseDegrees read them) and
// what the report collects. Three settings have a zero value that is also
// a valid choice; their Set fields say they were chosen.
type JobConfig struct {
	Kron    int  // a Kronecker graph of this scale instead of an edge list
	KronSet bool // Kron was chosen (then it must be in 1..kronecker.MaxScale)

	Alpha, Tol float64
	MaxIter    int
	Iterations int // > 0: exactly this many iterations; 0: until Tol or MaxIter
	// IterationsSet says Iterations was chosen: then it must be ≥ 1.
	IterationsSet bool

	Undirected, GaussSeidel bool
	Allreduce, Partition    string
	Degrees                 string // kylix degrees ("8x4x2") or "auto" (designed)
	// DegreesSet says Degrees was chosen: only the kylix allreduce and a
	// job that keeps its size take chosen degrees other than auto.
	DegreesSet bool

	Top    int  // report this many top vertices
	Gather bool // collect every vertex's score on rank 0 (Report.All)

	Elastic bool // survive losing ranks and take joining processes in
	Join    bool // this process joins a running elastic job

	// The files of Config's vectors ("id weight" lines, ReadVector; "" for
	// none), and PersonalizeIDs, a uniform seed set in place of a
	// Personalize file; ids as in the input's file.
	Personalize, Dangling, NStart string
	PersonalizeIDs                []int64

	// Weights says whether the run uses edge weights (Config.Weighted):
	// "auto" (or "") an edge list's when its format has them (.wel, .wsg,
	// a real or integer Matrix Market matrix) and a Kronecker graph's none,
	// "on" the edge list's or the Kronecker generator's (kernel 3's), "off"
	// none.
	Weights string
}

// DefaultJobConfig is the job of DefaultConfig with designed degrees,
// reporting the top 10 vertices.
func DefaultJobConfig() JobConfig {
	return JobConfig{
		Alpha: DefaultAlpha, Tol: DefaultTol, MaxIter: DefaultMaxIter,
		Allreduce: AllreduceKylix.String(), Partition: PartitionRandomEdge.String(), Degrees: "auto", Top: 10,
		Weights: "auto",
	}
}

// ErrNoInput is Source's error when the job has neither an edge list nor a
// Kronecker graph to run on.
var ErrNoInput = errors.New("pagerank: no input: neither an edge list nor a Kronecker graph")

// CheckJoin checks the configuration of a process joining a running
// elastic job (Join): it needs Elastic, and the degrees are the job's.
// jobErr is the transport's verdict on the join (launch.Config.CheckJoin),
// returned between the two checks.
func (jc JobConfig) CheckJoin(jobErr error) error {
	if !jc.Elastic {
		return fielderr.New("Join", "only an elastic job takes processes in")
	}
	if jobErr != nil {
		return jobErr
	}
	if jc.DegreesSet && !strings.EqualFold(strings.TrimSpace(jc.Degrees), "auto") {
		return fielderr.New("Degrees", "cannot be combined with joining a running job: the degrees are designed anew whenever the job changes size")
	}
	return nil
}

// Source checks the run's input, an edge list file (file, "" for none) or
// Kron, and returns it. openFile resolves file with its format, as every
// reader of an edge list does, its errors returned as they are; with
// neither input the error is ErrNoInput. A stream is read once by rank 0,
// so neither an elastic job, which re-reads its input when it changes
// size, nor a replicated one (replicated) can read it.
func (jc JobConfig) Source(file string, openFile func(path string) (*edgelist.Input, error), replicated bool) (*Source, error) {
	src, err := jc.source(file, openFile, replicated)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(strings.TrimSpace(jc.Weights)) {
	case "", "auto":
		if src.File != nil {
			src.Weighted, err = inputWeighted(src.File)
		}
	case "on":
		src.Weighted = true
		if src.File != nil {
			if has, herr := inputWeighted(src.File); herr == nil && !has {
				err = fmt.Errorf("%s: %w", src.File.Path, edgelist.ErrUnweighted)
			}
		}
	case "off":
	default:
		err = fmt.Errorf("unknown choice %q (want auto, on or off)", jc.Weights)
	}
	if err != nil {
		return nil, fielderr.Wrap("Weights", err)
	}
	return src, nil
}

// inputWeighted reports whether an edge list has weights: a file's format
// (and a Matrix Market file's banner, edgelist.HasWeights), a stream's
// format alone (.wel or .wsg: its banner is read once, by the run).
func inputWeighted(in *edgelist.Input) (bool, error) {
	if in.Stream {
		return in.Detected == edgelist.EdgeFormatWEL || in.Detected == edgelist.EdgeFormatWSG, nil
	}
	return edgelist.HasWeights(in.Path, in.Format)
}

// source is Source without the weights.
func (jc JobConfig) source(file string, openFile func(path string) (*edgelist.Input, error), replicated bool) (*Source, error) {
	switch {
	case jc.KronSet && file != "":
		return nil, fielderr.New("Kron", "cannot be combined with the edge list %s", file)
	case jc.KronSet:
		if jc.Kron < 1 || jc.Kron > kronecker.MaxScale {
			return nil, fielderr.New("Kron", "%d is outside 1..%d", jc.Kron, kronecker.MaxScale)
		}
		src := &Source{Kron: kronecker.DefaultParams(jc.Kron)}
		if err := src.Kron.Validate(); err != nil {
			return nil, fielderr.Wrap("Kron", err)
		}
		return src, nil
	case file == "":
		return nil, ErrNoInput
	}
	in, err := openFile(file)
	if err != nil {
		return nil, err
	}
	if in.Stream {
		switch {
		case jc.Elastic:
			return nil, fielderr.New("Elastic", "%s is a stream, read once: an elastic job re-reads its input when it changes size; give a regular file", in.Path)
		case replicated:
			return nil, fielderr.New("Replicas", "%s is a stream, read once by rank 0: replicas cannot read it too; give a regular file", in.Path)
		}
	}
	return &Source{File: in}, nil
}

// Job checks the algorithm's settings and returns the run's Job on a job
// of ranks ranks with threads goroutines per rank; the caller adds the
// callbacks. With Elastic, elasticErr is the transport's verdict on an
// elastic job (launch.Plan.CheckElastic), returned before the check that
// the allreduce can be elastic.
func (jc JobConfig) Job(ranks, threads int, elasticErr error) (Job, error) {
	job := Job{Config: DefaultConfig(), Top: jc.Top, Gather: jc.Gather}
	job.Threads = threads
	job.Alpha, job.Tol, job.MaxIter, job.Iterations = jc.Alpha, jc.Tol, jc.MaxIter, jc.Iterations
	// The names are checked after the other fields, in Check's order.
	part, partErr := ParsePartition(jc.Partition)
	network, networkErr := ParseAllreduce(jc.Allreduce)
	job.Undirected, job.Allreduce, job.Partition, job.GaussSeidel = jc.Undirected, network, part, jc.GaussSeidel
	if jc.IterationsSet && jc.Iterations == 0 {
		return Job{}, fielderr.New("Iterations", "%d is less than 1", jc.Iterations)
	}
	if err := job.Check(); err != nil {
		return Job{}, err
	}
	if partErr != nil {
		return Job{}, fielderr.Wrap("Partition", partErr)
	}
	if networkErr != nil {
		return Job{}, fielderr.Wrap("Allreduce", networkErr)
	}
	switch {
	case jc.GaussSeidel && ranks != 1:
		return Job{}, fielderr.New("GaussSeidel", "sweeps one rank's vertices in place: needs one rank, not %d", ranks)
	case jc.GaussSeidel && jc.Elastic:
		return Job{}, fielderr.New("GaussSeidel", "sweeps one rank's vertices in place: not in an elastic job")
	}
	switch {
	case job.Allreduce == AllreduceKylix:
		deg, err := allreduce.ParseDegrees(jc.Degrees, ranks)
		if err != nil {
			return Job{}, fielderr.Wrap("Degrees", err)
		}
		job.Degrees = deg
	case jc.DegreesSet:
		return Job{}, fielderr.New("Degrees", "only the kylix allreduce takes degrees (allreduce %s)", jc.Allreduce)
	}
	if !jc.Elastic {
		return job, nil
	}
	if elasticErr != nil {
		return Job{}, elasticErr
	}
	if job.Allreduce == AllreduceDense {
		return Job{}, fielderr.New("Elastic", "runs on the sparse allreduces, not allreduce %s", AllreduceDense)
	}
	return job, nil
}

// SetVectors reads the job's vectors (Personalize or PersonalizeIDs,
// Dangling, NStart) into job's Config, with the ids of src's file (1-based
// for Matrix Market), sets Weighted as src hands out weights, and checks
// the job again with them. Its errors are
// fielderr.Errors naming the JobConfig or Config field, around the file's
// name and line.
func (jc JobConfig) SetVectors(job *Job, src *Source) error {
	var offset int64
	if src != nil && src.File != nil {
		offset = src.File.IDOffset
	}
	job.Weighted = src != nil && src.Weighted
	read := func(field, path string) (*Vector, error) {
		if path == "" {
			return nil, nil
		}
		v, err := ReadVectorFile(path, offset)
		if err != nil {
			return nil, fielderr.Wrap(field, err)
		}
		return v, nil
	}
	var err error
	if job.Personalization, err = read("Personalize", jc.Personalize); err != nil {
		return err
	}
	if jc.PersonalizeIDs != nil {
		if jc.Personalize != "" {
			return fielderr.New("PersonalizeIDs", "cannot be combined with the file %s", jc.Personalize)
		}
		ids := make([]int64, len(jc.PersonalizeIDs))
		for i, id := range jc.PersonalizeIDs {
			ids[i] = id - offset
		}
		v := UniformVector(ids)
		v.IDOffset = offset
		if err := v.check(); err != nil {
			return fielderr.Wrap("PersonalizeIDs", err)
		}
		job.Personalization = v
	}
	if job.Dangling, err = read("Dangling", jc.Dangling); err != nil {
		return err
	}
	if job.NStart, err = read("NStart", jc.NStart); err != nil {
		return err
	}
	return job.Check() // the vectors against the other settings (GaussSeidel)
}

// GCPercent is the garbage collector's target during a pagerank run
// (memstat.LeanHeap): the heap is a few large arrays without pointers, so
// a collection costs little, and Go's default of 100 lets the heap grow to
// twice what it holds. Measured on a symmetric Kronecker graph of scale 21
// over 5 iterations (2026-11-24): peaks of 682–690 MB
// at 10, 710 at 20, 725 at 50, 720 at 100, set-up time the same within
// noise.
const GCPercent = 10

// LeanHeap sets this process's garbage collector target to GCPercent for a
// run of job, and has job return the set-up's garbage to the system once
// per process, before the iterations and outside the timed regions
// (memstat.Release). The returned function restores the previous target.
func LeanHeap(job *Job) (restore func()) {
	prev := memstat.LeanHeap(GCPercent)
	var release sync.Once
	job.SetupDone = func() { release.Do(memstat.Release) }
	return func() { memstat.LeanHeap(prev) }
}
