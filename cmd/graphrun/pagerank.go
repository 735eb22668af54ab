// This file is the pagerank command: PageRank over the sparse allreduce, as
// in Kylix §VII (Zhao and Canny), on a real edge list or a Graph500
// Kronecker graph, with the random edge partition of Kylix §II-B. The
// algorithm and the per-rank run are package pagerank's (pagerank.RunShare;
// pagerank.RunRank, pagerank.RunElasticRank); this file maps the flags to a
// pagerank.JobConfig (the flags whose zero value is a choice too set its
// KronSet, IterationsSet and DegreesSet), which checks itself into the
// run's Source and Job naming the field at fault (flagOf names the flag),
// then starts the ranks and prints the report.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/results/report"
	"github.com/graphrun/graphrun/spmv/pagerank"
)

type pagerankFlags struct {
	*globalFlags
	runOutputFlags
	jc     pagerank.JobConfig
	out    string // --out: every vertex's score to this file
	format string
	force  bool // run a --kron graph whose memory estimate exceeds this machine's
}

func newPageRankCommand(g *globalFlags) *cobra.Command {
	f := pagerankFlags{globalFlags: g}
	cmd := &cobra.Command{
		Use:   "pagerank [FILE|-]",
		Short: "Run PageRank on an edge list over the Kylix sparse allreduce",
		Example: `  graphrun pagerank testdata/soc-Slashdot0902.txt.gz --ranks 4
  graphrun pagerank testdata/road-luxembourg-osm.mtx --undirected -o scores.tsv
  graphrun pagerank --kron 20 --iterations 20 -j pr.json
  graphrun pagerank web.el --procs 4          # four processes over TCP on this machine`,
		Long: `Reads a directed edge list (SNAP text, .el, .wel, Matrix Market, .bel, optionally
gzipped; - or a pipe is read once by rank 0 and needs --format), or generates a
Graph500 Kronecker graph with --kron, and runs PageRank with NetworkX's
semantics: duplicate edges collapse, self-loops stay, dangling vertices' mass is
spread uniformly, scores sum to 1. The edges are spread over the ranks by a
random edge partition; every iteration is one sparse allreduce (Kylix §VII), or
with --allreduce dense one dense allreduce by the chunked hypercube (Zhang and
Qiu §IV-E). Prints the top vertices with the file's ids, the iterations, the
final L1 change and the total rank; --tol is NetworkX's (L1 change < N·tol), and
--max-iter reached unconverged exits with status 3. Hidden: NetworkX's
personalization, dangling and nstart (--personalize FILE or --personalize-ids
1,5,9, --dangling FILE, --nstart FILE; docs/running.md), --weights off|on (a
weighted file's weights are NetworkX's weight= by default; on: --kron's generated
ones too) and --force past the memory guard; knobs --degrees, --partition,
--gauss-seidel, --plots, --dpi (docs/design.md).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPageRank(cmd, &f, args) },
	}
	jobFlags(cmd, groupRanks, groupThreads, groupTransport, groupElastic)
	fl := cmd.Flags()
	def := pagerank.DefaultJobConfig()
	fl.StringVar(&f.format, "format", "auto", "snap, el, wel, mtx or bel, optionally .gz (auto: from the name; not for -)")
	fl.Float64Var(&f.jc.Alpha, "alpha", def.Alpha, "damping factor")
	fl.Float64VarP(&f.jc.Tol, "tol", "t", def.Tol, "NetworkX's tol: stop when an iteration's L1 change is below N·tol")
	fl.IntVarP(&f.jc.MaxIter, "max-iter", "i", def.MaxIter, "give up after this many iterations: scores written, exit status 3")
	fl.IntVar(&f.jc.Iterations, "iterations", 0, "run exactly this many iterations (ignores --tol and --max-iter)")
	fl.BoolVar(&f.jc.Undirected, "undirected", false, "add the reverse of every edge")
	fl.StringVar(&f.jc.Allreduce, "allreduce", def.Allreduce, "kylix, direct, binary (sparse networks) or dense (chunked hypercube)")
	fl.StringVar(&f.jc.Degrees, "degrees", def.Degrees, `kylix degrees, e.g. "8x4x2" (product = ranks), or auto`)
	fl.BoolVar(&f.jc.GaussSeidel, "gauss-seidel", false, "one rank only: Gauss-Seidel sweeps in place instead of Jacobi iterations")
	fl.StringVar(&f.jc.Partition, "partition", def.Partition, "edge partition: random-edge (hash of the edge) or 1d (block of the source)")
	fl.IntVar(&f.jc.Top, "top", def.Top, "print this many top vertices")
	fl.StringVarP(&f.out, "out", "o", "", `write every vertex as "id<TAB>score" to this file`)
	f.runOutputFlags.register(fl, "the text", "convergence, time per iteration, allreduce traffic per layer")
	fl.IntVar(&f.jc.Kron, "kron", 0, "run on a Graph500 Kronecker graph of this scale instead of FILE")
	fl.StringVar(&f.jc.Personalize, "personalize", "", `NetworkX's personalization: "id weight" lines (the file's ids)`)
	fl.Int64SliceVar(&f.jc.PersonalizeIDs, "personalize-ids", nil, "a uniform personalization over these ids, e.g. 1,5,9")
	fl.StringVar(&f.jc.Dangling, "dangling", "", `NetworkX's dangling: "id weight" lines (default: the personalization)`)
	fl.StringVar(&f.jc.NStart, "nstart", "", `NetworkX's nstart, the start vector: "id weight" lines`)
	fl.StringVar(&f.jc.Weights, "weights", def.Weights, "edge weights as NetworkX's weight=: auto (a weighted file's), on (--kron's too) or off")
	fl.BoolVar(&f.force, "force", false, "run a --kron graph even if the memory estimate exceeds available memory")
	hideFlags(cmd, "degrees", "partition", "gauss-seidel", "plots", "dpi", "personalize", "personalize-ids", "dangling", "nstart", "weights", "force")
	return cmd
}

