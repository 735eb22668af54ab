package bench

// bench allreduce-dense as a whole (Li et al. Fig. 4/5, Zhang and Qiu Fig.
// 10): its settings checked, the runs over in-process rank counts or over
// one job of processes, a JSON per row, the table, the timings and their
// chart.

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/graphrun/graphrun/allreduce/hypercube"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/internal/units"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/results/report"
)

// TagPattern is what a matrix's tag may be: one word that can stand in a
// matrix's key and a file name.
var TagPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// DenseSpec configures the dense allreduce benchmark: lists, counts and
// rates as text, checked by Parse, whose errors name the field at fault.
type DenseSpec struct {
	Ranks      string // in-process rank counts, comma-separated
	Sizes      string // vector lengths in float64 elements (ParseCounts)
	Algorithms string // comma-separated hypercube.ParseAlgorithm names
	Repeat     int    // timed calls per algorithm and row
	Stat       string // median or min of the timed calls
	Workers    int    // hypercube.Options.Workers
	Pieces     int    // hypercube.Options.Pieces
	// Tasks, if positive, is the number of tasks per rank that each commit
	// a vector to a shared variable (Li et al. §3): the rank reduces them
	// locally and one allreduce across ranks gives every task the sum. 0:
	// every rank calls the allreduce directly.
	Tasks         int
	LinkBandwidth string        // a rate (units.ParseRate) of the modelled link, "" for none
	LinkLatency   time.Duration // the modelled link's latency of a collective call
	Force         bool          // run lengths above the memory estimate
	Tag           string        // a word naming the setup (TagPattern)
	Replicas      int           // replicas of a job of processes
	// AlgorithmsGiven and LinkLatencyGiven: Algorithms and LinkLatency
	// were set explicitly, so the table's key names them.
	AlgorithmsGiven, LinkLatencyGiven bool
}

// DenseMatrix is a checked DenseSpec: the configuration every rank times
// and the rank counts and vector lengths of the rows.
type DenseMatrix struct {
	Spec              DenseSpec
	Config            DenseConfig
	RankCounts, Sizes []int

	avail    int64  // the memory available when Run started
	memErr   error  // why avail is unknown
	skipNote string // DenseJob.SkipNote of the run
}

// Parse checks the settings; every error is a fielderr.Error naming the
// field at fault.
func (s DenseSpec) Parse() (*DenseMatrix, error) {
	m := &DenseMatrix{Spec: s}
	var err error
	if m.Sizes, err = ParseCounts(s.Sizes); err != nil {
		return nil, fielderr.Wrap("Sizes", err)
	}
	if m.RankCounts, err = ParseCounts(s.Ranks); err != nil {
		return nil, fielderr.Wrap("Ranks", err)
	}
	if err := launch.CheckRanks(slices.Max(m.RankCounts)); err != nil {
		return nil, err
	}
	var algs []hypercube.Algorithm
	for _, name := range strings.Split(s.Algorithms, ",") {
		a, err := hypercube.ParseAlgorithm(strings.TrimSpace(name))
		if err != nil {
			return nil, fielderr.Wrap("Algorithms", err)
		}
		algs = append(algs, a)
	}
	switch {
	case s.Repeat < 1:
		return nil, fielderr.New("Repeat", "%d is less than 1", s.Repeat)
	case s.Stat != "median" && s.Stat != "min":
		return nil, fielderr.New("Stat", "%q is neither median nor min", s.Stat)
	case s.Workers < 1:
		return nil, fielderr.New("Workers", "%d is less than 1", s.Workers)
	case s.Pieces < 1:
		return nil, fielderr.New("Pieces", "%d is less than 1", s.Pieces)
	case s.Tasks < 0:
		return nil, fielderr.New("Tasks", "%d is negative", s.Tasks)
	case s.Tag != "" && !TagPattern.MatchString(s.Tag):
		return nil, fielderr.New("Tag", "%q is not one word of letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", s.Tag)
	}
	var bandwidth float64
	if s.LinkBandwidth != "" {
		if bandwidth, err = units.ParseRate(s.LinkBandwidth); err != nil {
			return nil, fielderr.Wrap("LinkBandwidth", err)
		}
		if s.LinkLatency < 0 {
			return nil, fielderr.New("LinkLatency", "%v is negative", s.LinkLatency)
		}
	}
	m.Config = DenseConfig{Algorithms: algs, Repeat: s.Repeat, Stat: s.Stat, Tasks: s.Tasks, Bandwidth: bandwidth, Latency: s.LinkLatency,
		Options: hypercube.Options{Phase: "bench.dense", Workers: s.Workers, Pieces: s.Pieces}}
	return m, nil
}

