package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/results"
)

type benchPageRankFlags struct {
	scale, ranks, iterations int
	input                    string
	degrees                  string
	out                      benchOutput
}

// newBenchPageRankCommand is `graphrun bench pagerank-allreduce`: PageRank
// with the direct, binary and kylix (auto degrees) allreduce on the same
// graph and ranks — paper 000's comparison, messages and bytes per iteration
// and the per-layer volume — and kylix on the networks of --degrees.
func newBenchPageRankCommand() *cobra.Command {
	var f benchPageRankFlags
	cmd := &cobra.Command{
		Use:   "pagerank-allreduce",
		Short: "PageRank with the direct, binary and kylix allreduce: messages, bytes and per-layer volume per iteration",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runBenchPageRank(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.scale, "scale", 16, "Kronecker scale of the graph (pagerank --kron), unless --input is given")
	fl.StringVar(&f.input, "input", "", "an edge-list file to rank instead of a Kronecker graph")
	fl.IntVar(&f.ranks, "ranks", 64, "in-process ranks")
	fl.IntVar(&f.iterations, "iterations", 5, "PageRank iterations per run")
	fl.StringVar(&f.degrees, "degrees", "", `also run kylix on these networks, comma-separated (e.g. "8x8,4x4x4,16x4"; each product = ranks)`)
	f.out.register(fl)
	return cmd
}

func runBenchPageRank(cmd *cobra.Command, f *benchPageRankFlags) error {
	if err := checkRanks(f.ranks); err != nil {
		return err
	}
	switch {
	case f.iterations < 1:
		return flagError("iterations", "%d is less than 1", f.iterations)
	case f.input == "" && (f.scale < 1 || f.scale > 32):
		return flagError("scale", "%d is outside 1..32", f.scale)
	}
	if f.input != "" {
		if _, err := os.Stat(f.input); err != nil {
			return flagError("input", "%v", err)
		}
	}
	var degrees []string
	if f.degrees != "" {
		for _, d := range strings.Split(f.degrees, ",") {
			d = strings.TrimSpace(d)
			deg, err := allreduce.ParseDegrees(d, f.ranks)
			if err != nil {
				return flagError("degrees", "%v", err)
			}
			if deg == nil {
				return flagError("degrees", "%q: the matrix always runs kylix with auto degrees; list explicit networks such as 8x8", d)
			}
			degrees = append(degrees, allreduce.FormatDegrees(deg))
		}
	}
	graphFlag, graphKey := fmt.Sprintf("--scale %d", f.scale), fmt.Sprintf("scale=%d", f.scale)
	if f.input != "" {
		graphFlag, graphKey = "--input "+filepath.Base(f.input), "input="+filepath.Base(f.input)
	}
	key := fmt.Sprintf("pagerank-allreduce %s ranks=%d iterations=%d", graphKey, f.ranks, f.iterations)
	command := fmt.Sprintf("graphrun bench pagerank-allreduce %s --ranks %d --iterations %d", graphFlag, f.ranks, f.iterations)
	if len(degrees) > 0 {
		key += " degrees=" + strings.Join(degrees, ",")
		command += " --degrees " + strings.Join(degrees, ",")
	}
	outs := outputsOf(cmd)
	outs.Input(f.input)
	if err := f.out.declare(outs); err != nil {
		return err
	}
	if err := outs.Check(); err != nil {
		return err
	}
	f.out.start("pagerank-allreduce", key, command)
	graphArgs, graphName := []string{"--kron", fmt.Sprint(f.scale)}, fmt.Sprintf("Kronecker scale %d", f.scale)
	if f.input != "" {
		graphArgs, graphName = []string{f.input}, filepath.Base(f.input)
	}
	stderr := cmd.ErrOrStderr()
	// Each run: the allreduce and, for kylix on a given network, its degrees.
	type method struct{ allreduce, degrees string }
	methods := []method{{"direct", ""}, {"binary", ""}, {"kylix", ""}}
	for _, d := range degrees {
		methods = append(methods, method{"kylix", d})
	}
	bar := newMatrixProgress(stderr, "pagerank-allreduce", len(methods))
	var runs []*results.PageRankRun
	var files []string
	for i, m := range methods {
		name := m.allreduce
		if m.degrees != "" {
			name += "-" + m.degrees
		}
		file := fmt.Sprintf("pagerank-allreduce-p%d-%02d-%s.json", f.ranks, i+1, name)
		args := append([]string{"pagerank"}, graphArgs...)
		args = append(args, "--ranks", fmt.Sprint(f.ranks), "--allreduce", m.allreduce, "--iterations", fmt.Sprint(f.iterations), "--json", output.Stdout)
		if m.degrees != "" {
			args = append(args, "--degrees", m.degrees)
		}
		var data, errOut bytes.Buffer
		if code := runContext(cmd.Context(), args, &data, &errOut); code != 0 {
			if err := cmd.Context().Err(); err != nil {
				return err
			}
			return fmt.Errorf("bench pagerank-allreduce: graphrun %s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(errOut.String()))
		}
		r, err := results.ReadPageRankJSON(bytes.NewReader(data.Bytes()))
		if err != nil {
			return fmt.Errorf("bench pagerank-allreduce: %s: %w", file, err)
		}
		if _, err := f.out.dirOut.WriteFile(file, func(w io.Writer) error { _, err := w.Write(data.Bytes()); return err }); err != nil {
			return fmt.Errorf("bench pagerank-allreduce: %w", err)
		}
		runs, files = append(runs, r), append(files, file)
		it := float64(max(1, r.Iterations))
		bar.step(fmt.Sprintf("%s: %.0f messages, %.2f MB per iteration", r.Allreduce, float64(r.CommMessages)/it, float64(r.CommBytes)/it/1e6))
	}
	bar.finish()
	f.out.finish()
	table := pageRankMatrixTable(runs)
	fmt.Fprint(textOut(cmd, outs), table)
	summary := struct {
		benchMeta
		Graph string                 `json:"graph"`
		Ranks int                    `json:"ranks"`
		Files []string               `json:"files"`
		Runs  []*results.PageRankRun `json:"runs"`
	}{f.out.meta(), graphName, f.ranks, files, runs}
	if err := f.out.writeSummary(summary); err != nil {
		return err
	}
	return f.out.regenerate(stderr, graphName+", in-process ranks", "Per iteration, all ranks:", table)
}

// pageRankMatrixTable renders the runs per iteration: messages (and their
// ratio to the first run's), bytes, per-layer bytes, time.
func pageRankMatrixTable(runs []*results.PageRankRun) string {
	var b strings.Builder
	b.WriteString("| allreduce | messages | × first | bytes | × first | per-layer bytes (layer 1 → last) | compute s | communication s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	var baseMsgs, baseBytes float64
	ratio := func(v, base float64) string {
		if base > 0 {
			return fmt.Sprintf("%.3f", v/base)
		}
		return "—"
	}
	for i, r := range runs {
		it := float64(max(1, r.Iterations))
		msgs, bytes := float64(r.CommMessages)/it, float64(r.CommBytes)/it
		if i == 0 {
			baseMsgs, baseBytes = msgs, bytes
		}
		var layers []string
		for _, l := range r.LayerVolumes() {
			layers = append(layers, fmt.Sprintf("%.2f MB", l.Bytes/1e6))
		}
		fmt.Fprintf(&b, "| %s | %.0f | %s | %.2f MB | %s | %s | %.4f | %.4f |\n", r.Allreduce, msgs, ratio(msgs, baseMsgs), bytes/1e6, ratio(bytes, baseBytes),
			strings.Join(layers, ", "), r.TimePerIteration.Compute, r.TimePerIteration.Communication)
	}
	return b.String()
}

// writeIndentedJSON writes v as indented JSON (a matrix's summary.json).
func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type benchPageRankSpeedFlags struct {
	inputs, scales, ranks string
	iterations            int
	out                   benchOutput
}

// newBenchPageRankSpeedCommand is `graphrun bench pagerank`: PageRank's
// time per iteration on real edge lists (directed, as in the files) and on
// symmetric Kronecker graphs (pagerank --kron S --undirected), on each
// in-process rank count, with the default threads (CPUs / ranks).
func newBenchPageRankSpeedCommand() *cobra.Command {
	var f benchPageRankSpeedFlags
	cmd := &cobra.Command{
		Use:   "pagerank",
		Short: "PageRank's time per iteration on edge lists and symmetric Kronecker graphs, on 1, 2, … in-process ranks",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runBenchPageRankSpeed(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.inputs, "inputs", "", "edge-list files, comma-separated, ranked as directed graphs")
	fl.StringVar(&f.scales, "scales", "20,22", `Kronecker scales ranked as symmetric graphs (--undirected), a list "20,22" or a range "A-B"; "" for none`)
	fl.StringVar(&f.ranks, "ranks", "1,2", "in-process rank counts, comma-separated")
	fl.IntVar(&f.iterations, "iterations", 20, "PageRank iterations per run (pagerank --iterations)")
	f.out.register(fl)
	return cmd
}

// speedGraph is one graph of the matrix: its pagerank arguments and name.
type speedGraph struct {
	args       []string
	name, file string
}

func runBenchPageRankSpeed(cmd *cobra.Command, f *benchPageRankSpeedFlags) error {
	var graphs []speedGraph
	var inputs []string
	if strings.TrimSpace(f.inputs) != "" {
		for _, in := range strings.Split(f.inputs, ",") {
			in = strings.TrimSpace(in)
			if _, err := os.Stat(in); err != nil {
				return flagError("inputs", "%v", err)
			}
			inputs = append(inputs, in)
			base := filepath.Base(in)
			graphs = append(graphs, speedGraph{[]string{in}, base, strings.NewReplacer(".", "-").Replace(base)})
		}
	}
	var scales []int
	if strings.TrimSpace(f.scales) != "" {
		var err error
		if scales, err = parseIntList(f.scales); err != nil {
			return flagError("scales", "%v", err)
		}
	}
	for _, s := range scales {
		if s < 1 || s > 32 {
			return flagError("scales", "%d is outside 1..32", s)
		}
		graphs = append(graphs, speedGraph{[]string{"--kron", fmt.Sprint(s), "--undirected"}, fmt.Sprintf("Kronecker %d, symmetric", s), fmt.Sprintf("kron%d", s)})
	}
	if len(graphs) == 0 {
		return flagError("inputs", "no graph: give --inputs or --scales")
	}
	ranks, err := parseIntList(f.ranks)
	if err != nil {
		return flagError("ranks", "%v", err)
	}
	for _, p := range ranks {
		if err := checkRanks(p); err != nil {
			return err
		}
	}
	if f.iterations < 1 {
		return flagError("iterations", "%d is less than 1", f.iterations)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench pagerank: %w", err)
	}
	var names []string
	for _, in := range inputs {
		names = append(names, filepath.Base(in))
	}
	key := fmt.Sprintf("pagerank inputs=%s scales=%s ranks=%s iterations=%d", strings.Join(names, ","), f.scales, f.ranks, f.iterations)
	command := fmt.Sprintf("graphrun bench pagerank --inputs %s --scales %s --ranks %s --iterations %d", strings.Join(inputs, ","), f.scales, f.ranks, f.iterations)
	outs := outputsOf(cmd)
	for _, in := range inputs {
		outs.Input(in)
	}
	if err := f.out.declare(outs); err != nil {
		return err
	}
	if err := outs.Check(); err != nil {
		return err
	}
	f.out.start("pagerank", key, command)
	stderr := cmd.ErrOrStderr()
	bar := newMatrixProgress(stderr, "pagerank", len(graphs)*len(ranks))
	var rows []speedRow
	var files []string
	for _, g := range graphs {
		for _, p := range ranks {
			file := fmt.Sprintf("pagerank-%s-p%d.json", g.file, p)
			args := append([]string{"pagerank"}, g.args...)
			args = append(args, "--ranks", fmt.Sprint(p), "--iterations", fmt.Sprint(f.iterations), "--top", "0", "--json", output.Stdout)
			// A child process per run, so that its peak memory is its own.
			var data, errOut bytes.Buffer
			c := exec.CommandContext(cmd.Context(), self, args...)
			c.Stdout, c.Stderr = &data, &errOut
			if err := c.Run(); err != nil {
				if err := cmd.Context().Err(); err != nil {
					return err
				}
				return fmt.Errorf("bench pagerank: graphrun %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
			}
			r, err := results.ReadPageRankJSON(bytes.NewReader(data.Bytes()))
			if err != nil {
				return fmt.Errorf("bench pagerank: %s: %w", file, err)
			}
			if _, err := f.out.dirOut.WriteFile(file, func(w io.Writer) error { _, err := w.Write(data.Bytes()); return err }); err != nil {
				return fmt.Errorf("bench pagerank: %w", err)
			}
			rows, files = append(rows, speedRow{Graph: g.name, Run: r}), append(files, file)
			bar.step(fmt.Sprintf("%s, %d ranks: %.3f ms per iteration", g.name, p, r.IterationTime.Median*1e3))
		}
	}
	bar.finish()
	f.out.finish()
	table := pageRankSpeedTable(rows)
	fmt.Fprint(textOut(cmd, outs), table)
	summary := struct {
		benchMeta
		Iterations int        `json:"iterations"`
		Files      []string   `json:"files"`
		Runs       []speedRow `json:"runs"`
	}{f.out.meta(), f.iterations, files, rows}
	if err := f.out.writeSummary(summary); err != nil {
		return err
	}
	return f.out.regenerate(stderr, "in-process ranks, default threads (CPUs / ranks), one process per run", "Per iteration, the slowest rank's time; the peak is the run's process's:", table)
}

// speedRow is one run of the pagerank matrix.
type speedRow struct {
	Graph string               `json:"graph"`
	Run   *results.PageRankRun `json:"run"`
}

// pageRankSpeedTable renders the pagerank matrix: per graph and rank
// count, the median and fastest iteration (the slowest rank's), its ratio
// to the graph's first row, the set-up and the peak memory.
func pageRankSpeedTable(rows []speedRow) string {
	var b strings.Builder
	b.WriteString("| graph | edges | ranks × threads | iteration, median | fastest | × first row | set-up | peak memory |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	var first float64
	for i, row := range rows {
		r := row.Run
		med := r.IterationTime.Median
		if i == 0 || row.Graph != rows[i-1].Graph {
			first = med
		}
		ratio := "—"
		if first > 0 {
			ratio = fmt.Sprintf("%.2f", med/first)
		}
		fmt.Fprintf(&b, "| %s | %d | %d × %d | %.3f ms | %.3f ms | %s | %.2f s | %.0f MB |\n", row.Graph, r.Edges, r.NumRanks, r.Threads,
			med*1e3, r.IterationTime.Min*1e3, ratio, r.Setup.Total, float64(r.PeakMemoryBytes)/1e6)
	}
	return b.String()
}
