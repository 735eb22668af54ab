package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/progress"
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

Like every matrix of graphrun bench, it writes one JSON per rank count and
vector length and summary.json into --dir, and regenerates its table in
--doc between marker comments named after its parameters (ranks or procs,
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
	fl.StringVar(&f.sizes, "sizes", "1e4,1e5,1e6,1e7", "vector lengths in float64 elements (integers or 1eK)")
	fl.StringVar(&f.algorithms, "algorithms", "tree,butterfly,hypercube-unsplittable,hypercube-chunked", "algorithms to time")
	fl.IntVar(&f.repeat, "repeat", 5, "timed calls per algorithm and configuration")
	fl.StringVar(&f.stat, "stat", "median", "report the median or the min of the timed calls")
	fl.IntVar(&f.workers, "workers", 1, "goroutines per rank that encode, decode and reduce")
	fl.IntVar(&f.pieces, "pieces", 1, "pipeline pieces per round (1: no pipelining)")
	fl.StringVar(&f.link, "link-bandwidth", "", "model a network link of this many bytes/s per rank, e.g. 1.25G (k, M, G = 10^3, 10^6, 10^9)")
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

// benchDenseRow is one rank count and vector length: the median time of
// each algorithm, in the order of the algorithm list (NaN: skipped).
type benchDenseRow struct {
	ranks, n int
	seconds  []float64   // per algorithm: the --stat of the timed calls
	samples  [][]float64 // per algorithm: every timed call (slowest rank)
	bytes    []int64     // per algorithm: bytes all ranks send in one call
	messages []int64     // per algorithm: messages all ranks send in one call
	skipped  string
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
		if bandwidth, err = parseRate(f.link); err != nil {
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
	cfg := benchDenseConfig{algs: algs, repeat: f.repeat, stat: f.stat, bandwidth: bandwidth, latency: f.latency,
		opts: allreduce.DenseOptions{Phase: "bench.dense", Workers: f.workers, Pieces: f.pieces}}
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
	var rows []benchDenseRow
	var files []string
	var runs []benchDenseRun
	var bar *progress.Matrix
	// record keeps a finished row: its JSON in --dir and a progress step.
	record := func(r benchDenseRow) error {
		rows = append(rows, r)
		run := f.denseRun(what, cfg, r)
		file := fmt.Sprintf("allreduce-dense-p%d-n%s.json", r.ranks, formatElements(r.n))
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
		var skipped []benchDenseRow
		for _, n := range sizes {
			if why := fits(plan.LocalRanks(), n); why != "" {
				skipped = append(skipped, benchDenseRow{ranks: p, n: n, skipped: why})
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
			var onRow func(benchDenseRow) error
			if c.Rank() == 0 && report {
				onRow = record
			}
			_, err := measureDenseSizes(ctx, c, run, cfg, true, onRow)
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
					if err := record(benchDenseRow{ranks: p, n: n, skipped: why}); err != nil {
						return err
					}
					continue
				}
				var got []benchDenseRow
				err := inproc.Run(ctx, p, func(ctx context.Context, c comm.Comm) error {
					r, err := measureDenseSizes(ctx, c, []int{n}, cfg, false, nil)
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
	order := func(a, b benchDenseRow) int {
		if a.ranks != b.ranks {
			return a.ranks - b.ranks
		}
		return a.n - b.n
	}
	slices.SortStableFunc(rows, order)
	var table strings.Builder
	if err := writeDenseTable(&table, what, cfg, rows); err != nil {
		return err
	}
	if _, err := io.WriteString(textOut(cmd, outs), table.String()); err != nil {
		return fmt.Errorf("bench allreduce-dense: %w", err)
	}
	var names []string
	for _, a := range algs {
		names = append(names, string(a))
	}
	summary := benchDenseSummary{benchMeta: f.out.meta(), Transport: what, Algorithms: names, Files: files, Runs: runs}
	if err := f.out.writeSummary(summary); err != nil {
		return err
	}
	timings := denseTimings(cfg, rows)
	if jsonOut != nil {
		err := jsonOut.WriteAll(func(w io.Writer) error {
			return writeIndentedJSON(w, struct {
				Transport string                    `json:"transport"`
				Stat      string                    `json:"stat"`
				Repeat    int                       `json:"repeat"`
				Bandwidth float64                   `json:"link_bandwidth,omitempty"`
				Timings   []results.AllreduceTiming `json:"timings"`
			}{what, cfg.stat, cfg.repeat, cfg.bandwidth, timings})
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
func (f *benchAllreduceFlags) denseKey(cmd *cobra.Command, plan jobPlan, rankCounts, sizes []int, cfg benchDenseConfig) (key, command, title string) {
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
		ns = append(ns, formatElements(n))
	}
	add("sizes", strings.Join(ns, ","))
	add("repeat", strconv.Itoa(f.repeat))
	fl := cmd.Flags()
	if fl.Changed("algorithms") {
		var names []string
		for _, a := range cfg.algs {
			names = append(names, string(a))
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
	if cfg.bandwidth > 0 {
		add("link-bandwidth", formatRate(cfg.bandwidth))
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
func (f *benchAllreduceFlags) denseRun(what string, cfg benchDenseConfig, r benchDenseRow) benchDenseRun {
	run := benchDenseRun{Transport: what, Ranks: r.ranks, Elements: r.n, Stat: cfg.stat, Repeat: cfg.repeat,
		Workers: cfg.opts.Workers, Pieces: cfg.opts.Pieces, Tag: f.tag, Skipped: r.skipped}
	if cfg.bandwidth > 0 {
		run.LinkBandwidth, run.LinkLatency = cfg.bandwidth, cfg.latency.Seconds()
	}
	if r.skipped != "" {
		return run
	}
	for k, a := range cfg.algs {
		run.Algorithms = append(run.Algorithms, benchDenseAlgorithm{Algorithm: string(a), Seconds: r.seconds[k], Samples: r.samples[k],
			BytesSent: r.bytes[k], Messages: r.messages[k]})
	}
	if ratio, ok := treeOverChunked(cfg, r); ok {
		run.TreeOverChunked = ratio
		if cfg.bandwidth > 0 {
			run.ModelTreeOverChunked = modelTreeOverChunked(r.ranks)
		}
	}
	return run
}

// denseProgressLine is a finished row in one line.
func denseProgressLine(cfg benchDenseConfig, r benchDenseRow) string {
	head := fmt.Sprintf("%d ranks, %s elements", r.ranks, formatCount(r.n))
	if r.skipped != "" {
		return head + ": " + r.skipped
	}
	var parts []string
	for k, a := range cfg.algs {
		parts = append(parts, fmt.Sprintf("%s %.3g ms", a, r.seconds[k]*1e3))
	}
	line := head + ": " + strings.Join(parts, ", ")
	if ratio, ok := treeOverChunked(cfg, r); ok {
		line += fmt.Sprintf(", tree ÷ chunked %.2f", ratio)
	}
	return line
}

// treeOverChunked is the row's tree time divided by its chunked time, if
// both algorithms ran.
func treeOverChunked(cfg benchDenseConfig, r benchDenseRow) (float64, bool) {
	tree, chunked := slices.Index(cfg.algs, allreduce.AlgTree), slices.Index(cfg.algs, allreduce.AlgChunked)
	if r.skipped != "" || tree < 0 || chunked < 0 {
		return 0, false
	}
	return r.seconds[tree] / r.seconds[chunked], true
}

// modelTreeOverChunked is what a link per rank predicts for tree ÷ chunked
// on p ranks once bandwidth dominates: the tree root's link carries
// 2·⌈lg p⌉ vectors (reduce, then broadcast), each chunked rank's 2(p−1)/p.
func modelTreeOverChunked(p int) float64 {
	if p < 2 {
		return 1
	}
	depth := bits.Len(uint(p - 1)) // ⌈lg p⌉
	return float64(2*depth) / (2 * float64(p-1) / float64(p))
}

// formatElements writes a vector length for keys and file names: 1e4,
// 25e5, or the plain number when it has fewer than two trailing zeros.
func formatElements(n int) string {
	m, k := n, 0
	for m%10 == 0 && m > 0 {
		m, k = m/10, k+1
	}
	if k < 2 {
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("%de%d", m, k)
}

// denseTimings turns the measured rows into chart points, one series per
// algorithm and rank count ("hypercube-chunked, 8 ranks").
func denseTimings(cfg benchDenseConfig, rows []benchDenseRow) []results.AllreduceTiming {
	var out []results.AllreduceTiming
	for _, r := range rows {
		if r.skipped != "" {
			continue
		}
		for k, a := range cfg.algs {
			out = append(out, results.AllreduceTiming{Method: fmt.Sprintf("%s, %d ranks", a, r.ranks), Length: int64(r.n), Seconds: r.seconds[k]})
		}
	}
	return out
}

// benchDenseConfig is what every rank needs to time the algorithms.
type benchDenseConfig struct {
	algs      []allreduce.Algorithm
	repeat    int
	opts      allreduce.DenseOptions
	bandwidth float64 // bytes/s of the modelled link, 0 for none
	latency   time.Duration
	stat      string // "median" or "min" of the timed calls
}

// benchValue is rank r's element i: small integers, so sums are exact.
func benchValue(r, i int) float64 { return float64((int64(r)*7919+int64(i)*104729)%2001 - 1000) }

// measureDenseSizes is one rank's share of the benchmark: every vector
// length, every algorithm. The timed calls of the algorithms alternate
// (tree, butterfly, …, tree, butterfly, …), so that a burst of load from
// other jobs on the machine hits them alike. Every rank returns the same
// rows (maxima over ranks for times, sums for bytes and messages). onRow,
// if not nil, gets each row as soon as it is measured. freeMemory returns
// memory to the OS between lengths (each process of a multi-process job).
func measureDenseSizes(ctx context.Context, c comm.Comm, sizes []int, cfg benchDenseConfig, freeMemory bool, onRow func(benchDenseRow) error) ([]benchDenseRow, error) {
	var cc comm.Comm = c
	if cfg.bandwidth > 0 {
		cc = &linkComm{Comm: c, bandwidth: cfg.bandwidth, latency: cfg.latency}
	}
	me, p := c.Rank(), c.Size()
	var rows []benchDenseRow
	for _, n := range sizes {
		vec := make([]float64, n)
		fill := func() {
			for i := range vec {
				vec[i] = benchValue(me, i)
			}
		}
		ds := make([]*allreduce.Dense[float64], len(cfg.algs))
		// This rank's bytes and messages in the warm-up call of each
		// algorithm, then (after the allreduce) all ranks'.
		volume := make([]int64, 2*len(cfg.algs))
		for a, alg := range cfg.algs {
			d, err := allreduce.NewDense[float64](ctx, cc, alg, cfg.opts)
			if err != nil {
				return nil, err
			}
			ds[a] = d
			// A warm-up call grows the buffers; its result is checked.
			fill()
			before := c.Stats().Total()
			if err := d.Allreduce(ctx, vec, allreduce.Sum[float64]); err != nil {
				return nil, err
			}
			used := c.Stats().Total().Sub(before)
			volume[2*a], volume[2*a+1] = used.BytesSent, used.Messages
			for j := range min(n, 1000) {
				i := int(int64(j) * int64(n) / int64(min(n, 1000)))
				want := 0.0
				for r := range p {
					want += benchValue(r, i)
				}
				if vec[i] != want {
					return nil, fmt.Errorf("bench: %s on %d ranks: rank %d element %d is %v, want %v", alg, p, me, i, vec[i], want)
				}
			}
		}
		times := make([][]float64, len(cfg.algs))
		for range cfg.repeat {
			for a, d := range ds {
				fill()
				if err := c.Barrier(ctx, "bench.dense.barrier"); err != nil {
					return nil, err
				}
				t0 := time.Now()
				if err := d.Allreduce(ctx, vec, allreduce.Sum[float64]); err != nil {
					return nil, err
				}
				v := []float64{time.Since(t0).Seconds()}
				if err := c.AllreduceFloat64(ctx, "bench.dense.time", v, comm.Max); err != nil {
					return nil, err
				}
				times[a] = append(times[a], v[0])
			}
		}
		if err := c.AllreduceInt64(ctx, "bench.dense.volume", volume, comm.Sum); err != nil {
			return nil, err
		}
		row := benchDenseRow{ranks: p, n: n}
		for a, ts := range times {
			row.samples = append(row.samples, slices.Clone(ts))
			row.bytes = append(row.bytes, volume[2*a])
			row.messages = append(row.messages, volume[2*a+1])
			slices.Sort(ts)
			if cfg.stat == "min" {
				row.seconds = append(row.seconds, ts[0])
			} else {
				row.seconds = append(row.seconds, ts[len(ts)/2])
			}
		}
		rows = append(rows, row)
		if onRow != nil {
			if err := onRow(row); err != nil {
				return nil, err
			}
		}
		ds, vec = nil, nil
		if freeMemory {
			debug.FreeOSMemory()
		}
	}
	return rows, nil
}

// writeDenseTable prints the rows as a Markdown table, times in
// milliseconds, after one line saying what ran.
func writeDenseTable(w io.Writer, what string, cfg benchDenseConfig, rows []benchDenseRow) error {
	network := "no network model"
	if cfg.bandwidth > 0 {
		network = fmt.Sprintf("modelled link %s B/s per rank, latency %v", formatRate(cfg.bandwidth), cfg.latency)
	}
	fmt.Fprintf(w, "Dense allreduce (float64 sum) over %s, %s; workers %d, pieces %d. ", what, network, cfg.opts.Workers, cfg.opts.Pieces)
	fmt.Fprintf(w, "Time of one allreduce in ms: the slowest rank, %s of %d calls (the algorithms' calls alternate).", cfg.stat, cfg.repeat)
	tree, chunked := slices.Index(cfg.algs, allreduce.AlgTree), slices.Index(cfg.algs, allreduce.AlgChunked)
	ratio := tree >= 0 && chunked >= 0
	model := ratio && cfg.bandwidth > 0
	if model {
		fmt.Fprint(w, " Link model: tree ÷ chunked once bandwidth dominates, 2·⌈lg p⌉ ÷ (2(p−1)/p).")
	}
	var names []string
	for _, a := range cfg.algs {
		names = append(names, string(a))
	}
	fmt.Fprintf(w, " MB sent per call: all ranks together, exact, in the order %s.\n\n", strings.Join(names, " / "))
	header := "| ranks | elements |"
	rule := "|---:|---:|"
	for _, a := range cfg.algs {
		header += " " + string(a) + " |"
		rule += "---:|"
	}
	if ratio {
		header += " tree ÷ chunked |"
		rule += "---:|"
	}
	if model {
		header += " link model |"
		rule += "---:|"
	}
	header += " MB sent per call |"
	rule += "---:|"
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, rule)
	for _, r := range rows {
		line := fmt.Sprintf("| %d | %s |", r.ranks, formatCount(r.n))
		if r.skipped != "" {
			fmt.Fprintf(w, "%s %s |\n", line, r.skipped)
			continue
		}
		for _, s := range r.seconds {
			line += " " + threeDigits(s*1e3) + " |"
		}
		if ratio {
			line += fmt.Sprintf(" %.2f |", r.seconds[tree]/r.seconds[chunked])
		}
		if model {
			line += fmt.Sprintf(" %.2f |", modelTreeOverChunked(r.ranks))
		}
		var mb []string
		for _, b := range r.bytes {
			mb = append(mb, threeDigits(float64(b)/1e6))
		}
		line += " " + strings.Join(mb, " / ") + " |"
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// threeDigits writes v with three significant digits, without an exponent
// up to 10^6 (0.0234, 1.12, 350, 1450).
func threeDigits(v float64) string {
	g := strconv.FormatFloat(v, 'g', 3, 64)
	rounded, err := strconv.ParseFloat(g, 64)
	if a := math.Abs(rounded); err == nil && a >= 1000 && a < 1e6 {
		return strconv.FormatFloat(rounded, 'f', 0, 64)
	}
	return g
}

// parseCounts parses a comma-separated list of positive integers, each
// either plain or 1eK / 2.5e6.
func parseCounts(list string) ([]int, error) {
	var out []int
	for _, field := range strings.Split(list, ",") {
		s := strings.TrimSpace(field)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 1 || v > 1e12 || v != math.Trunc(v) {
			return nil, fmt.Errorf("%q is not a positive whole number", s)
		}
		out = append(out, int(v))
	}
	return out, nil
}

// formatCount writes powers of ten as 10^k.
func formatCount(n int) string {
	for k, p := 1, 10; p <= n; k, p = k+1, p*10 {
		if p == n {
			return fmt.Sprintf("10^%d", k)
		}
	}
	return strconv.Itoa(n)
}

// parseRate parses a positive rate with an optional decimal suffix k, M or
// G (and an optional trailing "B/s").
func parseRate(s string) (float64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "/s"), "B")
	mult := 1.0
	switch {
	case strings.HasSuffix(t, "k"), strings.HasSuffix(t, "K"):
		mult = 1e3
	case strings.HasSuffix(t, "M"):
		mult = 1e6
	case strings.HasSuffix(t, "G"):
		mult = 1e9
	}
	if mult > 1 {
		t = t[:len(t)-1]
	}
	v, err := strconv.ParseFloat(t, 64)
	if v *= mult; err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a positive finite rate (bytes/s, e.g. 1.25G)", s)
	}
	return v, nil
}

// formatRate writes a rate with a decimal suffix.
func formatRate(v float64) string {
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 4, 64) + "G"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// linkComm models a cluster network on top of a real Comm: an Alltoallv
// that moves data lasts at least latency plus max(bytes sent, bytes
// received)/bandwidth from its start, as on a full-duplex link of that
// bandwidth per rank. The other calls are not slowed down.
type linkComm struct {
	comm.Comm
	bandwidth float64
	latency   time.Duration
}

func (l *linkComm) Alltoallv(ctx context.Context, phase string, send, recv [][]byte) ([][]byte, error) {
	start := time.Now()
	out, err := l.Comm.Alltoallv(ctx, phase, send, recv)
	if err != nil {
		return out, err
	}
	me := l.Rank()
	var sent, got int
	for d, b := range send {
		if d != me {
			sent += len(b)
		}
	}
	for s, b := range out {
		if s != me {
			got += len(b)
		}
	}
	if sent+got == 0 {
		return out, nil
	}
	busy := l.latency + time.Duration(float64(max(sent, got))/l.bandwidth*1e9)
	deadline := start.Add(busy)
	// Timers wake up a millisecond late or worse on a loaded machine:
	// sleep on one only for the bulk of a long wait, yield for the rest.
	for wait := time.Until(deadline); wait > 0; wait = time.Until(deadline) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("bench: modelled link: %w", err)
		}
		if wait < 2*time.Millisecond {
			runtime.Gosched()
			continue
		}
		t := time.NewTimer(wait - time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return out, nil
}