// ParseCounts parses a comma-separated list of positive whole numbers up
// to 10^12, each plain, with an exponent (1e4, 2.5e6) or a unit prefix
// (10k, 64Ki: internal/units).
func ParseCounts(list string) ([]int, error) {
	return parseList(list, func(field string) (int64, error) { return units.ParseCount(field, 1, 1e12) })
}

// parseList parses a comma-separated list, each field by parse.
func parseList(list string, parse func(field string) (int64, error)) ([]int, error) {
	var out []int
	for _, field := range strings.Split(list, ",") {
		v, err := parse(field)
		if err != nil {
			return nil, err
		}
		out = append(out, int(v))
	}
	return out, nil
}

// DenseAlgorithm is one algorithm's measurement in a row's JSON.
type DenseAlgorithm struct {
	Algorithm string    `json:"algorithm"`
	Seconds   float64   `json:"seconds"`
	Samples   []float64 `json:"samples"`
	BytesSent int64     `json:"bytes_sent"`
	Messages  int64     `json:"messages"`
}

// DenseRun is the JSON of one rank count and vector length. Times are the
// slowest rank's, in seconds; bytes and messages are those all ranks send
// to other ranks in one call.
type DenseRun struct {
	Transport       string           `json:"transport"`
	Ranks           int              `json:"ranks"`
	Elements        int              `json:"elements"`
	Stat            string           `json:"stat"`
	Repeat          int              `json:"repeat"`
	Workers         int              `json:"workers"`
	Pieces          int              `json:"pieces"`
	Tasks           int              `json:"tasks,omitempty"`
	LinkBandwidth   float64          `json:"link_bandwidth,omitempty"`
	LinkLatency     float64          `json:"link_latency,omitempty"`
	Tag             string           `json:"tag,omitempty"`
	Skipped         string           `json:"skipped,omitempty"`
	Algorithms      []DenseAlgorithm `json:"algorithms,omitempty"`
	TreeOverChunked float64          `json:"tree_over_chunked,omitempty"`
	// ModelTreeOverChunked is the link model's ratio (with a modelled
	// link): 2·⌈lg p⌉ vectors through the tree root's link
	// against 2(p−1)/p through each chunked rank's.
	ModelTreeOverChunked float64 `json:"model_tree_over_chunked,omitempty"`
}

// DenseSummary is summary.json of bench allreduce-dense.
type DenseSummary struct {
	Meta
	Transport  string     `json:"transport"`
	Algorithms []string   `json:"algorithms"`
	Files      []string   `json:"files"`
	Runs       []DenseRun `json:"runs"`
}

// Job is where a matrix that runs over a job of processes runs and what
// it writes: the job's plan (in-process ranks, or one rank of a TCP or MPI
// job; not a launch of local processes), whether such a launch started it
// (its table is named after the launching command line), the matrix's
// Output, and the writers of its text and of standard error. Only the
// process that reports (rank 0) prints and writes.
type Job struct {
	Plan         launch.Plan
	FromProcs    bool
	Out          *Output
	Text, Stderr io.Writer
}

// DenseJob is a Job of allreduce-dense, with the process that reports'
// timings file and chart directory (nil for none) and the names the
// caller gives the matrix: its key and the command line that regenerates
// its table.
type DenseJob struct {
	Job
	JSON  *output.File
	Plots *output.Dir

	Key, Command string
	// SkipNote ends the reason a vector length is skipped for lack of
	// memory: how to run it anyway.
	SkipNote string
}

