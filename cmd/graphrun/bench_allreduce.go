package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
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
}

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
alternate, so that load from other jobs hits them alike. The last column is
the tree time divided by the chunked hypercube time.

--link-bandwidth models a cluster network on top of the real run: every
collective call of a rank lasts at least --link-latency plus the larger of
the bytes it sends and receives divided by the bandwidth (a full-duplex
link per rank), so that the algorithms' per-link volumes, not this
machine's cores, decide. The computation stays real.

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
	fl.StringVar(&f.plots, "plots", "", "also draw time against vector length (SVG and PNG) into this directory")
	return cmd
}

// benchDenseRow is one rank count and vector length: the median time of
// each algorithm, in the order of the algorithm list (NaN: skipped).
type benchDenseRow struct {
	ranks, n int
	seconds  []float64
	skipped  string
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
	if plan.procs > 0 {
		return plan.launchLocal(cmd)
	}
	cfg := benchDenseConfig{algs: algs, repeat: f.repeat, stat: f.stat, bandwidth: bandwidth, latency: f.latency,
		opts: allreduce.DenseOptions{Phase: "bench.dense", Workers: f.workers, Pieces: f.pieces}}
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
	ctx, stop := interruptContext()
	defer stop()
	var rows []benchDenseRow
	what := "in-process ranks"
	if plan.multiProcess() {
		what = fmt.Sprintf("tcp, %d processes", plan.totalRanks())
		if plan.mpi() {
			what = fmt.Sprintf("mpi, %d processes", plan.totalRanks())
		}
		p := plan.totalRanks()
		var run []int
		for _, n := range sizes {
			if why := fits(plan.localRanks(), n); why != "" {
				rows = append(rows, benchDenseRow{ranks: p, n: n, skipped: why})
			} else {
				run = append(run, n)
			}
		}
		var got []benchDenseRow
		err := plan.runRanks(ctx, cmd.ErrOrStderr(), func(ctx context.Context, c comm.Comm) error {
			r, err := measureDenseSizes(ctx, c, run, cfg, true)
			if c.Rank() == 0 {
				got = r
			}
			return err
		})
		if err != nil {
			return err
		}
		if plan.rank() != 0 {
			return nil
		}
		rows = append(rows, got...)
	} else {
		for _, p := range rankCounts {
			for _, n := range sizes {
				if why := fits(p, n); why != "" {
					rows = append(rows, benchDenseRow{ranks: p, n: n, skipped: why})
					continue
				}
				var got []benchDenseRow
				err := inproc.Run(ctx, p, func(ctx context.Context, c comm.Comm) error {
					r, err := measureDenseSizes(ctx, c, []int{n}, cfg, false)
					if c.Rank() == 0 {
						got = r
					}
					return err
				})
				if err != nil {
					return err
				}
				rows = append(rows, got...)
				debug.FreeOSMemory()
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b benchDenseRow) int {
		if a.ranks != b.ranks {
			return a.ranks - b.ranks
		}
		return a.n - b.n
	})
	if err := writeDenseTable(cmd.OutOrStdout(), what, cfg, rows); err != nil {
		return err
	}
	timings := denseTimings(cfg, rows)
	if f.json != "" {
		err := results.WriteFileAtomic(f.json, func(w io.Writer) error {
			return writeIndentedJSON(w, struct {
				Transport string                    `json:"transport"`
				Stat      string                    `json:"stat"`
				Repeat    int                       `json:"repeat"`
				Bandwidth float64                   `json:"link_bandwidth,omitempty"`
				Timings   []results.AllreduceTiming `json:"timings"`
			}{what, cfg.stat, cfg.repeat, cfg.bandwidth, timings})
		})
		if err != nil {
			return fmt.Errorf("--json: %w", err)
		}
	}
	if f.plots != "" {
		if err := os.MkdirAll(f.plots, 0o755); err != nil {
			return flagError("plots", "%v", err)
		}
		chart, err := results.AllreduceChart(timings)
		if err != nil {
			return fmt.Errorf("--plots: %w", err)
		}
		chart.Plot.Title.Text = "Dense allreduce time against vector length (" + what + ")"
		if _, err := chart.WriteFiles(f.plots); err != nil {
			return fmt.Errorf("--plots: %w", err)
		}
	}
	return nil
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
// rows (maxima over ranks). freeMemory returns memory to the OS between
// lengths (each process of a multi-process job).
func measureDenseSizes(ctx context.Context, c comm.Comm, sizes []int, cfg benchDenseConfig, freeMemory bool) ([]benchDenseRow, error) {
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
		for a, alg := range cfg.algs {
			d, err := allreduce.NewDense[float64](ctx, cc, alg, cfg.opts)
			if err != nil {
				return nil, err
			}
			ds[a] = d
			// A warm-up call grows the buffers; its result is checked.
			fill()
			if err := d.Allreduce(ctx, vec, allreduce.Sum[float64]); err != nil {
				return nil, err
			}
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
		row := benchDenseRow{ranks: p, n: n}
		for _, ts := range times {
			slices.Sort(ts)
			if cfg.stat == "min" {
				row.seconds = append(row.seconds, ts[0])
			} else {
				row.seconds = append(row.seconds, ts[len(ts)/2])
			}
		}
		rows = append(rows, row)
		ds, vec = nil, nil
		if freeMemory {
			debug.FreeOSMemory()
		}
	}
	return rows, nil
}

// writeDenseTable prints the rows as a Markdown table, times in
// milliseconds.
func writeDenseTable(w io.Writer, what string, cfg benchDenseConfig, rows []benchDenseRow) error {
	network := "no network model"
	if cfg.bandwidth > 0 {
		network = fmt.Sprintf("modelled link %s B/s per rank, latency %v", formatRate(cfg.bandwidth), cfg.latency)
	}
	fmt.Fprintf(w, "Dense allreduce (float64 sum) over %s, %s; workers %d, pieces %d\n", what, network, cfg.opts.Workers, cfg.opts.Pieces)
	fmt.Fprintf(w, "time of one allreduce in ms: the slowest rank, %s of %d calls (the algorithms' calls alternate)\n\n", cfg.stat, cfg.repeat)
	tree, chunked := slices.Index(cfg.algs, allreduce.AlgTree), slices.Index(cfg.algs, allreduce.AlgChunked)
	header := "| ranks | elements |"
	rule := "|---:|---:|"
	for _, a := range cfg.algs {
		header += " " + string(a) + " |"
		rule += "---:|"
	}
	if tree >= 0 && chunked >= 0 {
		header += " tree ÷ chunked |"
		rule += "---:|"
	}
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, rule)
	for _, r := range rows {
		line := fmt.Sprintf("| %d | %s |", r.ranks, formatCount(r.n))
		if r.skipped != "" {
			fmt.Fprintf(w, "%s %s |\n", line, r.skipped)
			continue
		}
		for _, s := range r.seconds {
			line += fmt.Sprintf(" %.3g |", s*1e3)
		}
		if tree >= 0 && chunked >= 0 {
			line += fmt.Sprintf(" %.2f |", r.seconds[tree]/r.seconds[chunked])
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
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
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a positive rate (bytes/s, e.g. 1.25G)", s)
	}
	return v * mult, nil
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
