package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/spmv"
)

type benchBFSFlags struct {
	graphFlags
	ranks, roots int
	out          benchOutput
}

func newBenchBFSCommand(name, short string) *cobra.Command {
	var f benchBFSFlags
	cmd := &cobra.Command{
		Use:   name,
		Short: short,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runBenchBFS(cmd, name, &f) },
	}
	f.graphFlags.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&f.ranks, "ranks", 16, "in-process ranks (bfs-scaling: the largest count)")
	fl.IntVar(&f.roots, "roots", 8, "search keys per run (validation is skipped; the test suite validates every mode)")
	f.out.register(fl)
	return cmd
}

// benchSummary is summary.json of a BFS matrix run.
type benchSummary struct {
	benchMeta
	Scale int               `json:"SCALE"`
	Ranks int               `json:"ranks"`
	Roots int               `json:"roots"`
	Runs  []benchSummaryRun `json:"runs"`
}

type benchSummaryRun struct {
	Label            string  `json:"label"`
	File             string  `json:"file"`
	Ranks            int     `json:"ranks"`
	Exchange         string  `json:"exchange"`
	Codec            string  `json:"codec"`
	Direction        string  `json:"direction"`
	CommBytes        int64   `json:"comm_bytes"`
	CommMessages     int64   `json:"comm_messages"`
	HarmonicMeanTEPS float64 `json:"harmonic_mean_TEPS"`
}

func runBenchBFS(cmd *cobra.Command, matrix string, f *benchBFSFlags) error {
	params, err := f.params()
	if err != nil {
		return err
	}
	if err := checkRanks(f.ranks); err != nil {
		return err
	}
	if f.roots < 1 {
		return flagError("roots", "%d is less than 1", f.roots)
	}
	entries, err := bench.CodecsMatrix()
	if err != nil {
		return err
	}
	if matrix == "bfs-scaling" {
		entries = bench.ScalingMatrix(f.ranks)
	}
	// The key and the heading name the parameters that change the table;
	// the graph's edgefactor, seed and threads only when they were given.
	key := fmt.Sprintf("%s scale=%d ranks=%d roots=%d", matrix, params.Scale, f.ranks, f.roots)
	command := fmt.Sprintf("graphrun bench %s --scale %d --ranks %d --roots %d", matrix, params.Scale, f.ranks, f.roots)
	for _, name := range []string{"edgefactor", "seed", "threads"} {
		if fl := cmd.Flags().Lookup(name); fl.Changed {
			key += " " + name + "=" + fl.Value.String()
			command += " --" + name + " " + fl.Value.String()
		}
	}
	outs := outputsOf(cmd)
	if err := f.out.declare(outs); err != nil {
		return err
	}
	if err := outs.Check(); err != nil {
		return err
	}
	f.out.start(matrix, key, command)
	stderr := cmd.ErrOrStderr()
	summary := benchSummary{Scale: params.Scale, Ranks: f.ranks, Roots: f.roots}
	var rows []results.BFSMatrixRow
	bar := progress.NewMatrix(stderr, matrix, len(entries))
	for i, e := range entries {
		ranks := f.ranks
		if e.Ranks > 0 {
			ranks = e.Ranks
		}
		exchange, err := spmv.ParseExchange(e.Exchange)
		if err != nil {
			return err
		}
		direction, err := spmv.ParseDirection(e.Direction)
		if err != nil {
			return err
		}
		threads, err := f.threadCount(cmd, ranks)
		if err != nil {
			return err
		}
		run, err := graph500.Run(cmd.Context(), graph500.Config{
			Graph: params, Ranks: ranks, Threads: threads, NumRoots: f.roots, Root: -1,
			Exchange: exchange, Direction: direction, Codec: e.Codec,
		})
		if err != nil {
			return fmt.Errorf("bench %s: %s: %w", matrix, e.Label, err)
		}
		run.Version, run.StartedAt = version, time.Now().UTC()
		file := fmt.Sprintf("%s-s%d-p%d-%02d.json", matrix, params.Scale, ranks, i+1)
		if _, err := f.out.dirOut.WriteFile(file, run.WriteJSON); err != nil {
			return fmt.Errorf("bench %s: %w", matrix, err)
		}
		rows = append(rows, results.BFSMatrixRow{Label: e.Label, File: file, Run: run})
		hm := results.ComputeTEPS(run.Searches).HarmonicMean
		summary.Runs = append(summary.Runs, benchSummaryRun{Label: e.Label, File: file, Ranks: ranks, Exchange: e.Exchange, Codec: e.Codec,
			Direction: e.Direction, CommBytes: run.CommBytes, CommMessages: run.CommMessages, HarmonicMeanTEPS: hm})
		bar.Step(fmt.Sprintf("%s: %.2f MB, %.3g TEPS", e.Label, float64(run.CommBytes)/1e6, hm))
	}
	bar.Finish()
	f.out.finish()
	summary.benchMeta = f.out.meta()
	if err := f.out.writeSummary(summary); err != nil {
		return err
	}
	base := "BIT"
	if matrix == "bfs-scaling" {
		base = rows[0].Label
	}
	table := results.BFSMatrixTable(rows, base)
	fmt.Fprint(textOut(cmd, outs), table)
	return f.out.regenerate(stderr, "in-process ranks, `--no-validate`", "", table)
}