// Run times the matrix: over every in-process rank count, or over the
// job's ranks, each vector length whose buffers fit in memory (the others
// are rows saying why they were skipped). The process that reports
// (rank 0) prints the table and writes the outputs.
func (m *DenseMatrix) Run(ctx context.Context, job DenseJob) error {
	plan, cfg, out := job.Plan, m.Config, job.Out
	m.skipNote = job.SkipNote
	report := plan.Reports() // only rank 0 (its first replica) prints and writes
	if report {
		out.Start("allreduce-dense", job.Key, job.Command)
	}
	m.avail, m.memErr = graph500.AvailableMemory()
	what := DenseTransport(plan)
	var rows []DenseRow
	var files []string
	var runs []DenseRun
	var bar *progress.Matrix
	// record keeps a finished row: its JSON in Dir and a progress step.
	record := func(r DenseRow) error {
		rows = append(rows, r)
		run := m.runJSON(what, r)
		file := fmt.Sprintf("allreduce-dense-p%d-n%s.json", r.Ranks, FormatElements(r.N))
		if err := out.WriteJSON(file, run); err != nil {
			return err
		}
		files, runs = append(files, file), append(runs, run)
		bar.Step(m.progressLine(r))
		return nil
	}
	if plan.MultiProcess() {
		var run []int
		var skipped []DenseRow
		for _, n := range m.Sizes {
			if why := m.fits(plan.LocalRanks(), n); why != "" {
				skipped = append(skipped, DenseRow{Ranks: plan.TotalRanks(), N: n, Skipped: why})
			} else {
				run = append(run, n)
			}
		}
		if report {
			bar = progress.NewMatrix(job.Stderr, "allreduce-dense", len(m.Sizes))
			for _, r := range skipped {
				if err := record(r); err != nil {
					return err
				}
			}
		}
		err := plan.RunRanks(ctx, job.Stderr, func(ctx context.Context, c comm.Comm) error {
			var onRow func(DenseRow) error
			if c.Rank() == 0 && report {
				onRow = record
			}
			_, err := MeasureDense(ctx, c, run, cfg, true, onRow)
			return err
		})
		if err != nil || !report {
			return err
		}
	} else {
		bar = progress.NewMatrix(job.Stderr, "allreduce-dense", len(m.RankCounts)*len(m.Sizes))
		if err := m.runInProcess(ctx, record); err != nil {
			return err
		}
	}
	bar.Finish()
	out.Finish()
	return m.report(job, what, rows, DenseSummary{Files: files, Runs: runs})
}

// runInProcess times every rank count and vector length on in-process
// ranks, one row at a time, handing each to record.
func (m *DenseMatrix) runInProcess(ctx context.Context, record func(DenseRow) error) error {
	for _, p := range m.RankCounts {
		for _, n := range m.Sizes {
			if why := m.fits(p, n); why != "" {
				if err := record(DenseRow{Ranks: p, N: n, Skipped: why}); err != nil {
					return err
				}
				continue
			}
			var got []DenseRow
			err := inproc.Run(ctx, p, func(ctx context.Context, c comm.Comm) error {
				r, err := MeasureDense(ctx, c, []int{n}, m.Config, false, nil)
				if c.Rank() == 0 {
					got = r
				}
				return err
			})
			if err != nil {
				return err
			}
			for _, r := range got {
				if err := record(r); err != nil {
					return err
				}
			}
			debug.FreeOSMemory()
		}
	}
	return nil
}

// report prints the table of the rows and writes summary.json, the
// timings file and the chart.
func (m *DenseMatrix) report(job DenseJob, what string, rows []DenseRow, summary DenseSummary) error {
	cfg := m.Config
	slices.SortStableFunc(rows, func(a, b DenseRow) int {
		if a.Ranks != b.Ranks {
			return a.Ranks - b.Ranks
		}
		return a.N - b.N
	})
	var table strings.Builder
	if err := WriteDenseTable(&table, what, cfg, rows); err != nil {
		return err
	}
	if _, err := io.WriteString(job.Text, table.String()); err != nil {
		return fmt.Errorf("bench allreduce-dense: %w", err)
	}
	summary.Meta, summary.Transport, summary.Algorithms = job.Out.Meta(), what, cfg.AlgorithmNames()
	if err := job.Out.WriteSummary(summary); err != nil {
		return err
	}
	timings := DenseTimings(cfg, rows)
	if job.JSON != nil {
		err := job.JSON.WriteAll(func(w io.Writer) error {
			return results.WriteIndentedJSON(w, struct {
				Transport string                   `json:"transport"`
				Stat      string                   `json:"stat"`
				Repeat    int                      `json:"repeat"`
				Bandwidth float64                  `json:"link_bandwidth,omitempty"`
				Timings   []report.AllreduceTiming `json:"timings"`
			}{what, cfg.Stat, cfg.Repeat, cfg.Bandwidth, timings})
		})
		if err != nil {
			return err
		}
	}
	if job.Plots != nil {
		chart, err := report.AllreduceChart(timings)
		if err != nil {
			return fmt.Errorf("bench allreduce-dense: chart: %w", err)
		}
		chart.Plot.Title.Text = "Dense allreduce time against vector length (" + what + ")"
		if _, err := chart.WriteFiles(job.Plots); err != nil {
			return err
		}
		job.Plots.Done()
	}
	return nil
}

