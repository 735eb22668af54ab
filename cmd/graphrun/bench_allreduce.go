package main

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/units"
)

// benchAllreduceFlags are the flags of graphrun bench allreduce-dense.
type benchAllreduceFlags struct {
	benchJobFlags
	spec        bench.DenseSpec
	json, plots string
	out         bench.Output
}

// newBenchAllreduceCommand is `graphrun bench allreduce-dense`: the time of
// one dense allreduce against the vector length for each algorithm and rank
// count — the curves of Li et al. Fig. 4/5 and Zhang and Qiu Fig. 10.
func newBenchAllreduceCommand(g *globalFlags) *cobra.Command {
	f := benchAllreduceFlags{benchJobFlags: benchJobFlags{globalFlags: g}}
	cmd := newMatrixCommand("allreduce-dense", "Dense allreduce time against vector length: tree, butterfly, hypercubes",
		func(cmd *cobra.Command) error { return runBenchAllreduce(cmd, &f) })
	cmd.Long = `Times one allreduce (sum of float64 vectors, every rank ending with the sum) for every
algorithm of --algorithms and vector length of --sizes, on 2, 4, … up to --ranks in-process
ranks, or over --procs N TCP processes. With --tasks T, T tasks per rank each commit a
vector that the rank reduces locally before one allreduce across ranks (Li et al.).

Each time is the slowest rank's, the median (--stat) of --repeat calls after a checked
warm-up call; the algorithms' calls alternate. --link-bandwidth models a cluster link per
rank on top of the real run (--link-latency plus the larger of the bytes sent and received
over the bandwidth). Prints the Markdown table; --dir keeps the JSON of every run. Vector
lengths that would not fit in 80% of the available memory are skipped (--force runs them).`
	cmd.Example = `  graphrun bench allreduce-dense --ranks 8 --sizes 1e4,1e6
  graphrun bench allreduce-dense --procs 4 --sizes 1e5 --repeat 3
  graphrun bench allreduce-dense --ranks 4 --link-bandwidth 10Gbit/s --dir runs/dense`
	f.benchJobFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.spec.Sizes, "sizes", "1e4,1e5,1e6,1e7", "vector lengths in float64 elements: integers, 1eK or with a prefix (k, M, Ki, Mi, …)")
	fl.StringVar(&f.spec.Algorithms, "algorithms", "tree,butterfly,hypercube-unsplittable,hypercube-chunked", "algorithms to time")
	fl.IntVar(&f.spec.Repeat, "repeat", 5, "timed calls per algorithm and configuration")
	fl.StringVar(&f.spec.Stat, "stat", "median", "report the median or the min of the timed calls")
	fl.IntVar(&f.spec.Workers, "workers", 1, "goroutines per rank that encode, decode and reduce")
	fl.IntVar(&f.spec.Pieces, "pieces", 1, "pipeline pieces per round (1: no pipelining)")
	fl.IntVar(&f.spec.Tasks, "tasks", 0, "tasks per rank committing a vector, reduced locally first (0: ranks call the allreduce)")
	fl.StringVar(&f.spec.LinkBandwidth, "link-bandwidth", "", "model a link of this many bytes/s per rank, e.g. 125MB/s or 10Gbit/s")
	fl.DurationVar(&f.spec.LinkLatency, "link-latency", 50*time.Microsecond, "with --link-bandwidth: the modelled latency of a collective call")
	fl.BoolVar(&f.spec.Force, "force", false, "run vector lengths that exceed the memory estimate")
	fl.StringVar(&f.json, "json", "", "also write the measured times as JSON to this file")
	fl.StringVar(&f.plots, "plots", "", "also draw time against vector length (SVG, PDF, PNG) into this directory")
	fl.StringVar(&f.spec.Tag, "tag", "", "a word naming this setup (e.g. netns-1gbit), recorded in the matrix's key")
	registerBenchOutput(fl, &f.out)
	return cmd
}

func runBenchAllreduce(cmd *cobra.Command, f *benchAllreduceFlags) error {
	fl := cmd.Flags()
	f.spec.Ranks = rankSweep(2, f.ranksOr(cmd, 16))
	f.spec.Replicas, f.spec.AlgorithmsGiven, f.spec.LinkLatencyGiven = f.Replicas, fl.Changed("algorithms"), fl.Changed("link-latency")
	m, err := f.spec.Parse()
	if err != nil {
		return usage(err)
	}
	plan, err := f.plan(cmd, slices.Max(m.RankCounts))
	if err != nil {
		return err
	}
	job := bench.DenseJob{SkipNote: " (--force runs it)"}
	job.Key, job.Command = denseKey(m, plan, f.fromProcs)
	job.Job, err = f.job(cmd, plan, &f.out, func(outs *output.Set) { job.JSON, job.Plots = outs.File("json", f.json), outs.Dir("plots", f.plots) })
	if err != nil {
		return err
	}
	if plan.Procs > 0 {
		return launchLocal(cmd, plan, "--"+fromProcsFlag)
	}
	return m.Run(cmd.Context(), job)
}

// denseKey returns the key of m (summary.json) and the command line that
// regenerates its table. The key names every parameter that changes the
// table: the ranks (the largest in-process rank count, or the processes of
// a TCP or MPI job), the vector lengths, the repeats, and
// the algorithms, statistic, workers, pieces, tasks, link model, replicas
// and tag when they differ from the defaults.
func denseKey(m *bench.DenseMatrix, plan launch.Plan, fromProcs bool) (key, command string) {
	s := m.Spec
	var keys, flags []string
	add := func(name, value string) {
		keys = append(keys, name+"="+value)
		flags = append(flags, "--"+name+" "+value)
	}
	jobKeys, jobArgs, multi := jobSpec(plan, fromProcs)
	if multi {
		keys, flags = jobKeys, jobArgs
	} else {
		add("ranks", strconv.Itoa(slices.Max(m.RankCounts)))
	}
	var ns []string
	for _, n := range m.Sizes {
		ns = append(ns, bench.FormatElements(n))
	}
	add("sizes", strings.Join(ns, ","))
	add("repeat", strconv.Itoa(s.Repeat))
	if s.AlgorithmsGiven {
		add("algorithms", strings.Join(m.Config.AlgorithmNames(), ","))
	}
	if s.Stat != "median" {
		add("stat", s.Stat)
	}
	if s.Workers != 1 {
		add("workers", strconv.Itoa(s.Workers))
	}
	if s.Pieces != 1 {
		add("pieces", strconv.Itoa(s.Pieces))
	}
	if s.Tasks > 0 {
		add("tasks", strconv.Itoa(s.Tasks))
	}
	if m.Config.Bandwidth > 0 {
		add("link-bandwidth", units.FormatRate(m.Config.Bandwidth))
		if s.LinkLatencyGiven {
			add("link-latency", s.LinkLatency.String())
		}
	}
	if plan.MultiProcess() && s.Replicas > 1 {
		add("replicas", strconv.Itoa(s.Replicas))
	}
	if s.Tag != "" {
		add("tag", s.Tag)
	}
	key = "allreduce-dense " + strings.Join(keys, " ")
	command = "graphrun bench allreduce-dense " + strings.Join(flags, " ")
	return key, command
}
