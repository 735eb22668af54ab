package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/memstat"
	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv"
)

// graphFlags are the flags that choose a Kronecker graph, shared by bfs and
// generate so that both see exactly the same tuples.
type graphFlags struct {
	scale, edgefactor int
	seed              uint64
	threads           int
	noPermute         bool // --no-permute (bfs and generate only)
}

func (f *graphFlags) register(cmd *cobra.Command) {
	cmd.Flags().IntVar(&f.scale, "scale", 16, "log2 of the number of vertices (1..40)")
	cmd.Flags().IntVar(&f.edgefactor, "edgefactor", kronecker.DefaultEdgeFactor, "edge tuples per vertex")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "generator seed (the same seed gives the same graph on any number of ranks)")
	cmd.Flags().IntVar(&f.threads, "threads", 0, threadsUsage(cmd))
}

// noPermuteUsage is the help of --no-permute, on bfs and generate.
const noPermuteUsage = "keep the Kronecker labels unpermuted (low ids are the hubs): a skewed input for 2D block placement, not a Graph500-conforming run"

// noPermuteNote is what bfs and generate print with --no-permute.
const noPermuteNote = "graphrun: --no-permute: Kronecker labels are not permuted (low ids are the hubs); this is not a Graph500-conforming run\n"

// maxTupleBytesLog bounds, as a power of two, the bytes a run holds per
// edge tuple at its peak: a graph whose bytes would overflow int64 cannot
// be held, and its estimate cannot be computed.
const maxTupleBytesLog = 7

func (f *graphFlags) params() (kronecker.Params, error) {
	if f.scale < 1 || f.scale > kronecker.MaxScale {
		return kronecker.Params{}, flagError("scale", "%d is outside 1..%d", f.scale, kronecker.MaxScale)
	}
	if f.edgefactor < 1 {
		return kronecker.Params{}, flagError("edgefactor", "%d is less than 1", f.edgefactor)
	}
	if int64(f.edgefactor) > math.MaxInt64>>(f.scale+maxTupleBytesLog) {
		return kronecker.Params{}, flagError("edgefactor", "%d·2^%d tuples overflow a 64-bit count of their bytes", f.edgefactor, f.scale)
	}
	p := kronecker.DefaultParams(f.scale)
	p.EdgeFactor = f.edgefactor
	p.Seed = f.seed
	p.Unpermuted = f.noPermute
	if err := p.Validate(); err != nil {
		return kronecker.Params{}, usageError{err}
	}
	return p, nil
}

func (f *graphFlags) threadCount(cmd *cobra.Command, ranks int) (int, error) {
	return threadsOf(cmd, f.threads, ranks)
}

// threadsOf is --threads (threads) of cmd, checked, or by default the
// CPUs shared among the ranks on this machine, at least 1.
func threadsOf(cmd *cobra.Command, threads, ranks int) (int, error) {
	threads, err := threadsGiven(cmd, threads)
	if threads == 0 && err == nil {
		threads = max(1, runtime.GOMAXPROCS(0)/ranks)
	}
	return threads, err
}

// threadsGiven is --threads (threads) of cmd, checked, or 0 when it was
// not given.
func threadsGiven(cmd *cobra.Command, threads int) (int, error) {
	if !cmd.Flags().Changed("threads") {
		return 0, nil
	}
	if threads < 1 {
		return 0, flagError("threads", "%d is less than 1", threads)
	}
	return threads, nil
}

type bfsFlags struct {
	graphFlags
	transportFlags
	ranks, roots int
	root         int64
	out, json    string
	plots        string
	dpi          int // --dpi of the --plots PNG files
	noValidate   bool
	exchange     string
	direction    string
	codec        string
	algo         string
	breakdown    bool
	force        bool
	partition    string
	grid         string
	blocks       int    // --blocks-per-rank
	placement    string // --placement
	format       string
	directed     bool

	gridRows, gridCols int // parsed --grid, or the automatic grid
}