func runPageRank(cmd *cobra.Command, f *pagerankFlags, args []string) error {
	f.jc.Elastic, f.jc.Join = f.elastic, f.join
	f.mapFlags(cmd)
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
	var file string
	if len(args) > 0 {
		file = args[0]
	}
	openFile := func(path string) (*edgelist.Input, error) {
		in, err := resolveFileInput(cmd, f.format, path, plan)
		if err == nil {
			boundEdges(in, plan, leastPlainEdgeBytes)
		}
		return in, err
	}
	in, err := f.jc.Source(file, openFile, plan.Replicas > 1 || plan.Replication() > 1)
	if errors.Is(err, pagerank.ErrNoInput) {
		return usageError{errors.New("pagerank needs an edge list FILE (or - for standard input) or --kron SCALE")}
	}
	if err != nil {
		return usage(err)
	}
	threads, err := threadsOf(cmd, f.threads, plan.LocalRanks())
	if err != nil {
		return err
	}
	in.Threads = threads
	cfg, err := f.jc.Job(plan.TotalRanks(), threads, plan.CheckElastic())
	if err != nil {
		return usage(err)
	}
	if err := usage(f.jc.SetVectors(&cfg, in)); err != nil {
		return err
	}
	if err := usage(forceHint(f.jc.CheckMemory(plan.TotalRanks(), plan.LocalRanks(), plan.LocalProcesses(), f.force))); err != nil {
		return err // unless --force, a Kronecker run whose memory estimate exceeds what this machine has
	}
	plan.Elastic = f.jc.Elastic
	outs, outFile, err := f.declareRun(cmd, plan, in.Path(), f.out)
	if err != nil {
		return err
	}
	if plan.Procs > 0 {
		return launchRanks(cmd, plan, threads, in.StdinForChildren(), args)
	}
	defer pagerank.LeanHeap(&cfg)()

	ctx, stderr := cmd.Context(), cmd.ErrOrStderr()
	logf := launch.StderrLogf(stderr)
	if f.jc.Join {
		return plan.JoinAndRun(ctx, "pagerank --join", in.Name(), in.JoinTag(cfg.Config), logf, func(ctx context.Context, c comm.Elastic) error {
			return pagerank.RunJoined(ctx, c, in.Input(), cfg, plan.Job.PeerTimeout, logf)
		})
	}
	var tag string // elastic: the job's join tag
	if f.jc.Elastic {
		tag = in.JoinTag(cfg.Config)
	}
	bar := progress.NewIterations(progressOut(stderr, plan), cfg.Iterations)
	cfg.Progress = bar.Update
	report, err := pagerank.RunJob(ctx, plan.Runner(stderr), in.Input(), cfg, tag, logf)
	bar.Finish()
	if err != nil {
		return f.runError(err)
	}
	if report == nil || !plan.TakeReport() {
		return nil // a TCP rank other than 0, or a replica of rank 0 that another one reports for
	}
	report.Version = version
	report.Revision, report.StartedAt, report.CommandLine = revision, invocationOf(cmd).startedAt, invocationOf(cmd).commandLine
	if report.Vertices == 0 {
		return usageError{fmt.Errorf("%s: no edges", in.Name())}
	}
	return writePageRank(report, outFile, &f.runOutputFlags, textOut(cmd, outs), stderr)
}