// fits says why a vector of n elements on localRanks ranks of this
// machine is skipped, or "" when it fits (or Force).
func (m *DenseMatrix) fits(localRanks, n int) string {
	// Per rank: the vector and every algorithm's buffers (a round's
	// receipts: up to three vectors for the unsplittable hypercube, one
	// for tree and butterfly, half for chunked), with room for the
	// garbage collector.
	// Tasks add a vector each.
	need := int64(localRanks) * int64(n) * 8 * int64(8+m.Spec.Tasks)
	if m.Spec.Force || m.memErr != nil || need <= m.avail/10*8 {
		return ""
	}
	return fmt.Sprintf("skipped: needs about %.1f GB, %.1f GB available%s", float64(need)/1e9, float64(m.avail)/1e9, m.skipNote)
}

// DenseTransport says what the matrix runs over, for its table and JSON:
// in-process ranks, or a TCP or MPI job's processes (and replicas).
func DenseTransport(plan launch.Plan) string {
	if !plan.MultiProcess() {
		return "in-process ranks"
	}
	p := plan.TotalRanks()
	switch s := plan.Replication(); {
	case plan.MPI():
		return fmt.Sprintf("mpi, %d processes", p)
	case s > 1:
		return fmt.Sprintf("tcp, %d ranks × %d replicas (%d processes)", p, s, p*s)
	}
	return fmt.Sprintf("tcp, %d processes", p)
}

// runJSON is the JSON of one row.
func (m *DenseMatrix) runJSON(what string, r DenseRow) DenseRun {
	cfg := m.Config
	run := DenseRun{Transport: what, Ranks: r.Ranks, Elements: r.N, Stat: cfg.Stat, Repeat: cfg.Repeat,
		Workers: cfg.Options.Workers, Pieces: cfg.Options.Pieces, Tasks: cfg.Tasks, Tag: m.Spec.Tag, Skipped: r.Skipped}
	if cfg.Bandwidth > 0 {
		run.LinkBandwidth, run.LinkLatency = cfg.Bandwidth, cfg.Latency.Seconds()
	}
	if r.Skipped != "" {
		return run
	}
	for k, a := range cfg.Algorithms {
		run.Algorithms = append(run.Algorithms, DenseAlgorithm{Algorithm: a.String(), Seconds: r.Seconds[k], Samples: r.Samples[k],
			BytesSent: r.Bytes[k], Messages: r.Messages[k]})
	}
	if ratio, ok := cfg.TreeOverChunked(r); ok {
		run.TreeOverChunked = ratio
		if cfg.Bandwidth > 0 {
			run.ModelTreeOverChunked = ModelTreeOverChunked(r.Ranks)
		}
	}
	return run
}

// progressLine is a finished row in one line.
func (m *DenseMatrix) progressLine(r DenseRow) string {
	head := fmt.Sprintf("%d ranks, %s elements", r.Ranks, FormatCount(r.N))
	if r.Skipped != "" {
		return head + ": " + r.Skipped
	}
	var parts []string
	for k, a := range m.Config.Algorithms {
		parts = append(parts, fmt.Sprintf("%s %.3g ms", a, r.Seconds[k]*1e3))
	}
	line := head + ": " + strings.Join(parts, ", ")
	if ratio, ok := m.Config.TreeOverChunked(r); ok {
		line += fmt.Sprintf(", tree ÷ chunked %.2f", ratio)
	}
	return line
}
