package bench

// Dense allreduce timings: Li et al. Fig. 4/5 (tree against butterfly)
// and Zhang and Qiu Fig. 10 (the hypercube for unsplittable and chunked
// vectors), one rank count and vector length per row.
//
// References: Zhenyu Li, James A. Davis and Stephen A. Jarvis, "An
// Efficient Task-based All-Reduce for Machine Learning Applications",
// Machine Learning on HPC Environments workshop (MLHPC'17), ACM, 2017;
// Bingjing Zhang and Judy Qiu, "Efficient, Fault-tolerant and Elastic
// Allreduce Framework for Iterative Algorithms", Indiana University
// Bloomington, technical report (undated). dense_call.go and
// dense_matrix.go cite them by these short forms.

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/graphrun/graphrun/allreduce/hypercube"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/internal/units"
	"github.com/graphrun/graphrun/results/report"
)

// DenseConfig is what every rank needs to time the algorithms.
type DenseConfig struct {
	Algorithms []hypercube.Algorithm
	Repeat     int // timed calls per algorithm
	Options    hypercube.Options
	// Tasks, if positive, times shared variables (Li et al. §3): each of
	// Tasks tasks per rank commits a vector, the rank reduces them locally
	// and one allreduce of the algorithm runs across ranks. 0: every rank
	// calls the allreduce on its vector.
	Tasks     int
	Bandwidth float64 // bytes/s of the modelled link (LinkComm), 0 for none
	Latency   time.Duration
	Stat      string // "median" or "min" of the timed calls
}

// DenseRow is one rank count and vector length: the time of each
// algorithm, in the order of the algorithm list.
type DenseRow struct {
	Ranks, N int
	Seconds  []float64   // per algorithm: the Stat of the timed calls
	Samples  [][]float64 // per algorithm: every timed call (slowest rank)
	Bytes    []int64     // per algorithm: bytes all ranks send in one call
	Messages []int64     // per algorithm: messages all ranks send in one call
	Skipped  string      // why the row was not measured, or ""
}

// Value is rank r's element i: small integers, so sums are exact.
func Value(r, i int) float64 { return float64((int64(r)*7919+int64(i)*104729)%2001 - 1000) }

// MeasureDense is one rank's share of the benchmark: every vector length,
// every algorithm. The timed calls of the algorithms alternate (tree,
// butterfly, …, tree, butterfly, …), so that a burst of load from other
// jobs on the machine hits them alike. Every rank returns the same rows
// (maxima over ranks for times, sums for bytes and messages). onRow, if
// not nil, gets each row as soon as it is measured. freeMemory returns
// memory to the OS between lengths (each process of a multi-process job).
func MeasureDense(ctx context.Context, c comm.Comm, sizes []int, cfg DenseConfig, freeMemory bool, onRow func(DenseRow) error) ([]DenseRow, error) {
	var cc comm.Comm = c
	if cfg.Bandwidth > 0 {
		cc = &LinkComm{Comm: c, Bandwidth: cfg.Bandwidth, Latency: cfg.Latency}
	}
	var rows []DenseRow
	for _, n := range sizes {
		row, err := measureDenseSize(ctx, c, cc, n, cfg)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		if onRow != nil {
			if err := onRow(row); err != nil {
				return nil, err
			}
		}
		if freeMemory {
			debug.FreeOSMemory()
		}
	}
	return rows, nil
}

// measureDenseSize measures the row of vectors of n elements; c counts
// the traffic and agrees on the times, cc (c or its modelled link) carries
// the allreduces.
func measureDenseSize(ctx context.Context, c, cc comm.Comm, n int, cfg DenseConfig) (DenseRow, error) {
	calls := make([]denseCall, len(cfg.Algorithms))
	defer func() {
		for _, call := range calls {
			if call != nil {
				call.close()
			}
		}
	}()
	// This rank's bytes and messages in the last warm-up call of each
	// algorithm, then (after the allreduce) all ranks'.
	volume := make([]int64, 2*len(cfg.Algorithms))
	for a, alg := range cfg.Algorithms {
		call, err := newDenseCall(ctx, cc, alg, n, cfg)
		if err != nil {
			return DenseRow{}, err
		}
		calls[a] = call
		// Warm-up calls grow the buffers (the first shared variable also
		// makes the manager's allreduce); the last one's result is checked.
		for w := range call.warmups() {
			before := c.Stats().Total()
			if err := call.run(ctx); err != nil {
				return DenseRow{}, err
			}
			if w == call.warmups()-1 {
				used := c.Stats().Total().Sub(before)
				volume[2*a], volume[2*a+1] = used.BytesSent, used.Messages
			}
		}
		if err := checkDense(call.result(), c.Rank(), c.Size(), cfg.Tasks, alg); err != nil {
			return DenseRow{}, err
		}
	}
	times := make([][]float64, len(cfg.Algorithms))
	for range cfg.Repeat {
		for a, call := range calls {
			call.refill()
			if err := c.Barrier(ctx, "bench.dense.barrier"); err != nil {
				return DenseRow{}, err
			}
			t0 := time.Now()
			if err := call.run(ctx); err != nil {
				return DenseRow{}, err
			}
			v := []float64{time.Since(t0).Seconds()}
			if err := c.AllreduceFloat64(ctx, "bench.dense.time", v, comm.Max); err != nil {
				return DenseRow{}, err
			}
			times[a] = append(times[a], v[0])
		}
	}
	if err := c.AllreduceInt64(ctx, "bench.dense.volume", volume, comm.Sum); err != nil {
		return DenseRow{}, err
	}
	row := DenseRow{Ranks: c.Size(), N: n}
	for a, ts := range times {
		row.Samples = append(row.Samples, slices.Clone(ts))
		row.Bytes = append(row.Bytes, volume[2*a])
		row.Messages = append(row.Messages, volume[2*a+1])
		slices.Sort(ts)
		if cfg.Stat == "min" {
			row.Seconds = append(row.Seconds, ts[0])
		} else {
			row.Seconds = append(row.Seconds, ts[len(ts)/2])
		}
	}
	return row, nil
}