// mapFlags sets what the configuration learns from the command line
// beyond the flags' values: which of the flags whose zero value is also a
// choice were given, and whether --out collects every score.
func (f *pagerankFlags) mapFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.jc.KronSet, f.jc.IterationsSet, f.jc.DegreesSet = fl.Changed("kron"), fl.Changed("iterations"), fl.Changed("degrees")
	f.jc.Gather = f.out != ""
	if fl.Changed("personalize-ids") && f.jc.PersonalizeIDs == nil {
		f.jc.PersonalizeIDs = []int64{} // given empty: refused as no vertex
	}
}

// runError is the error of a failed run: bad input (a file's bytes, a
// vector's id in no edge: exit status 2, naming the flag) or the failure.
func (f *pagerankFlags) runError(err error) error {
	if fe, ok := fielderr.As(err); ok && fe.Field == "Personalization" && f.jc.PersonalizeIDs != nil {
		fe.Field = "PersonalizeIDs" // the seed set's flag, not the file's
	}
	switch {
	case pagerank.IsInputError(err):
		return usageError{err}
	case errors.Is(err, pagerank.ErrConfig):
		return usage(err)
	}
	return err
}

// pagerankPlan is the transport plan of a pagerank run: f.plan, or for
// --join that of a process joining a running TCP job (launch.JoinPlan).
func (f *pagerankFlags) pagerankPlan(cmd *cobra.Command) (jobPlan, error) {
	if !f.jc.Join {
		return f.plan(cmd, f.ranks)
	}
	if err := usage(f.jc.CheckJoin(f.checkJoin(cmd, f.ranks))); err != nil {
		return jobPlan{}, err
	}
	return f.joinPlan()
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
	if err := r.writePlots(report.Input{Path: "pagerank", PageRank: &run}); err != nil {
		return err
	}
	rep.WriteSummary(textOut)
	fmt.Fprintln(stderr, rep.PeakMemoryLine())
	if rep.WarnMaxIter {
		return notConvergedError{iterations: rep.Iterations, l1: rep.Residual, limit: float64(rep.Vertices) * rep.Tol}
	}
	return nil
}

// notConvergedError is a run that reached --max-iter with its L1 change
// still above N·tol, as NetworkX's PowerIterationFailedConvergence: its
// outputs are written, and graphrun exits with exitNotConverged.
type notConvergedError struct {
	iterations int
	l1, limit  float64
}

func (e notConvergedError) Error() string {
	return fmt.Sprintf("PageRank did not converge in --max-iter %d iterations: L1 change %.3g, N·tol %.3g (scores written)",
		e.iterations, e.l1, e.limit)
}