func newBFSCommand() *cobra.Command {
	var f bfsFlags
	cmd := &cobra.Command{
		Use:   "bfs [FILE|-]",
		Short: "Run the Graph500 BFS benchmark on a Kronecker graph or on an edge list",
		Long: `Generates a Graph500 Kronecker graph, builds it (kernel 1), and runs validated
breadth-first searches from 64 sampled keys (kernel 2), printing the Graph500
statistics block. With --root, runs one search from that vertex instead.

With FILE, searches the undirected view of that edge list instead (SNAP
text, .el, .wel, Matrix Market, .bel, optionally gzipped; - or a pipe is
read as a stream and needs --format): every rank reads its share, the ids
are relabelled densely, and --root and --out use the file's ids.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runBFS(cmd, &f, args) },
	}
	f.graphFlags.register(cmd)
	f.transportFlags.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&f.ranks, "ranks", 1, "in-process ranks")
	fl.IntVar(&f.roots, "roots", graph500.DefaultRoots, "number of search keys")
	fl.Int64Var(&f.root, "root", -1, "run one search from this vertex instead of sampled keys")
	fl.StringVar(&f.out, "out", "", `with --root: write "vertex parent level" lines to this file`)
	fl.BoolVar(&f.noValidate, "no-validate", false, "skip validation of the searches")
	fl.StringVar(&f.json, "json", "", `write the run as JSON to this file ("-" for stdout; the text block then goes to stderr)`)
	fl.StringVar(&f.exchange, "exchange", "allgather", "frontier exchange: allgather (paper 004 Alg. 1/2), sieve (Alg. 3, cross directories), packed (the sieve sending only directory positions not yet sent) or push (Graph500 reference style); "+
		"default: allgather in-process, packed with --codec auto in a job of processes (--procs, TCP, MPI)")
	fl.StringVar(&f.codec, "codec", "raw", "frontier codec of bottom-up levels: "+strings.Join(frontier.Names(), ", "))
	fl.StringVar(&f.algo, "algo", "", "a paper 004 algorithm: BIT, WAH, ZLB-BS, ZLB-DF, ZLB-BC, DIR-WAH, DIR-ZLB-BS, ..., or PDIR-<codec> for the packed sieve (sets --exchange and --codec; --direction bottom-up unless given)")
	fl.StringVar(&f.plots, "plots", "", "write the run's charts (frontier and bytes per level, time breakdown, TEPS) as SVG, PDF and PNG into this directory")
	addDPIFlag(fl, &f.dpi)
	fl.BoolVar(&f.breakdown, "breakdown", false, "print the per-level time and byte breakdown (paper 004 Fig. 7) to stderr")
	fl.StringVar(&f.direction, "direction", "auto", "traversal direction per level: auto, top-down or bottom-up (allgather only; push is top-down)")
	fl.BoolVar(&f.force, "force", false, "run even if the memory estimate exceeds available memory")
	fl.StringVar(&f.partition, "partition", "1d", "graph partition: 1d (row blocks) or 2d (an RxC grid of blocks: expand along processor columns, fold along rows)")
	fl.StringVar(&f.grid, "grid", "", "with --partition 2d: the process grid RxC, R·C = ranks (with --blocks-per-rank K, the block grid, R·C = K·ranks; default: the most square grid)")
	fl.IntVar(&f.blocks, "blocks-per-rank", 1, "with --partition 2d: cut the matrix into this many blocks per rank (paper 003's over-decomposition), placed by --placement")
	fl.StringVar(&f.placement, "placement", "lshs", "with --blocks-per-rank > 1: where blocks live: lshs (paper 003's load-simulated greedy) or round-robin")
	fl.BoolVar(&f.noPermute, "no-permute", false, noPermuteUsage)
	fl.BoolVar(&f.directed, "directed", false, "with FILE: follow out-edges only (top-down, push exchange, 1D partition), validated as a directed search")
	fl.StringVar(&f.format, "format", "auto", "with FILE: its format, snap, el, wel, mtx or bel, optionally .gz (auto: from the name; needed for a stream)")
	return cmd
}

func runBFS(cmd *cobra.Command, f *bfsFlags, args []string) error {
	var params kronecker.Params
	err := checkDPI(f.dpi)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		for _, flag := range []string{"format", "directed"} {
			if cmd.Flags().Changed(flag) {
				return flagError(flag, "needs an edge list FILE")
			}
		}
		if params, err = f.params(); err != nil {
			return err
		}
	} else {
		for _, flag := range []string{"scale", "edgefactor", "force"} {
			if cmd.Flags().Changed(flag) {
				return flagError(flag, "chooses a Kronecker graph: it cannot be combined with the edge list %s", args[0])
			}
		}
		params.Seed = f.seed
		if f.directed {
			for _, flag := range []string{"exchange", "codec", "algo", "direction", "partition", "grid"} {
				if cmd.Flags().Changed(flag) {
					return flagError(flag, "cannot be combined with --directed (top-down, push exchange, 1D partition)")
				}
			}
			f.exchange, f.direction = "push", "top-down"
		}
	}
	if err := checkRanks(f.ranks); err != nil {
		return err
	}
	plan, err := f.plan(cmd, f.ranks)
	if err != nil {
		return err
	}
	threads, err := f.threadCount(cmd, plan.LocalRanks())
	if err != nil {
		return err
	}
	exchangeDefaulted := defaultExchange(plan, cmd, &f.exchange, &f.codec)
	if f.algo != "" {
		for _, flag := range []string{"exchange", "codec"} {
			if cmd.Flags().Changed(flag) {
				return flagError("algo", "cannot be combined with --%s (it sets both --exchange and --codec)", flag)
			}
		}
		ex, codec, err := bench.ParseAlgorithm(f.algo)
		if err != nil {
			return flagError("algo", "%v", err)
		}
		f.exchange, f.codec = ex, codec
		if !cmd.Flags().Changed("direction") {
			f.direction = "bottom-up" // the paper's algorithms are bottom-up at every level
		}
	}
	exchange, err := spmv.ParseExchange(f.exchange)
	if err != nil {
		return flagError("exchange", "%v", err)
	}
	direction, err := spmv.ParseDirection(f.direction)
	if err != nil {
		return flagError("direction", "%v", err)
	}
	if _, err := frontier.New(f.codec); err != nil {
		return flagError("codec", "%v", err)
	}
	if exchange == spmv.ExchangePush && cmd.Flags().Changed("direction") && direction != spmv.DirectionTopDown {
		return flagError("direction", "%s needs --exchange allgather (push is top-down at every level)", direction)
	}
	if f.blocks < 1 {
		return flagError("blocks-per-rank", "%d is less than 1", f.blocks)
	}
	if f.blocks > 1 && f.partition != "2d" {
		return flagError("blocks-per-rank", "needs --partition 2d")
	}
	placement, err := graph500.ParsePlacement(f.placement)
	if err != nil {
		return flagError("placement", "%v", err)
	}
	gridNote, err := f.parseGrid(cmd, plan.TotalRanks()*f.blocks)
	if err != nil {
		return err
	}
	rootSet := cmd.Flags().Changed("root")
	switch {
	case rootSet && len(args) > 0 && f.root < 0:
		return flagError("root", "%d is negative: vertex ids are not", f.root)
	case rootSet && len(args) == 0 && (f.root < 0 || f.root >= params.NumVertices()):
		return flagError("root", "%d is outside [0, %d) for scale %d", f.root, params.NumVertices(), params.Scale)
	}
	if !rootSet {
		f.root = -1
		if f.roots < 1 {
			return flagError("roots", "%d is less than 1", f.roots)
		}
	}
	if f.out != "" && !rootSet {
		return flagError("out", "needs --root (the tree of one search)")
	}
	var in *graph.Input
	if len(args) > 0 {
		if in, err = resolveFileInput(cmd, f.format, args[0], plan); err != nil {
			return err
		}
	} else if err := f.checkMemory(params, plan, exchange, direction); err != nil {
		return err
	}
	// The process that reports (rank 0's, or the --procs launcher) checks
	// the outputs before any work.
	outs := outputsOf(cmd)
	var tree, jsonOut *output.File
	var plotsOut *output.Dir
	if plan.Reports() {
		if in != nil {
			outs.Input(in.Path)
		}
		tree, jsonOut, plotsOut = outs.File("out", f.out), outs.File("json", f.json), outs.Dir("plots", f.plots)
		if err := outs.Check(); err != nil {
			return err
		}
	}
	if plan.Procs > 0 {
		var extra []string
		if !cmd.Flags().Changed("threads") {
			extra = append(extra, fmt.Sprintf("--threads=%d", threads))
		}
		if in != nil {
			plan.Stdin = in.StdinForChildren()
		}
		return launchLocal(cmd, plan, append(extra, args...)...)
	}

	stderr := cmd.ErrOrStderr()
	if gridNote != "" && plan.Rank() == 0 {
		fmt.Fprintf(stderr, "graphrun: grid: %s\n", gridNote)
	}
	if f.noPermute && plan.Rank() == 0 {
		fmt.Fprint(stderr, noPermuteNote)
	}
	bar := progress.NewStages(stderr, params.Scale, f.roots, rootSet)
	cfg := graph500.Config{
		Graph: params, Ranks: f.ranks, Threads: threads, NumRoots: f.roots, Root: f.root,
		Validate: !f.noValidate, Exchange: exchange, Direction: direction, Codec: f.codec,
		Partition2D: f.partition == "2d", GridRows: f.gridRows, GridCols: f.gridCols,
		BlocksPerRank: f.blocks, Placement: placement,
		Progress: bar.Update,
		Warn:     func(msg string) { bar.Clear(); fmt.Fprintf(stderr, "graphrun: warning: %s\n", msg) },
	}
	if f.out != "" {
		// Every rank takes part in gathering the tree; rank 0 writes it.
		cfg.Tree = func(chunk []byte) error {
			if tree == nil {
				return nil
			}
			_, err := tree.Write(chunk)
			return err
		}
	}
	// The heap holds a few large pointer-free arrays (the CSR, the search
	// state): collecting at 25 % growth instead of Go's 100 % costs little
	// and keeps the peak near what the run holds (BENCHMARKS.md, "Memory").
	defer memstat.LeanHeap(memstat.LeanHeap(memstat.LeanPercent))
	started := time.Now()
	var run *results.Graph500Run
	size := 0 // in-process ranks
	if plan.MultiProcess() {
		size = plan.Job.Size
	}
	runner := func(ctx context.Context, fn func(context.Context, comm.Comm) error) error {
		return plan.RunRanks(ctx, stderr, fn)
	}
	if in != nil {
		run, err = graph500.RunFileJob(cmd.Context(), graph500.FileConfig{Config: cfg, Input: in, Directed: f.directed}, size, runner)
	} else {
		run, err = graph500.RunJob(cmd.Context(), cfg, size, runner)
	}
	bar.Clear()
	if in != nil && graph500.IsInputError(err) {
		return usageError{err} // bad input: a malformed file, a root not in the graph
	}
	if err != nil {
		return err
	}
	if run == nil || !plan.Reports() {
		return nil // a TCP rank other than 0, or a replica of rank 0: process 0 reports
	}
	run.Version, run.StartedAt, run.ExchangeDefaulted = version, started.UTC(), exchangeDefaulted
	run.Revision, run.CommandLine = revision, invocationOf(cmd).commandLine
	if tree != nil {
		if err := tree.Commit(); err != nil {
			return err
		}
	}
	return writeBFSRun(f, run, jsonOut, plotsOut, textOut(cmd, outs), stderr)
}

// writeBFSRun prints a finished run, as rank 0 of every transport does: the
// JSON (--json), the breakdown (--breakdown), the charts (--plots) and the
// Graph500 block on textOut.
func writeBFSRun(f *bfsFlags, run *results.Graph500Run, jsonOut *output.File, plotsOut *output.Dir, textOut, stderr io.Writer) error {
	if jsonOut != nil {
		if err := jsonOut.WriteAll(run.WriteJSON); err != nil {
			return err
		}
	}
	if f.breakdown {
		if err := run.WriteBreakdown(stderr); err != nil {
			return err
		}
	}
	if plotsOut != nil {
		if err := writePlots(plotsOut, []results.ReportInput{{Path: "bfs", BFS: run}}, f.dpi); err != nil {
			return err
		}
	}
	fmt.Fprint(stderr, run.PeakMemoryLine())
	results.NoteDominance(stderr, run.Searches)
	if !run.ValidationSkipped && !run.Validated() {
		fmt.Fprint(textOut, results.InvalidRunText)
		return fmt.Errorf("validation failed")
	}
	return run.WriteText(textOut)
}

// checkMemory refuses, unless --force, a Kronecker run whose memory
// estimate (graph500.EstimateMemory) exceeds what this machine has; a run
// whose counts overflow is refused even with --force.
func (f *bfsFlags) checkMemory(params kronecker.Params, plan jobPlan, exchange spmv.Exchange, direction spmv.Direction) error {
	memCfg := graph500.MemoryConfig{
		Scale: params.Scale, EdgeFactor: params.EdgeFactor, Ranks: plan.TotalRanks(), LocalRanks: plan.LocalRanks(),
		Partition2D: f.partition == "2d", Exchange: exchange, Direction: direction, Validate: !f.noValidate,
	}
	if plan.Procs > 0 || plan.MultiProcess() {
		memCfg.Processes = plan.LocalRanks()
	}
	err := graph500.CheckMemory(memCfg, f.force)
	var me *graph500.MemoryError
	if errors.As(err, &me) {
		return flagError(me.Field, "%s", me.Msg)
	}
	return err
}

// parseGrid checks --partition and --grid against the job's rank count and
// fills in the grid (the most square one when --grid is not given). It
// returns AutoGrid's note when the automatic grid is far from square.
func (f *bfsFlags) parseGrid(cmd *cobra.Command, ranks int) (note string, err error) {
	switch f.partition {
	case "1d":
		if cmd.Flags().Changed("grid") {
			return "", flagError("grid", "needs --partition 2d")
		}
		return "", nil
	case "2d":
	default:
		return "", flagError("partition", "unknown partition %q (want 1d or 2d)", f.partition)
	}
	if !cmd.Flags().Changed("grid") {
		f.gridRows, f.gridCols, note = partition.AutoGrid(ranks) // note: only for a prime or lopsided rank count
		return note, nil
	}
	r, c, err := partition.ParseGrid(f.grid)
	if err != nil {
		return "", flagError("grid", "%v", err)
	}
	if r*c != ranks {
		return "", flagError("grid", "%dx%d has %d ranks, the job has %d", r, c, r*c, ranks)
	}
	f.gridRows, f.gridCols = r, c
	return "", nil
}
