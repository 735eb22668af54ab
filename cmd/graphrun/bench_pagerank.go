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
func newBenchPageRankCommand() *cobra.Command {
	var f matrixFlags[bench.PageRankAllreduceSpec]
	cmd := newMatrixCommand("pagerank-allreduce", "PageRank with the direct, binary and kylix allreduce: messages, bytes and per-layer volume per iteration",
		func(cmd *cobra.Command) error { return runBenchPageRank(cmd, &f) })
	fl := cmd.Flags()
	fl.IntVar(&f.spec.Scale, "scale", 16, "Kronecker scale of the graph (pagerank --kron), unless --input is given")
	fl.StringVar(&f.spec.Input, "input", "", "an edge-list file to rank instead of a Kronecker graph")
	fl.IntVar(&f.spec.Ranks, "ranks", 64, "in-process ranks")
	fl.IntVar(&f.spec.Iterations, "iterations", 5, "PageRank iterations per run")
	fl.StringVar(&f.spec.Degrees, "degrees", "", `also run kylix on these networks, comma-separated (e.g. "8x8,4x4x4,16x4"; each product = ranks)`)
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
func newBenchPageRankSpeedCommand() *cobra.Command {
	var f matrixFlags[bench.PageRankSpeedSpec]
	cmd := newMatrixCommand("pagerank", "PageRank's time per iteration on edge lists and symmetric Kronecker graphs, on 1, 2, … in-process ranks",
		func(cmd *cobra.Command) error { return runBenchPageRankSpeed(cmd, &f) })
	fl := cmd.Flags()
	fl.StringVar(&f.spec.Inputs, "inputs", "", "edge-list files, comma-separated, ranked as directed graphs")
	fl.StringVar(&f.spec.Scales, "scales", "20,22", `Kronecker scales ranked as symmetric graphs (--undirected), a list "20,22" or a range "A-B"; "" for none`)
	fl.StringVar(&f.spec.Ranks, "ranks", "1,2", "in-process rank counts, comma-separated")
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
