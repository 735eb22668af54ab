package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/internal/units"
)

// defaultBenchSizes are bench transport's message sizes: powers of 4 from
// 256 B to 16 MiB.
const defaultBenchSizes = "256,1Ki,4Ki,16Ki,64Ki,256Ki,1Mi,4Mi,16Mi"

// maxBenchSize bounds a message of bench transport (each rank holds one
// send buffer and a receive buffer per peer of this size).
const maxBenchSize = 1 << 30

func newBenchCommand() *cobra.Command {
	bench := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark matrices: BFS codecs and scaling, PageRank, allreduce, transport, memory",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				var names []string
				for _, sub := range cmd.Commands() {
					names = append(names, sub.Name())
				}
				return usageError{fmt.Errorf("unknown benchmark %q for \"graphrun bench\" (want one of: %s)", args[0], strings.Join(names, ", "))}
			}
			return cmd.Help()
		},
	}
	bench.AddCommand(newBenchTransportCommand(), newBenchNetSwitchCommand())
	return bench
}

type benchTransportFlags struct {
	transportFlags
	ranks   int
	sizes   string
	minTime time.Duration
	out     benchOutput
	// fromProcs is set by --procs on the processes it starts, so that rank
	// 0 names the table after the --procs command line.
	fromProcs bool
}