// checkDense checks up to 1000 elements of rank me's result of alg on p
// ranks: the sum of every rank's Value, or with tasks of every task's
// (task t of rank r contributes Value(r·tasks+t, ·)).
func checkDense(vec []float64, me, p, tasks int, alg hypercube.Algorithm) error {
	n := len(vec)
	sources := p * max(1, tasks)
	for j := range min(n, 1000) {
		i := int(int64(j) * int64(n) / int64(min(n, 1000)))
		want := 0.0
		for r := range sources {
			want += Value(r, i)
		}
		if vec[i] != want {
			return fmt.Errorf("bench: %s on %d ranks: rank %d element %d is %v, want %v", alg, p, me, i, vec[i], want)
		}
	}
	return nil
}

// TreeOverChunked is the row's tree time divided by its chunked time, if
// both algorithms ran.
func (cfg DenseConfig) TreeOverChunked(r DenseRow) (float64, bool) {
	tree, chunked := slices.Index(cfg.Algorithms, hypercube.AlgTree), slices.Index(cfg.Algorithms, hypercube.AlgChunked)
	if r.Skipped != "" || tree < 0 || chunked < 0 {
		return 0, false
	}
	return r.Seconds[tree] / r.Seconds[chunked], true
}

// ModelTreeOverChunked is what a link per rank predicts for tree ÷ chunked
// on p ranks once bandwidth dominates: the tree root's link carries
// 2·⌈lg p⌉ vectors (reduce, then broadcast), each chunked rank's 2(p−1)/p.
func ModelTreeOverChunked(p int) float64 {
	if p < 2 {
		return 1
	}
	depth := bits.Len(uint(p - 1)) // ⌈lg p⌉
	return float64(2*depth) / (2 * float64(p-1) / float64(p))
}

// AlgorithmNames are the names of the configuration's algorithms, in
// order.
func (cfg DenseConfig) AlgorithmNames() []string {
	var names []string
	for _, a := range cfg.Algorithms {
		names = append(names, a.String())
	}
	return names
}

// DenseTimings turns the measured rows into chart points, one series per
// algorithm and rank count ("hypercube-chunked, 8 ranks").
func DenseTimings(cfg DenseConfig, rows []DenseRow) []report.AllreduceTiming {
	var out []report.AllreduceTiming
	for _, r := range rows {
		if r.Skipped != "" {
			continue
		}
		for k, a := range cfg.Algorithms {
			out = append(out, report.AllreduceTiming{Method: fmt.Sprintf("%s, %d ranks", a, r.Ranks), Length: int64(r.N), Seconds: r.Seconds[k]})
		}
	}
	return out
}

// WriteDenseTable prints the rows as a Markdown table, times in
// milliseconds, after one line saying what ran.
func WriteDenseTable(w io.Writer, what string, cfg DenseConfig, rows []DenseRow) error {
	network := "no network model"
	if cfg.Bandwidth > 0 {
		network = fmt.Sprintf("modelled link %s B/s per rank, latency %v", units.FormatRate(cfg.Bandwidth), cfg.Latency)
	}
	fmt.Fprintf(w, "Dense allreduce (float64 sum) over %s, %s; workers %d, pieces %d. ", what, network, cfg.Options.Workers, cfg.Options.Pieces)
	fmt.Fprintf(w, "Time of one allreduce in ms: the slowest rank, %s of %d calls (the algorithms' calls alternate).", cfg.Stat, cfg.Repeat)
	if cfg.Tasks > 0 {
		fmt.Fprintf(w, " Shared variables: %d tasks per rank each commit a vector, the rank reduces them and one allreduce runs across ranks; a call lasts until every task has the sum.", cfg.Tasks)
	}
	tree, chunked := slices.Index(cfg.Algorithms, hypercube.AlgTree), slices.Index(cfg.Algorithms, hypercube.AlgChunked)
	ratio := tree >= 0 && chunked >= 0
	model := ratio && cfg.Bandwidth > 0
	if model {
		fmt.Fprint(w, " Link model: tree ÷ chunked once bandwidth dominates, 2·⌈lg p⌉ ÷ (2(p−1)/p).")
	}
	fmt.Fprintf(w, " MB sent per call: all ranks together, exact, in the order %s.\n\n", strings.Join(cfg.AlgorithmNames(), " / "))
	header := "| ranks | elements |"
	rule := "|---:|---:|"
	for _, a := range cfg.Algorithms {
		header += " " + a.String() + " |"
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
		line := fmt.Sprintf("| %d | %s |", r.Ranks, FormatCount(r.N))
		if r.Skipped != "" {
			fmt.Fprintf(w, "%s %s |\n", line, r.Skipped)
			continue
		}
		for _, s := range r.Seconds {
			line += " " + ThreeDigits(s*1e3) + " |"
		}
		if ratio {
			line += fmt.Sprintf(" %.2f |", r.Seconds[tree]/r.Seconds[chunked])
		}
		if model {
			line += fmt.Sprintf(" %.2f |", ModelTreeOverChunked(r.Ranks))
		}
		var mb []string
		for _, b := range r.Bytes {
			mb = append(mb, ThreeDigits(float64(b)/1e6))
		}
		line += " " + strings.Join(mb, " / ") + " |"
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
