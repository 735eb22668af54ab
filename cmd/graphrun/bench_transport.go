package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/progress"
)

// defaultBenchSizes are bench transport's message sizes: powers of 4 from
// 256 B to 16 MiB.
const defaultBenchSizes = "256,1K,4K,16K,64K,256K,1M,4M,16M"

// maxBenchSize bounds a message of bench transport (each rank holds one
// send buffer and a receive buffer per peer of this size).
const maxBenchSize = 1 << 30

// efficientFraction defines the minimum efficient message size: the
// smallest measured size whose bandwidth reaches this fraction of the peak.
const efficientFraction = 0.5

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
	bench.AddCommand(newBenchTransportCommand())
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

Like every matrix of graphrun bench, it writes one JSON per message size and
summary.json into --dir, and regenerates its table in --doc between marker
comments named after its parameters (ranks or procs, transport, sizes,
min-time), so that each configuration keeps a table of its own. In a job of
several processes rank 0 writes them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchTransport(cmd, &f) },
	}
	f.transportFlags.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&f.ranks, "ranks", 2, "in-process ranks")
	fl.StringVar(&f.sizes, "sizes", defaultBenchSizes, "message sizes, bytes from one rank to one other rank per call (K, M, G = 1024, 1024², 1024³)")
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
	record := func(r benchRow) error {
		run := benchTransportRun{Transport: what, Ranks: ranks, Size: r.size, Calls: r.calls, Seconds: r.seconds, BandwidthPerRank: r.bandwidth(ranks)}
		file := fmt.Sprintf("transport-p%d-%s.json", ranks, sizeToken(r.size))
		if err := f.out.writeJSON(file, run); err != nil {
			return err
		}
		files, runs = append(files, file), append(runs, run)
		bar.Step(fmt.Sprintf("%s: %.1f µs, %.1f MB/s per rank", formatSize(r.size), r.seconds*1e6, r.bandwidth(ranks)/1e6))
		return nil
	}

	ctx := cmd.Context()
	var rows []benchRow
	err = plan.RunRanks(ctx, cmd.ErrOrStderr(), func(ctx context.Context, c comm.Comm) error {
		var onRow func(benchRow) error
		if c.Rank() == 0 && report {
			onRow = record
		}
		r, err := measureAlltoallv(ctx, c, sizes, f.minTime, onRow)
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
	if err := writeBenchTable(&table, what, ranks, rows); err != nil {
		return err
	}
	if _, err := io.WriteString(textOut(cmd, outs), table.String()); err != nil {
		return fmt.Errorf("bench transport: %w", err)
	}
	summary := benchTransportSummary{benchMeta: f.out.meta(), Transport: what, Ranks: ranks, MinTime: f.minTime.Seconds(), Files: files, Runs: runs}
	if len(rows) > 0 {
		peak, eff := efficientSize(rows, ranks)
		summary.PeakSize, summary.PeakBandwidthPerRank, summary.MinEfficientSize = rows[peak].size, rows[peak].bandwidth(ranks), rows[eff].size
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
		ss = append(ss, sizeToken(n))
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

// sizeToken writes a byte size the way --sizes takes it, without spaces:
// 256, 1K, 16M.
func sizeToken(n int) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "G"}, {20, "M"}, {10, "K"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return strconv.Itoa(n)
}

// parseSizes parses a comma-separated list of byte sizes: an integer with
// an optional binary suffix K, M or G (KB, KiB, ... are accepted as well).
func parseSizes(list string) ([]int, error) {
	var sizes []int
	for _, field := range strings.Split(list, ",") {
		s := strings.TrimSpace(field)
		if s == "" {
			return nil, fmt.Errorf("empty size in %q", list)
		}
		upper := strings.ToUpper(s)
		upper = strings.TrimSuffix(strings.TrimSuffix(upper, "B"), "I")
		mult := 1
		switch {
		case strings.HasSuffix(upper, "K"):
			mult = 1 << 10
		case strings.HasSuffix(upper, "M"):
			mult = 1 << 20
		case strings.HasSuffix(upper, "G"):
			mult = 1 << 30
		}
		if mult > 1 {
			upper = upper[:len(upper)-1]
		}
		n, err := strconv.Atoi(upper)
		if err != nil || n < 1 || n > maxBenchSize/mult {
			return nil, fmt.Errorf("%q is not a size from 1 to 1G bytes", s)
		}
		sizes = append(sizes, n*mult)
	}
	return sizes, nil
}

// formatSize writes a byte count the way --sizes takes it, in the largest
// binary unit that divides it.
func formatSize(n int) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// benchRow is one message size's measurement.
type benchRow struct {
	size    int     // bytes from one rank to each other rank per call
	calls   int     // calls timed
	seconds float64 // per call: the slowest rank's time for all calls / calls
}

// bandwidth is the bytes one rank sends to the others per second.
func (r benchRow) bandwidth(ranks int) float64 {
	return float64(r.size) * float64(ranks-1) / r.seconds
}

// measureAlltoallv is one rank's share of bench transport: for each size,
// one warm-up call that also checks the data, one call to calibrate, then
// enough calls to fill minTime, timed between barriers. Every rank returns
// the same rows (times are maxima over ranks). onRow, if not nil, gets each
// row as soon as it is measured.
func measureAlltoallv(ctx context.Context, c comm.Comm, sizes []int, minTime time.Duration, onRow func(benchRow) error) ([]benchRow, error) {
	const phase = "bench.alltoallv"
	p, me := c.Size(), c.Rank()
	recv := make([][]byte, p)
	var rows []benchRow
	for _, size := range sizes {
		buf := make([]byte, size)
		for i := range buf {
			buf[i] = byte(me + i)
		}
		send := make([][]byte, p)
		for d := range send {
			if d != me {
				send[d] = buf // sends are only read: one buffer serves every peer
			}
		}
		var err error
		if recv, err = c.Alltoallv(ctx, phase, send, recv); err != nil {
			return nil, err
		}
		for s, m := range recv {
			if s != me && (len(m) != size || m[0] != byte(s) || m[size-1] != byte(s+size-1)) {
				return nil, fmt.Errorf("bench: rank %d received %d wrong bytes from rank %d (want %d)", me, len(m), s, size)
			}
		}
		timed := func(calls int) (float64, error) {
			if err := c.Barrier(ctx, phase); err != nil {
				return 0, err
			}
			t0 := time.Now()
			for range calls {
				if recv, err = c.Alltoallv(ctx, phase, send, recv); err != nil {
					return 0, err
				}
			}
			v := []float64{time.Since(t0).Seconds()}
			err := c.AllreduceFloat64(ctx, phase, v, comm.Max)
			return v[0], err
		}
		one, err := timed(1)
		if err != nil {
			return nil, err
		}
		// The same value on every rank (an allreduce result), so every rank
		// makes the same number of calls.
		calls := int(min(1e6, max(2, minTime.Seconds()/max(one, 1e-9))))
		total, err := timed(calls)
		if err != nil {
			return nil, err
		}
		row := benchRow{size: size, calls: calls, seconds: max(total, 1e-9) / float64(calls)}
		rows = append(rows, row)
		if onRow != nil {
			if err := onRow(row); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// efficientSize returns the index of the peak bandwidth among rows and of
// the minimum efficient message size: the smallest size whose bandwidth
// reaches efficientFraction of the peak.
func efficientSize(rows []benchRow, ranks int) (peak, efficient int) {
	for i, r := range rows {
		if r.bandwidth(ranks) > rows[peak].bandwidth(ranks) {
			peak = i
		}
	}
	efficient = peak
	for i, r := range rows {
		if r.bandwidth(ranks) >= efficientFraction*rows[peak].bandwidth(ranks) && r.size < rows[efficient].size {
			efficient = i
		}
	}
	return peak, efficient
}

// writeBenchTable prints bench transport's report: a line saying what ran,
// a Markdown table, the peak and the minimum efficient message size.
func writeBenchTable(w io.Writer, what string, ranks int, rows []benchRow) error {
	fmt.Fprintf(w, "Alltoallv over %s: one message of each size from every rank to every other rank per call. ", what)
	fmt.Fprintf(w, "Latency: one call, the slowest rank's time for all calls divided by the calls. ")
	fmt.Fprintf(w, "Bandwidth: bytes one rank sends to the others per second (it receives as many); aggregate: all ranks; MB = 10^6 bytes.\n\n")
	fmt.Fprintln(w, "| message | calls | latency µs | MB/s per rank | aggregate MB/s |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		bw := r.bandwidth(ranks)
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.1f |\n", formatSize(r.size), r.calls, r.seconds*1e6, bw/1e6, bw*float64(ranks)/1e6)
	}
	if len(rows) == 0 {
		return nil
	}
	peak, eff := efficientSize(rows, ranks)
	_, err := fmt.Fprintf(w, "\n- peak bandwidth: %.1f MB/s per rank with %s messages\n- minimum efficient message size: %s (the smallest size reaching %.0f%% of the peak bandwidth)\n",
		rows[peak].bandwidth(ranks)/1e6, formatSize(rows[peak].size), formatSize(rows[eff].size), 100*efficientFraction)
	return err
}
