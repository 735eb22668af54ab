// This file is the pagerank command: PageRank over the sparse allreduce, as
// in paper 000 (Kylix) §VII, on a real edge list or a Graph500 Kronecker
// graph, with the random edge partition of §II-B. The algorithm is
// spmv.PageRank and the per-rank run the driver's (pagerank.RunRank,
// pagerank.RunElasticRank); this file turns flags into a pagerank.Config,
// starts the ranks and prints the report.

package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/pagerank"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv"
)

type pagerankFlags struct {
	transportFlags
	runOutputFlags
	format     string
	ranks      int
	alpha, tol float64
	maxIter    int
	iterations int
	undirected bool
	allreduce  string
	degrees    string
	partition  string
	top        int
	out        string
	kron       int
	threads    int
	elastic    bool
	join       bool
}

func newPageRankCommand() *cobra.Command {
	var f pagerankFlags
	cmd := &cobra.Command{
		Use:   "pagerank [FILE|-]",
		Short: "Run PageRank on an edge list over the Kylix sparse allreduce",
		Long: `Reads a directed edge list (SNAP text, .el, .wel, Matrix Market, .bel, optionally
gzipped; - or a pipe, FIFO or device is read once by rank 0, and needs
--format), or generates a Graph500 Kronecker graph with --kron, and runs
PageRank with NetworkX's semantics: duplicate edges collapse, self-loops stay,
dangling vertices' mass is spread uniformly, scores sum to 1. The edges are
spread over the ranks by a random edge partition and every iteration is one
sparse allreduce (paper 000 §VII), or with --allreduce dense one dense
allreduce of the whole vector by the chunked hypercube (paper 002 §IV-E).
Prints the top vertices with their ids as
in the file (Matrix Market ids 1-based), the iterations, the final L1 change
and the total rank.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPageRank(cmd, &f, args) },
	}
	f.transportFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "auto", "edge list format: snap, el, wel, mtx, bel (optionally .gz), or auto from the file name (not for - and other streams)")
	fl.IntVar(&f.ranks, "ranks", 1, "in-process ranks")
	fl.Float64Var(&f.alpha, "alpha", spmv.DefaultPageRankAlpha, "damping factor")
	fl.Float64Var(&f.tol, "tol", spmv.DefaultPageRankTol, "stop when the L1 change of an iteration is below this")
	fl.IntVar(&f.maxIter, "max-iter", spmv.DefaultPageRankMaxIter, "stop after this many iterations (with a warning)")
	fl.IntVar(&f.iterations, "iterations", 0, "run exactly this many iterations (ignores --tol and --max-iter)")
	fl.BoolVar(&f.undirected, "undirected", false, "add the reverse of every edge")
	fl.StringVar(&f.allreduce, "allreduce", spmv.AllreduceKylix.String(), "allreduce: the sparse kylix, direct or binary network, or dense (the whole vector through the chunked hypercube)")
	fl.StringVar(&f.degrees, "degrees", "auto", `kylix degrees, e.g. "8x4x2" (product = ranks), or auto`)
	fl.StringVar(&f.partition, "partition", spmv.PartitionRandomEdge.String(), "edge partition: random-edge (hash of the edge) or 1d (block of the source)")
	fl.IntVar(&f.top, "top", 10, "print this many top vertices")
	fl.StringVar(&f.out, "out", "", `write every vertex as "id<TAB>score" to this file`)
	f.runOutputFlags.register(fl, "the text", "convergence, time per iteration, allreduce traffic per layer")
	fl.IntVar(&f.kron, "kron", 0, "run on a Graph500 Kronecker graph of this scale instead of FILE (tuples as directed edges)")
	fl.BoolVar(&f.elastic, "elastic", false, "TCP only: survive losing a rank other than 0 by going on with the survivors, and take in processes that --join between iterations (paper 002 §V); the result equals a fault-free run's within --tol")
	fl.BoolVar(&f.join, "join", false, "with --elastic: join the running elastic job at --coordinator or $GRAPHRUN_COORDINATOR (its token in $GRAPHRUN_TOKEN) between iterations; give the job's graph and PageRank flags")
	fl.IntVar(&f.threads, "threads", 0, "goroutines per rank for the sorts and the SpMV (default: CPUs / ranks, at least 1)")
	return cmd
}

// pagerankGCPercent is the garbage collector's target during a pagerank
// run (memstat.LeanHeap): the heap is a few large arrays without pointers,
// so a collection costs little, and Go's default of 100 lets the heap grow
// to twice what it holds. Measured on pagerank --kron 21 --undirected
// --iterations 5 (BENCHMARKS.md, "PageRank memory"): peaks of 682–690 MB
// at 10, 710 at 20, 725 at 50, 720 at 100, set-up time the same within
// noise.
const pagerankGCPercent = 10

func runPageRank(cmd *cobra.Command, f *pagerankFlags, args []string) error {
	fl := cmd.Flags()
	if err := usage(launch.CheckRanks(f.ranks)); err != nil {
		return err
	}
	if err := f.checkDPI(); err != nil {
		return err
	}
	plan, err := f.pagerankPlan(cmd)
	if err != nil {
		return err
	}
	in, err := resolvePageRankInput(cmd, f, args, plan)
	if err != nil {
		return err
	}
	p := plan.TotalRanks()
	threads, err := threadsOf(cmd, f.threads, plan.LocalRanks())
	if err != nil {
		return err
	}
	in.Threads = threads
	cfg := pagerank.Config{PageRankConfig: spmv.DefaultPageRankConfig(), Top: f.top, Gather: f.out != ""}
	cfg.Threads = threads
	cfg.Alpha, cfg.Tol, cfg.MaxIter, cfg.Iterations = f.alpha, f.tol, f.maxIter, f.iterations
	// The names are checked after the other fields, in Check's order.
	part, partErr := spmv.ParsePageRankPartition(f.partition)
	network, networkErr := spmv.ParsePageRankAllreduce(f.allreduce)
	cfg.Undirected, cfg.Allreduce, cfg.Partition = f.undirected, network, part
	if fl.Changed("iterations") && f.iterations == 0 {
		return flagError("iterations", "%d is less than 1", f.iterations)
	}
	if err := usage(cfg.Check()); err != nil {
		return err
	}
	if partErr != nil {
		return flagError("partition", "%v", partErr)
	}
	if networkErr != nil {
		return flagError("allreduce", "%v", networkErr)
	}
	switch {
	case cfg.Allreduce == spmv.AllreduceKylix:
		deg, err := allreduce.ParseDegrees(f.degrees, p)
		if err != nil {
			return flagError("degrees", "%v", err)
		}
		cfg.Degrees = deg
	case fl.Changed("degrees"):
		return flagError("degrees", "only the kylix allreduce takes degrees (--allreduce %s)", f.allreduce)
	}
	if f.elastic {
		if err := checkElastic(plan, f); err != nil {
			return err
		}
		plan.Elastic = true
	}
	outs, outFile, err := f.declareRun(cmd, plan, in.Path(), f.out)
	if err != nil {
		return err
	}
	if plan.Procs > 0 {
		return launchRanks(cmd, plan, threads, in.StdinForChildren(), args)
	}
	// The run holds a few large pointer-free arrays: a lean heap target,
	// and the set-up's garbage returned to the system before the
	// iterations (once per process, outside the timed regions).
	defer memstat.LeanHeap(memstat.LeanHeap(pagerankGCPercent))
	var release sync.Once
	cfg.SetupDone = func() { release.Do(memstat.Release) }

	ctx := cmd.Context()
	if f.join {
		return pagerankJoin(ctx, plan, in, cfg, cmd.ErrOrStderr())
	}
	var tag string // elastic: the job's join tag
	if f.elastic {
		tag = in.JoinTag(cfg.PageRankConfig)
	}
	bar := progress.NewIterations(cmd.ErrOrStderr(), cfg.Iterations, cfg.Tol)
	cfg.Progress = bar.Update
	report, err := pagerank.RunJob(ctx, plan.Runner(cmd.ErrOrStderr()), in.Input(), cfg, tag, launch.StderrLogf(cmd.ErrOrStderr()))
	bar.Clear()
	if err != nil {
		if pagerank.IsInputError(err) {
			return usageError{err}
		}
		return err
	}
	if report == nil || !plan.Reports() {
		return nil // a TCP rank other than 0, or a replica of rank 0: process 0 reports
	}
	report.Version = version
	report.Revision, report.StartedAt, report.CommandLine = revision, invocationOf(cmd).startedAt, invocationOf(cmd).commandLine
	if report.Vertices == 0 {
		return usageError{fmt.Errorf("%s: no edges", in.Name())}
	}
	return writePageRank(report, outFile, &f.runOutputFlags, textOut(cmd, outs), cmd.ErrOrStderr())
}

// writePageRank writes the outputs of a finished run: --out, --json,
// --plots and the text summary on textOut.
func writePageRank(rep *pagerank.Report, outFile *output.File, r *runOutputFlags, textOut, stderr io.Writer) error {
	if outFile != nil {
		if err := outFile.WriteAll(rep.WriteScores); err != nil {
			return err
		}
	}
	if err := r.writeJSON(func(w io.Writer) error { return results.WriteIndentedJSON(w, rep) }); err != nil {
		return err
	}
	run := rep.PageRankRun
	if err := r.writePlots(results.ReportInput{Path: "pagerank", PageRank: &run}); err != nil {
		return err
	}
	if rep.WarnMaxIter {
		fmt.Fprintf(stderr, "graphrun: warning: PageRank stopped at --max-iter %d without converging (L1 change %.3g, --tol %.3g)\n",
			rep.Iterations, rep.Residual, rep.Tol)
	}
	rep.WriteSummary(textOut)
	fmt.Fprintln(stderr, rep.PeakMemoryLine())
	return nil
}