func newBenchTransportCommand() *cobra.Command {
	var f benchTransportFlags
	cmd := &cobra.Command{
		Use:   "transport",
		Short: "Measure Alltoallv bandwidth and latency against message size",
		Long: `Measures the transport's Alltoallv — every rank sends one message of the same
size to every other rank — for each message size of --sizes, on in-process
ranks (--ranks, the default), TCP processes (--procs N, or under a launcher
like graphrun bfs) or MPI processes (--transport mpi under mpirun, in a
graphrun built with -tags mpi), and prints per size the calls made, the latency of one
call, and the bandwidth (bytes a rank sends to the others per second; it
receives as many). Kylix (paper 000) Fig. 2 plots the same curve.

The minimum efficient message size is the smallest measured size whose
bandwidth reaches 50% of the peak (the largest measured bandwidth): below it,
per-message costs dominate and batching messages pays.

Like every matrix of graphrun bench, it prints its table and, only when
asked, writes one JSON per message size and summary.json into --dir and
regenerates its table in --doc (e.g. BENCHMARKS.md) between marker
comments named after its parameters (ranks or procs, transport, sizes,
min-time), so that each configuration keeps a table of its own. In a job of
several processes rank 0 writes them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchTransport(cmd, &f) },
	}
	f.transportFlags.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&f.ranks, "ranks", 2, "in-process ranks")
	fl.StringVar(&f.sizes, "sizes", defaultBenchSizes, "message sizes, bytes from one rank to one other rank per call, at most 1Gi ("+units.Help+")")
	fl.DurationVar(&f.minTime, "min-time", 250*time.Millisecond, "time spent measuring each size (at least 2 calls)")
	f.out.register(fl)
	fl.BoolVar(&f.fromProcs, fromProcsFlag, false, "set by --procs on the processes it starts")
	fl.Lookup(fromProcsFlag).Hidden = true
	return cmd
}

func runBenchTransport(cmd *cobra.Command, f *benchTransportFlags) error {
	sizes, err := parseSizes(f.sizes)
	if err != nil {
		return flagError("sizes", "%v", err)
	}
	if f.minTime <= 0 {
		return flagError("min-time", "%v is not a positive duration", f.minTime)
	}
	if err := checkRanks(f.ranks); err != nil {
		return err
	}
	plan, err := f.plan(cmd, f.ranks)
	if err != nil {
		return err
	}
	if plan.TotalRanks() < 2 {
		flag := "ranks"
		if plan.Procs > 0 {
			flag = "procs"
		}
		return flagError(flag, "an Alltoallv benchmark needs at least 2 ranks, the job has %d", plan.TotalRanks())
	}
	report := plan.Reports() // only rank 0 (its first replica) prints and writes
	outs := outputsOf(cmd)
	if report {
		if err := f.out.declare(outs); err != nil {
			return err
		}
		if err := outs.Check(); err != nil {
			return err
		}
	}
	if plan.Procs > 0 {
		return launchLocal(cmd, plan, "--"+fromProcsFlag)
	}
	ranks := plan.TotalRanks()
	what := fmt.Sprintf("%d in-process ranks", ranks)
	switch {
	case plan.TCP():
		what = fmt.Sprintf("tcp, %d processes", ranks)
	case plan.MPI():
		what = fmt.Sprintf("mpi, %d processes", ranks)
	}
	var bar *progress.Matrix
	var files []string
	var runs []benchTransportRun
	if report {
		key, command, title := f.transportKey(cmd, plan, sizes)
		f.out.title = title
		f.out.start("transport", key, command)
		bar = progress.NewMatrix(cmd.ErrOrStderr(), "transport", len(sizes))
	}
	// record keeps a measured size: its JSON in --dir and a progress step.
	record := func(r bench.TransportRow) error {
		run := benchTransportRun{Transport: what, Ranks: ranks, Size: r.Size, Calls: r.Calls, Seconds: r.Seconds, BandwidthPerRank: r.Bandwidth(ranks)}
		file := fmt.Sprintf("transport-p%d-%s.json", ranks, units.FormatBytes(int64(r.Size)))
		if err := f.out.writeJSON(file, run); err != nil {
			return err
		}
		files, runs = append(files, file), append(runs, run)
		bar.Step(fmt.Sprintf("%s: %.1f µs, %.1f MB/s per rank", bench.FormatSize(r.Size), r.Seconds*1e6, r.Bandwidth(ranks)/1e6))
		return nil
	}

	ctx := cmd.Context()
	var rows []bench.TransportRow
	err = plan.RunRanks(ctx, cmd.ErrOrStderr(), func(ctx context.Context, c comm.Comm) error {
		var onRow func(bench.TransportRow) error
		if c.Rank() == 0 && report {
			onRow = record
		}
		r, err := bench.MeasureAlltoallv(ctx, c, sizes, f.minTime, onRow)
		if c.Rank() == 0 {
			rows = r
		}
		return err
	})
	if err != nil {
		return err
	}
	if !report {
		return nil
	}
	bar.Finish()
	f.out.finish()
	var table strings.Builder
	if err := bench.WriteTransportTable(&table, what, ranks, rows); err != nil {
		return err
	}
	if _, err := io.WriteString(textOut(cmd, outs), table.String()); err != nil {
		return fmt.Errorf("bench transport: %w", err)
	}
	summary := benchTransportSummary{benchMeta: f.out.meta(), Transport: what, Ranks: ranks, MinTime: f.minTime.Seconds(), Files: files, Runs: runs}
	if len(rows) > 0 {
		peak, eff := bench.EfficientSize(rows, ranks)
		summary.PeakSize, summary.PeakBandwidthPerRank, summary.MinEfficientSize = rows[peak].Size, rows[peak].Bandwidth(ranks), rows[eff].Size
	}
	if err := f.out.writeSummary(summary); err != nil {
		return err
	}
	return f.out.regenerate(cmd.ErrOrStderr(), what, "", table.String())
}

// benchTransportRun is the JSON of one message size.
type benchTransportRun struct {
	Transport string `json:"transport"`
	Ranks     int    `json:"ranks"`
	// Size is the bytes from one rank to each other rank per call.
	Size  int `json:"size"`
	Calls int `json:"calls"`
	// Seconds is one call's latency: the slowest rank's time for all calls
	// divided by the calls.
	Seconds float64 `json:"seconds"`
	// BandwidthPerRank is the bytes one rank sends to the others per
	// second (it receives as many).
	BandwidthPerRank float64 `json:"bandwidth_per_rank"`
}

// benchTransportSummary is summary.json of bench transport.
type benchTransportSummary struct {
	benchMeta
	Transport            string              `json:"transport"`
	Ranks                int                 `json:"ranks"`
	MinTime              float64             `json:"min_time"`
	PeakSize             int                 `json:"peak_size,omitempty"`
	PeakBandwidthPerRank float64             `json:"peak_bandwidth_per_rank,omitempty"`
	MinEfficientSize     int                 `json:"min_efficient_size,omitempty"`
	Files                []string            `json:"files"`
	Runs                 []benchTransportRun `json:"runs"`
}

// transportKey returns the marker key of the table, the command line that
// regenerates it and the heading of its section: the ranks (in-process, or
// the processes of a TCP or MPI job), the message sizes and --min-time.
func (f *benchTransportFlags) transportKey(cmd *cobra.Command, plan jobPlan, sizes []int) (key, command, title string) {
	keys, flags, suffix, multi := benchJobSpec(plan, f.fromProcs)
	if !multi {
		p := plan.TotalRanks()
		keys = append(keys, fmt.Sprintf("ranks=%d", p))
		flags = append(flags, fmt.Sprintf("--ranks %d", p))
	}
	var ss []string
	for _, n := range sizes {
		ss = append(ss, units.FormatBytes(int64(n)))
	}
	keys = append(keys, "sizes="+strings.Join(ss, ","), "min-time="+f.minTime.String())
	flags = append(flags, "--sizes "+strings.Join(ss, ","), "--min-time "+f.minTime.String())
	if plan.MultiProcess() && f.replicas > 1 {
		keys = append(keys, fmt.Sprintf("replicas=%d", f.replicas))
		flags = append(flags, fmt.Sprintf("--replicas %d", f.replicas))
	}
	key = "transport " + strings.Join(keys, " ")
	command = "graphrun bench transport " + strings.Join(flags, " ")
	title = "### `" + command + "`" + suffix
	return key, command, title
}

// parseSizes parses a comma-separated list of message sizes from 1 byte
// to maxBenchSize (internal/units: 1Ki = 1024, 1k = 1000).
func parseSizes(list string) ([]int, error) {
	var sizes []int
	for _, field := range strings.Split(list, ",") {
		n, err := units.ParseBytes(field, 1, maxBenchSize)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, int(n))
	}
	return sizes, nil
}
