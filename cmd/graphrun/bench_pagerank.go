package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
)

// newBenchPageRankCommand is `graphrun bench pagerank-allreduce`: PageRank
// with the direct, binary and kylix (auto degrees) allreduce on the same
// graph and ranks — Kylix's comparison, messages and bytes per iteration
// and the per-layer volume — and kylix on the networks of --degrees.
func newBenchPageRankCommand(g *globalFlags) *cobra.Command {
	var f matrixFlags[bench.PageRankAllreduceSpec]
	cmd := newMatrixCommand("pagerank-allreduce", "PageRank with the direct, binary and kylix allreduce: messages, bytes",
		func(cmd *cobra.Command) error { f.spec.Ranks = g.ranksOr(cmd, 64); return runBenchPageRank(cmd, &f) })
	cmd.Long = `Runs PageRank with the direct, binary and kylix (auto degrees) allreduce on the same graph
and --ranks in-process ranks (default 64), and kylix on the networks of --degrees: messages
and bytes per iteration and the per-layer volume (Kylix's comparison). Prints the Markdown
table; --dir keeps the JSON of every run.`
	cmd.Example = `  graphrun bench pagerank-allreduce --scale 14 --ranks 16 --degrees 4x4,8x2
  graphrun bench pagerank-allreduce --input testdata/soc-Slashdot0902.txt.gz --ranks 8`
	jobFlags(cmd, groupRanks)
	fl := cmd.Flags()
	fl.IntVarP(&f.spec.Scale, "scale", "s", 16, "Kronecker scale of the graph (pagerank --kron), unless --input is given")
	fl.StringVar(&f.spec.Input, "input", "", "an edge-list file to rank instead of a Kronecker graph")
	fl.IntVar(&f.spec.Iterations, "iterations", 5, "PageRank iterations per run")
	fl.StringVar(&f.spec.Degrees, "degrees", "", `also run kylix on these networks, e.g. "8x8,4x4x4" (each product = ranks)`)
	registerBenchOutput(fl, &f.out)
	return cmd
}

func runBenchPageRank(cmd *cobra.Command, f *matrixFlags[bench.PageRankAllreduceSpec]) error {
	m, err := f.spec.Parse()
	if err != nil {
		return usage(err)
	}
	key, command := pageRankAllreduceKey(m)
	outs, err := startBench(cmd, &f.out, "pagerank-allreduce", key, command, f.spec.Input)
	if err != nil {
		return err
	}
	// Each run is graphrun pagerank in this process.
	return m.Run(inProcessPageRank(cmd.Context(), "pagerank-allreduce"), &f.out, textOut(cmd, outs), cmd.ErrOrStderr())
}

// newBenchPageRankSpeedCommand is `graphrun bench pagerank`: PageRank's
// time per iteration on real edge lists (directed, as in the files) and on
// symmetric Kronecker graphs (pagerank --kron S --undirected), on each
// in-process rank count, with the default threads (CPUs / ranks).
func newBenchPageRankSpeedCommand(g *globalFlags) *cobra.Command {
	var f matrixFlags[bench.PageRankSpeedSpec]
	cmd := newMatrixCommand("pagerank", "PageRank's time per iteration on edge lists and Kronecker graphs, 1, 2, … ranks",
		func(cmd *cobra.Command) error {
			f.spec.Ranks = rankSweep(1, g.ranksOr(cmd, 2))
			return runBenchPageRankSpeed(cmd, &f)
		})
	cmd.Long = `Times PageRank per iteration on edge lists (directed, as in the files) and on symmetric
Kronecker graphs (pagerank --kron S --undirected), on 1, 2, 4, … up to --ranks in-process
ranks (default 2), each run a process of its own with the default threads. Prints the
Markdown table; --dir keeps the JSON of every run.`
	cmd.Example = `  graphrun bench pagerank --inputs testdata/soc-Slashdot0902.txt.gz --scales "" --ranks 2
  graphrun bench pagerank --scales 16-18 --ranks 4 --iterations 10`
	jobFlags(cmd, groupRanks)
	fl := cmd.Flags()
	fl.StringVar(&f.spec.Inputs, "inputs", "", "edge-list files, comma-separated, ranked as directed graphs")
	fl.StringVar(&f.spec.Scales, "scales", "20,22", `Kronecker scales ranked as symmetric graphs, "20,22" or "A-B"; "" for none`)
	fl.IntVar(&f.spec.Iterations, "iterations", 20, "PageRank iterations per run (pagerank --iterations)")
	registerBenchOutput(fl, &f.out)
	return cmd
}

func runBenchPageRankSpeed(cmd *cobra.Command, f *matrixFlags[bench.PageRankSpeedSpec]) error {
	m, err := f.spec.Parse()
	if err != nil {
		return usage(err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench pagerank: %w", err)
	}
	key, command := pageRankSpeedKey(m)
	outs, err := startBench(cmd, &f.out, "pagerank", key, command, m.Inputs...)
	if err != nil {
		return err
	}
	// A child process per run, so that its peak memory is its own.
	return m.Run(childPageRank(cmd.Context(), self, "pagerank"), &f.out, textOut(cmd, outs), cmd.ErrOrStderr())
}
