package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/internal/units"
	"github.com/graphrun/graphrun/results"
)

// benchAllreduceFlags are the flags of graphrun bench allreduce-dense.
type benchAllreduceFlags struct {
	transportFlags
	ranks      string
	sizes      string
	algorithms string
	repeat     int
	stat       string
	workers    int
	pieces     int
	link       string
	latency    time.Duration
	force      bool
	json       string
	plots      string
	tag        string
	out        benchOutput
	// fromProcs is set by --procs on the processes it starts, so that rank
	// 0 names the table after the --procs command line.
	fromProcs bool
}

// fromProcsFlag is the hidden flag --procs gives the rank processes of
// bench allreduce-dense.
const fromProcsFlag = "from-procs"

// benchTagPattern is what --tag accepts: one word that can stand in a
// marker comment's key and a file name.
var benchTagPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// newBenchAllreduceCommand is `graphrun bench allreduce-dense`: the time of
// one dense allreduce against the vector length for each algorithm and rank
// count — the curves of paper 001 Fig. 4/5 and paper 002 Fig. 10.
func newBenchAllreduceCommand() *cobra.Command {
	var f benchAllreduceFlags
	cmd := &cobra.Command{
		Use:   "allreduce-dense",
		Short: "Dense allreduce time against vector length: tree, butterfly, hypercube-unsplittable, hypercube-chunked",
		Long: `Times one allreduce (sum of float64 vectors, every rank ending with the sum)
for every algorithm of --algorithms, every vector length of --sizes and every
rank count of --ranks (in-process ranks), or over --procs N TCP processes.
Each time is the slowest rank's, the median (--stat) of --repeat calls after
a warm-up call whose result is checked; the calls of the algorithms
alternate, so that load from other jobs hits them alike. The last columns
are the tree time divided by the chunked hypercube time and the bytes all
ranks send per call (exact, counted by the transport).

--link-bandwidth models a cluster network on top of the real run: every
collective call of a rank lasts at least --link-latency plus the larger of
the bytes it sends and receives divided by the bandwidth (a full-duplex
link per rank), so that the algorithms' per-link volumes, not this
machine's cores, decide. The computation stays real.

Like every matrix of graphrun bench, it prints its table and, only when
asked, writes one JSON per rank count and vector length and summary.json
into --dir and regenerates its table in --doc (e.g. BENCHMARKS.md)
between marker comments named after its parameters (ranks or procs,
sizes, repeat, and the link model, algorithms, --tag … when given), so
that each configuration keeps a table of its own. In a job of several
processes rank 0 writes them.

Vector lengths whose buffers would not fit in 80% of the available memory
are skipped (--force runs them).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchAllreduce(cmd, &f) },
	}
	f.transportFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.ranks, "ranks", "2,4,8,16", "in-process rank counts")
	fl.StringVar(&f.sizes, "sizes", "1e4,1e5,1e6,1e7", "vector lengths in float64 elements: integers, 1eK or with a prefix ("+units.Help+")")
	fl.StringVar(&f.algorithms, "algorithms", "tree,butterfly,hypercube-unsplittable,hypercube-chunked", "algorithms to time")
	fl.IntVar(&f.repeat, "repeat", 5, "timed calls per algorithm and configuration")
	fl.StringVar(&f.stat, "stat", "median", "report the median or the min of the timed calls")
	fl.IntVar(&f.workers, "workers", 1, "goroutines per rank that encode, decode and reduce")
	fl.IntVar(&f.pieces, "pieces", 1, "pipeline pieces per round (1: no pipelining)")
	fl.StringVar(&f.link, "link-bandwidth", "", "model a network link of this many bytes/s per rank, e.g. 1.25G, 125MB/s or 10Gbit/s ("+units.Help+")")
	fl.DurationVar(&f.latency, "link-latency", 50*time.Microsecond, "with --link-bandwidth: the modelled latency of a collective call")
	fl.BoolVar(&f.force, "force", false, "run vector lengths that exceed the memory estimate")
	fl.StringVar(&f.json, "json", "", "also write the measured times as JSON to this file")
	fl.StringVar(&f.plots, "plots", "", "also draw time against vector length (SVG, PDF and PNG) into this directory")
	fl.StringVar(&f.tag, "tag", "", "a word naming this setup (e.g. netns-1gbit), part of the table's key and heading, so that its table stays apart from other runs of the same parameters")
	f.out.register(fl)
	fl.BoolVar(&f.fromProcs, fromProcsFlag, false, "set by --procs on the processes it starts")
	fl.Lookup(fromProcsFlag).Hidden = true
	return cmd
}

// benchDenseAlgorithm is one algorithm's measurement in a run's JSON.
type benchDenseAlgorithm struct {
	Algorithm string    `json:"algorithm"`
	Seconds   float64   `json:"seconds"`
	Samples   []float64 `json:"samples"`
	BytesSent int64     `json:"bytes_sent"`
	Messages  int64     `json:"messages"`
}

// benchDenseRun is the JSON of one rank count and vector length. Times are
// the slowest rank's, in seconds; bytes and messages are those all ranks
// send to other ranks in one call.
type benchDenseRun struct {
	Transport       string                `json:"transport"`
	Ranks           int                   `json:"ranks"`
	Elements        int                   `json:"elements"`
	Stat            string                `json:"stat"`
	Repeat          int                   `json:"repeat"`
	Workers         int                   `json:"workers"`
	Pieces          int                   `json:"pieces"`
	LinkBandwidth   float64               `json:"link_bandwidth,omitempty"`
	LinkLatency     float64               `json:"link_latency,omitempty"`
	Tag             string                `json:"tag,omitempty"`
	Skipped         string                `json:"skipped,omitempty"`
	Algorithms      []benchDenseAlgorithm `json:"algorithms,omitempty"`
	TreeOverChunked float64               `json:"tree_over_chunked,omitempty"`
	// ModelTreeOverChunked is the link model's ratio (with
	// --link-bandwidth): 2·⌈lg p⌉ vectors through the tree root's link
	// against 2(p−1)/p through each chunked rank's.
	ModelTreeOverChunked float64 `json:"model_tree_over_chunked,omitempty"`
}

// benchDenseSummary is summary.json of bench allreduce-dense.
type benchDenseSummary struct {
	benchMeta
	Transport  string          `json:"transport"`
	Algorithms []string        `json:"algorithms"`
	Files      []string        `json:"files"`
	Runs       []benchDenseRun `json:"runs"`
}

func runBenchAllreduce(cmd *cobra.Command, f *benchAllreduceFlags) error {
	sizes, err := parseCounts(f.sizes)
	if err != nil {
		return flagError("sizes", "%v", err)
	}
	rankCounts, err := parseCounts(f.ranks)
	if err != nil {
		return flagError("ranks", "%v", err)
	}
	if err := checkRanks(slices.Max(rankCounts)); err != nil {
		return err
	}
	var algs []allreduce.Algorithm
	for _, s := range strings.Split(f.algorithms, ",") {
		a, err := allreduce.ParseAlgorithm(strings.TrimSpace(s))
		if err != nil {
			return flagError("algorithms", "%v", err)
		}
		algs = append(algs, a)
	}
	switch {
	case f.repeat < 1:
		return flagError("repeat", "%d is less than 1", f.repeat)
	case f.stat != "median" && f.stat != "min":
		return flagError("stat", "%q is neither median nor min", f.stat)
	case f.workers < 1:
		return flagError("workers", "%d is less than 1", f.workers)
	case f.pieces < 1:
		return flagError("pieces", "%d is less than 1", f.pieces)
	case f.tag != "" && !benchTagPattern.MatchString(f.tag):
		return flagError("tag", "%q is not one word of letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", f.tag)
	}
	var bandwidth float64
	if f.link != "" {
		if bandwidth, err = units.ParseRate(f.link); err != nil {
			return flagError("link-bandwidth", "%v", err)
		}
		if f.latency < 0 {
			return flagError("link-latency", "%v is negative", f.latency)
		}
	}
	plan, err := f.plan(cmd, slices.Max(rankCounts))
	if err != nil {
		return err
	}
	cfg := bench.DenseConfig{Algorithms: algs, Repeat: f.repeat, Stat: f.stat, Bandwidth: bandwidth, Latency: f.latency,
		Options: allreduce.DenseOptions{Phase: "bench.dense", Workers: f.workers, Pieces: f.pieces}}
	report := plan.Reports() // only rank 0 (its first replica) prints and writes
	outs := outputsOf(cmd)
	var jsonOut *output.File
	var plotsOut *output.Dir
	if report {
		if err := f.out.declare(outs); err != nil {
			return err
		}
		jsonOut, plotsOut = outs.File("json", f.json), outs.Dir("plots", f.plots)
		if err := outs.Check(); err != nil {
			return err
		}
	}
	if plan.Procs > 0 {
		return launchLocal(cmd, plan, "--"+fromProcsFlag)
	}
	if report {
		key, command, title := f.denseKey(cmd, plan, rankCounts, sizes, cfg)
		f.out.title = title
		f.out.start("allreduce-dense", key, command)
	}
	avail, memErr := graph500.AvailableMemory()
	fits := func(localRanks, n int) string {
		// Per rank: the vector and every algorithm's buffers (a round's
		// receipts: up to three vectors for the unsplittable hypercube,
		// one for tree and butterfly, half for chunked), with room for
		// the garbage collector.
		need := int64(localRanks) * int64(n) * 8 * 8
		if f.force || memErr != nil || need <= avail/10*8 {
			return ""
		}
		return fmt.Sprintf("skipped: needs about %.1f GB, %.1f GB available (--force runs it)", float64(need)/1e9, float64(avail)/1e9)
	}
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	what := "in-process ranks"
	if plan.MultiProcess() {
		what = fmt.Sprintf("tcp, %d processes", plan.TotalRanks())
		if plan.MPI() {
			what = fmt.Sprintf("mpi, %d processes", plan.TotalRanks())
		} else if s := plan.Replication(); s > 1 {
			what = fmt.Sprintf("tcp, %d ranks × %d replicas (%d processes)", plan.TotalRanks(), s, plan.TotalRanks()*s)
		}
	}
	var rows []bench.DenseRow
	var files []string
	var runs []benchDenseRun
	var bar *progress.Matrix
	// record keeps a finished row: its JSON in --dir and a progress step.
	record := func(r bench.DenseRow) error {
		rows = append(rows, r)
		run := f.denseRun(what, cfg, r)
		file := fmt.Sprintf("allreduce-dense-p%d-n%s.json", r.Ranks, bench.FormatElements(r.N))
		if err := f.out.writeJSON(file, run); err != nil {
			return err
		}
		files, runs = append(files, file), append(runs, run)
		bar.Step(denseProgressLine(cfg, r))
		return nil
	}
	if plan.MultiProcess() {
		p := plan.TotalRanks()
		var run []int
		var skipped []bench.DenseRow
		for _, n := range sizes {
			if why := fits(plan.LocalRanks(), n); why != "" {
				skipped = append(skipped, bench.DenseRow{Ranks: p, N: n, Skipped: why})
			} else {
				run = append(run, n)
			}
		}
		if report {
			bar = progress.NewMatrix(stderr, "allreduce-dense", len(sizes))
			for _, r := range skipped {
				if err := record(r); err != nil {
					return err
				}
			}
		}
		err := plan.RunRanks(ctx, stderr, func(ctx context.Context, c comm.Comm) error {
			var onRow func(bench.DenseRow) error
			if c.Rank() == 0 && report {
				onRow = record
			}
			_, err := bench.MeasureDense(ctx, c, run, cfg, true, onRow)
			return err
		})
		if err != nil {
			return err
		}
		if !report {
			return nil
		}
	} else {
		bar = progress.NewMatrix(stderr, "allreduce-dense", len(rankCounts)*len(sizes))
		for _, p := range rankCounts {
			for _, n := range sizes {
				if why := fits(p, n); why != "" {
					if err := record(bench.DenseRow{Ranks: p, N: n, Skipped: why}); err != nil {
						return err
					}
					continue
				}
				var got []bench.DenseRow
				err := inproc.Run(ctx, p, func(ctx context.Context, c comm.Comm) error {
					r, err := bench.MeasureDense(ctx, c, []int{n}, cfg, false, nil)
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
	}
	bar.Finish()
	f.out.finish()
	order := func(a, b bench.DenseRow) int {
		if a.Ranks != b.Ranks {
			return a.Ranks - b.Ranks
		}
		return a.N - b.N
	}
	slices.SortStableFunc(rows, order)
	var table strings.Builder
	if err := bench.WriteDenseTable(&table, what, cfg, rows); err != nil {
		return err
	}
	if _, err := io.WriteString(textOut(cmd, outs), table.String()); err != nil {
		return fmt.Errorf("bench allreduce-dense: %w", err)
	}
	var names []string
	for _, a := range algs {
		names = append(names, a.String())
	}
	summary := benchDenseSummary{benchMeta: f.out.meta(), Transport: what, Algorithms: names, Files: files, Runs: runs}
	if err := f.out.writeSummary(summary); err != nil {
		return err
	}
	timings := bench.DenseTimings(cfg, rows)
	if jsonOut != nil {
		err := jsonOut.WriteAll(func(w io.Writer) error {
			return writeIndentedJSON(w, struct {
				Transport string                    `json:"transport"`
				Stat      string                    `json:"stat"`
				Repeat    int                       `json:"repeat"`
				Bandwidth float64                   `json:"link_bandwidth,omitempty"`
				Timings   []results.AllreduceTiming `json:"timings"`
			}{what, cfg.Stat, cfg.Repeat, cfg.Bandwidth, timings})
		})
		if err != nil {
			return err
		}
	}
	if plotsOut != nil {
		chart, err := results.AllreduceChart(timings)
		if err != nil {
			return fmt.Errorf("--plots: %w", err)
		}
		chart.Plot.Title.Text = "Dense allreduce time against vector length (" + what + ")"
		if _, err := chart.WriteFiles(plotsOut); err != nil {
			return err
		}
		plotsOut.Done()
	}
	machine := what
	if f.tag != "" {
		machine += ", setup `" + f.tag + "`"
	}
	return f.out.regenerate(stderr, machine, "", table.String())
}

// denseKey returns the marker key of the table, the command line that
// regenerates it and the heading of its section. The key names every
// parameter that changes the table: the ranks (in-process rank counts, or
// the processes of a TCP or MPI job), the vector lengths, the repeats, and
// the algorithms, statistic, workers, pieces, link model, replicas and
// --tag when they differ from the defaults.
func (f *benchAllreduceFlags) denseKey(cmd *cobra.Command, plan jobPlan, rankCounts, sizes []int, cfg bench.DenseConfig) (key, command, title string) {
	var keys, flags []string
	add := func(name, value string) {
		keys = append(keys, name+"="+value)
		flags = append(flags, "--"+name+" "+value)
	}
	jobKeys, jobFlags, suffix, multi := benchJobSpec(plan, f.fromProcs)
	if multi {
		keys, flags = jobKeys, jobFlags
	} else {
		var rs []string
		for _, r := range rankCounts {
			rs = append(rs, strconv.Itoa(r))
		}
		add("ranks", strings.Join(rs, ","))
	}
	var ns []string
	for _, n := range sizes {
		ns = append(ns, bench.FormatElements(n))
	}
	add("sizes", strings.Join(ns, ","))
	add("repeat", strconv.Itoa(f.repeat))
	fl := cmd.Flags()
	if fl.Changed("algorithms") {
		var names []string
		for _, a := range cfg.Algorithms {
			names = append(names, a.String())
		}
		add("algorithms", strings.Join(names, ","))
	}
	if f.stat != "median" {
		add("stat", f.stat)
	}
	if f.workers != 1 {
		add("workers", strconv.Itoa(f.workers))
	}
	if f.pieces != 1 {
		add("pieces", strconv.Itoa(f.pieces))
	}
	if cfg.Bandwidth > 0 {
		add("link-bandwidth", units.FormatRate(cfg.Bandwidth))
		if fl.Changed("link-latency") {
			add("link-latency", f.latency.String())
		}
	}
	if plan.MultiProcess() && f.replicas > 1 {
		add("replicas", strconv.Itoa(f.replicas))
	}
	if f.tag != "" {
		add("tag", f.tag)
	}
	key = "allreduce-dense " + strings.Join(keys, " ")
	command = "graphrun bench allreduce-dense " + strings.Join(flags, " ")
	title = "### `" + command + "`" + suffix
	return key, command, title
}

// denseRun is the JSON of one row.
func (f *benchAllreduceFlags) denseRun(what string, cfg bench.DenseConfig, r bench.DenseRow) benchDenseRun {
	run := benchDenseRun{Transport: what, Ranks: r.Ranks, Elements: r.N, Stat: cfg.Stat, Repeat: cfg.Repeat,
		Workers: cfg.Options.Workers, Pieces: cfg.Options.Pieces, Tag: f.tag, Skipped: r.Skipped}
	if cfg.Bandwidth > 0 {
		run.LinkBandwidth, run.LinkLatency = cfg.Bandwidth, cfg.Latency.Seconds()
	}
	if r.Skipped != "" {
		return run
	}
	for k, a := range cfg.Algorithms {
		run.Algorithms = append(run.Algorithms, benchDenseAlgorithm{Algorithm: a.String(), Seconds: r.Seconds[k], Samples: r.Samples[k],
			BytesSent: r.Bytes[k], Messages: r.Messages[k]})
	}
	if ratio, ok := cfg.TreeOverChunked(r); ok {
		run.TreeOverChunked = ratio
		if cfg.Bandwidth > 0 {
			run.ModelTreeOverChunked = bench.ModelTreeOverChunked(r.Ranks)
		}
	}
	return run
}

// denseProgressLine is a finished row in one line.
func denseProgressLine(cfg bench.DenseConfig, r bench.DenseRow) string {
	head := fmt.Sprintf("%d ranks, %s elements", r.Ranks, bench.FormatCount(r.N))
	if r.Skipped != "" {
		return head + ": " + r.Skipped
	}
	var parts []string
	for k, a := range cfg.Algorithms {
		parts = append(parts, fmt.Sprintf("%s %.3g ms", a, r.Seconds[k]*1e3))
	}
	line := head + ": " + strings.Join(parts, ", ")
	if ratio, ok := cfg.TreeOverChunked(r); ok {
		line += fmt.Sprintf(", tree ÷ chunked %.2f", ratio)
	}
	return line
}

// parseCounts parses a comma-separated list of positive whole numbers up
// to 10^12, each plain, with an exponent (1e4, 2.5e6) or a unit prefix
// (10k, 64Ki: internal/units).
func parseCounts(list string) ([]int, error) {
	var out []int
	for _, field := range strings.Split(list, ",") {
		v, err := units.ParseCount(field, 1, 1e12)
		if err != nil {
			return nil, err
		}
		out = append(out, int(v))
	}
	return out, nil
}
