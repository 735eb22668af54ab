package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/results/report"
)

// graphFlags are the flags that choose a Kronecker graph, shared by bfs and
// generate so that both see exactly the same tuples.
type graphFlags struct {
	scale, edgefactor int
	seed              uint64
	noPermute         bool // --no-permute (bfs and generate only)
}

func (f *graphFlags) register(cmd *cobra.Command) {
	cmd.Flags().IntVarP(&f.scale, "scale", "s", 16, "log2 of the number of vertices (1..40)")
	cmd.Flags().IntVarP(&f.edgefactor, "edgefactor", "e", kronecker.DefaultEdgeFactor, "edge tuples per vertex")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "generator seed (the same graph on any number of ranks)")
}

// noPermuteUsage is the help of --no-permute, on bfs and generate.
const noPermuteUsage = "keep the Kronecker labels unpermuted (low ids are the hubs; not Graph500-conforming)"

// noPermuteNote is what bfs and generate print with --no-permute.
const noPermuteNote = "graphrun: --no-permute: Kronecker labels are not permuted (low ids are the hubs); this is not a Graph500-conforming run\n"

// params checks the graph flags (graph500.KroneckerParams).
func (f *graphFlags) params() (kronecker.Params, error) {
	p, err := graph500.KroneckerParams(f.scale, f.edgefactor, f.seed, f.noPermute)
	return p, usage(err)
}

// threadsOf is --threads (threads) of cmd, checked, or by default the
// CPUs shared among the ranks on this machine (launch.Threads).
func threadsOf(cmd *cobra.Command, threads, ranks int) (int, error) {
	threads, err := launch.Threads(threads, cmd.Flags().Changed("threads"), ranks)
	return threads, usage(err)
}

type bfsFlags struct {
	graphFlags
	*globalFlags
	runOutputFlags
	s         bfsSettings
	breakdown bool
	force     bool
	format    string
}

