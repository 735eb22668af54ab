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
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/pagerank"
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
	matrix := pagerank.AllreduceMatrix(graphArgs, f.ranks, f.iterations, degrees)
	bar := progress.NewMatrix(stderr, "pagerank-allreduce", len(matrix))
	var files []string
	runs, err := pagerank.RunMatrix("pagerank-allreduce", matrix, f.out.dirOut, func(args []string) ([]byte, error) {
		var data, errOut bytes.Buffer
		if code := runContext(cmd.Context(), args, &data, &errOut); code != 0 {
			if err := cmd.Context().Err(); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("bench pagerank-allreduce: graphrun %s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(errOut.String()))
		}
		return data.Bytes(), nil
	}, func(br pagerank.BenchRun, r *results.PageRankRun) {
		files = append(files, br.File)
		it := float64(max(1, r.Iterations))
		bar.Step(fmt.Sprintf("%s: %.0f messages, %.2f MB per iteration", r.Allreduce, float64(r.CommMessages)/it, float64(r.CommBytes)/it/1e6))
	})
	if err != nil {
		return err
	}
	bar.Finish()
	f.out.finish()
	table := pagerank.AllreduceTable(runs)
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

func runBenchPageRankSpeed(cmd *cobra.Command, f *benchPageRankSpeedFlags) error {
	var inputs []string
	if strings.TrimSpace(f.inputs) != "" {
		for _, in := range strings.Split(f.inputs, ",") {
			in = strings.TrimSpace(in)
			if _, err := os.Stat(in); err != nil {
				return flagError("inputs", "%v", err)
			}
			inputs = append(inputs, in)
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
	}
	graphs := pagerank.SpeedGraphs(inputs, scales)
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
	matrix := pagerank.SpeedMatrix(graphs, ranks, f.iterations)
	bar := progress.NewMatrix(stderr, "pagerank", len(matrix))
	var rows []pagerank.SpeedRow
	var files []string
	_, err = pagerank.RunMatrix("pagerank", matrix, f.out.dirOut, func(args []string) ([]byte, error) {
		// A child process per run, so that its peak memory is its own.
		var data, errOut bytes.Buffer
		c := exec.CommandContext(cmd.Context(), self, args...)
		c.Stdout, c.Stderr = &data, &errOut
		if err := c.Run(); err != nil {
			if err := cmd.Context().Err(); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("bench pagerank: graphrun %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
		}
		return data.Bytes(), nil
	}, func(br pagerank.BenchRun, r *results.PageRankRun) {
		rows, files = append(rows, pagerank.SpeedRow{Graph: br.Graph, Run: r}), append(files, br.File)
		bar.Step(fmt.Sprintf("%s, %d ranks: %.3f ms per iteration", br.Graph, br.Ranks, r.IterationTime.Median*1e3))
	})
	if err != nil {
		return err
	}
	bar.Finish()
	f.out.finish()
	table := pagerank.SpeedTable(rows)
	fmt.Fprint(textOut(cmd, outs), table)
	summary := struct {
		benchMeta
		Iterations int                 `json:"iterations"`
		Files      []string            `json:"files"`
		Runs       []pagerank.SpeedRow `json:"runs"`
	}{f.out.meta(), f.iterations, files, rows}
	if err := f.out.writeSummary(summary); err != nil {
		return err
	}
	return f.out.regenerate(stderr, "in-process ranks, default threads (CPUs / ranks), one process per run", "Per iteration, the slowest rank's time; the peak is the run's process's:", table)
}