func newBFSCommand(g *globalFlags) *cobra.Command {
	f := &bfsFlags{globalFlags: g}
	cmd := &cobra.Command{
		Use:   "bfs [FILE|-]",
		Short: "Run the Graph500 BFS benchmark on a Kronecker graph or on an edge list",
		Example: `  graphrun bfs -s 20                        # Graph500: scale 20, 64 validated searches
  graphrun bfs -s 22 --ranks 4 -j run.json  # four in-process ranks, the run as JSON
  graphrun bfs -s 16 -r 0 -o tree.txt       # one search from vertex 0, its tree to a file
  graphrun bfs testdata/road-luxembourg-osm.mtx --ranks 2
  mpirun -np 16 graphrun bfs -s 26          # a cluster (a graphrun built with -tags mpi)`,
		Long: `Generates a Graph500 Kronecker graph, builds it (kernel 1), and runs validated
breadth-first searches from 64 sampled keys (kernel 2), printing the Graph500
statistics block. With --root, runs one search from that vertex instead.

With FILE, searches the undirected view of that edge list instead (SNAP text,
.el, .wel, Matrix Market, .bel, .grb, optionally gzipped; - or a pipe needs
--format); --root and --out use the file's ids. The experiment knobs (--algo,
--direction, --grid, --blocks-per-rank, --placement, --no-fuse, --no-permute,
--compress, --breakdown, --plots, --dpi) are hidden: see docs/design.md.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runBFS(cmd, f, args) },
	}
	f.register(cmd)
	return cmd
}

// register registers the flags of bfs (and of sssp, which runs bfs's
// searches before its own) on cmd, the experiment knobs hidden.
func (f *bfsFlags) register(cmd *cobra.Command) {
	jobFlags(cmd, groupRanks, groupThreads, groupTransport)
	f.graphFlags.register(cmd)
	fl := cmd.Flags()
	f.runOutputFlags.register(fl, "the text block", "frontier and bytes per level, time breakdown, TEPS")
	fl.IntVarP(&f.s.Roots, "roots", "n", graph500.DefaultRoots, "number of search keys")
	fl.Int64VarP(&f.s.Root, "root", "r", -1, "run one search from this vertex instead of sampled keys")
	fl.StringVarP(&f.s.Out, "out", "o", "", `with --root: write "vertex parent level" lines to this file`)
	fl.BoolVar(&f.s.NoValidate, "no-validate", false, "skip validation of the searches")
	fl.StringVar(&f.s.Exchange, "exchange", "allgather", "frontier exchange: allgather, sieve, packed or push (a job of processes: packed)")
	fl.StringVar(&f.s.Codec, "codec", "raw", "frontier codec of bottom-up levels: "+strings.Join(frontier.Names(), ", "))
	fl.StringVar(&f.s.Algo, "algo", "", "an algorithm of Lv et al. (BIT, WAH, ZLB-BS, DIR-WAH, ..., PDIR-<codec>): sets --exchange and --codec")
	fl.BoolVar(&f.breakdown, "breakdown", false, "print the per-level time and byte breakdown (Lv et al. Fig. 7) to stderr")
	fl.StringVar(&f.s.Direction, "direction", "auto", "traversal direction per level: auto, top-down or bottom-up")
	fl.BoolVar(&f.force, "force", false, "run even if the memory estimate exceeds available memory")
	fl.StringVar(&f.s.Partition, "partition", "1d", "graph partition: 1d (row blocks) or 2d (an RxC grid of blocks)")
	fl.StringVar(&f.s.Grid, "grid", "", "with --partition 2d: the process grid RxC (default: the most square)")
	fl.IntVar(&f.s.BlocksPerRank, "blocks-per-rank", 1, "with --partition 2d: blocks per rank (NumS's over-decomposition)")
	fl.StringVar(&f.s.Placement, "placement", "lshs", "with --blocks-per-rank > 1: lshs (NumS's load-simulated greedy) or round-robin")
	fl.BoolVar(&f.s.NoFuse, "no-fuse", false, "with --placement lshs: run every block on its own instead of fused per rank")
	fl.BoolVar(&f.noPermute, "no-permute", false, noPermuteUsage)
	fl.StringVar(&f.s.Compress, "compress", "auto", "1D rows compressed: auto (when the plain rows would not fit memory), on or off")
	fl.BoolVar(&f.s.Directed, "directed", false, "with FILE: follow out-edges only (top-down, push, 1D), validated as directed")
	fl.StringVar(&f.format, "format", "auto", "with FILE: snap, el, wel, mtx or bel, optionally .gz (auto: from the name)")
	hideFlags(cmd, "algo", "blocks-per-rank", "placement", "no-fuse", "no-permute", "grid", "direction", "compress", "breakdown", "plots", "dpi")
}

func runBFS(cmd *cobra.Command, f *bfsFlags, args []string) error {
	if err := f.checkDPI(); err != nil {
		return err
	}
	var file string
	if len(args) > 0 {
		file = args[0]
	}
	given := cmd.Flags().Changed
	if err := f.s.checkSource(given, file); err != nil {
		return err
	}
	var params kronecker.Params
	if file == "" {
		var err error
		if params, err = f.params(); err != nil {
			return err
		}
	}
	params.Seed = f.seed
	if err := usage(launch.CheckRanks(f.ranks)); err != nil {
		return err
	}
	plan, err := f.plan(cmd, f.ranks)
	if err != nil {
		return err
	}
	threads, err := threadsOf(cmd, f.threads, plan.LocalRanks())
	if err != nil {
		return err
	}
	exchangeDefaulted := f.s.defaultExchange(given, plan.OfProcesses())
	if exchangeDefaulted && plan.Procs == 0 && plan.MultiProcess() && plan.Reports() {
		fmt.Fprintf(cmd.ErrOrStderr(), "graphrun: exchange: %s, codec %s (the default for a job of processes; --exchange allgather for the in-process default)\n", f.s.Exchange, f.s.Codec)
	}
	if err := f.s.applyAlgorithm(given); err != nil {
		return err
	}
	cfg, gridNote, err := f.s.config(cmd.Flags(), params, file != "", plan.TotalRanks(), threads)
	if err != nil {
		return err
	}
	var in *edgelist.Input
	if file != "" {
		if in, err = resolveFileInput(cmd, f.format, file, plan); err != nil {
			return err
		}
		if f.s.SSSP {
			if err := checkWeighted(in, f.s.UnitWeights); err != nil {
				return err
			}
		}
		least := int64(leastPlainEdgeBytes)
		if cfg.Compress {
			least = leastPackedEdgeBytes
		}
		boundEdges(in, plan, least)
	} else {
		if f.s.Compress == "auto" && graph500.AutoCompress(cfg, plan.TotalRanks(), plan.LocalRanks(), plan.LocalProcesses()) {
			cfg.Compress = true // every rank agrees on it in kernel 1
			if plan.Procs == 0 && plan.Reports() {
				fmt.Fprintln(cmd.ErrOrStderr(), "graphrun: compressed adjacency: the plain rows would not fit this machine's memory (--compress off to keep them)")
			}
		}
		if err := usage(forceHint(graph500.CheckRunMemory(cfg, plan.TotalRanks(), plan.LocalRanks(), plan.LocalProcesses(), f.force))); err != nil {
			return err // unless --force, a Kronecker run whose memory estimate exceeds what this machine has
		}
	}
	var inPath string
	var stdin io.Reader // rank 0's standard input in a --procs job: an input read from -
	if in != nil {
		inPath, stdin = in.Path, in.StdinForChildren()
	}
	outs, tree, err := f.declareRun(cmd, plan, inPath, f.s.Out)
	if err != nil {
		return err
	}
	if plan.Procs > 0 {
		return launchRanks(cmd, plan, threads, stdin, args)
	}
	stderr := cmd.ErrOrStderr()
	if gridNote != "" && plan.Rank() == 0 {
		fmt.Fprintf(stderr, "graphrun: grid: %s\n", gridNote)
	}
	if f.noPermute && plan.Rank() == 0 {
		fmt.Fprint(stderr, noPermuteNote)
	}
	treeOut, err := newTreeSink(tree, plan)
	if err != nil {
		return err
	}
	defer treeOut.close()
	run, err := runBFSJob(cmd, f, cfg, in, plan, treeOut)
	if err != nil || run == nil || !plan.TakeReport() {
		return err // nil for a TCP rank other than 0, or a replica of rank 0 that another one reports for
	}
	run.ExchangeDefaulted = exchangeDefaulted
	if err := treeOut.commit(); err != nil {
		return err
	}
	return writeBFSRun(f, run, textOut(cmd, outs), stderr)
}

// runBFSJob runs cfg on this process's ranks of the job plan, on the
// Kronecker graph or on in, with the progress bar and warnings on stderr
// and the tree, when --out is given, written to tree. It returns rank 0's
// report with the run's version, start and command line.
func runBFSJob(cmd *cobra.Command, f *bfsFlags, cfg graph500.Config, in *edgelist.Input, plan jobPlan, tree *treeSink) (*results.Graph500Run, error) {
	stderr := cmd.ErrOrStderr()
	bar := progress.NewStages(progressOut(stderr, plan), cfg.Graph.Scale, f.s.Roots, cfg.Root >= 0)
	cfg.Ranks, cfg.Progress = f.ranks, bar.Update
	cfg.Warn = func(msg string) { bar.Clear(); fmt.Fprintf(stderr, "graphrun: warning: %s\n", msg) }
	if f.s.Out != "" {
		// Every rank takes part in gathering the tree; rank 0 writes it.
		cfg.Tree = tree.write
	}
	// The heap holds a few large pointer-free arrays (the CSR, the search
	// state): collecting at 25 % growth instead of Go's 100 % costs little
	// and keeps the peak near what the run holds (BENCHMARKS.md, "Memory").
	defer memstat.LeanHeap(memstat.LeanHeap(memstat.LeanPercent))
	started := time.Now()
	var run *results.Graph500Run
	var err error
	if in != nil {
		fc := graph500.FileConfig{Config: cfg, Input: in, Directed: f.s.Directed, UnitWeights: f.s.UnitWeights}
		run, err = graph500.RunFileJob(cmd.Context(), fc, plan.JobSize(), plan.Runner(stderr))
		err = unweightedStream(err)
	} else {
		run, err = graph500.RunJob(cmd.Context(), cfg, plan.JobSize(), plan.Runner(stderr))
	}
	bar.Clear()
	if in != nil && graph500.IsInputError(err) {
		return nil, usageError{err} // bad input: a malformed file, a root not in the graph
	}
	if err != nil || run == nil {
		return nil, err
	}
	run.Version, run.StartedAt = version, started.UTC()
	run.Revision, run.CommandLine = revision, invocationOf(cmd).commandLine
	return run, nil
}

// writeBFSRun prints a finished run, as rank 0 of every transport does: the
// JSON (--json), the breakdown (--breakdown), the charts (--plots) and the
// Graph500 block on textOut.
func writeBFSRun(f *bfsFlags, run *results.Graph500Run, textOut, stderr io.Writer) error {
	if err := f.writeJSON(run.WriteJSON); err != nil {
		return err
	}
	if f.breakdown {
		if err := run.WriteBreakdown(stderr); err != nil {
			return err
		}
	}
	if err := f.writePlots(report.Input{Path: "bfs", BFS: run}); err != nil {
		return err
	}
	fmt.Fprint(stderr, run.PeakMemoryLine())
	results.NoteDominance(stderr, run.Searches)
	if !run.ValidationSkipped && !run.Validated() {
		fmt.Fprint(textOut, results.InvalidRunText)
		return fmt.Errorf("validation failed")
	}
	return run.WriteText(textOut)
}
