package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
)

type benchBFSFlags struct {
	graphFlags
	ranks, roots int
	out          bench.Output
}

func newBenchBFSCommand(name, short string) *cobra.Command {
	var f benchBFSFlags
	cmd := newMatrixCommand(name, short, func(cmd *cobra.Command) error { return runBenchBFS(cmd, name, &f) })
	f.graphFlags.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&f.ranks, "ranks", 16, "in-process ranks (bfs-scaling: the largest count)")
	fl.IntVar(&f.roots, "roots", 8, "search keys per run (validation is skipped; the test suite validates every mode)")
	registerBenchOutput(fl, &f.out)
	return cmd
}

func runBenchBFS(cmd *cobra.Command, matrix string, f *benchBFSFlags) error {
	params, err := f.params()
	if err != nil {
		return err
	}
	m := bench.BFSMatrix{Name: matrix, Graph: params, Ranks: f.ranks, Roots: f.roots, Caption: "in-process ranks, `--no-validate`"}
	if err := m.Check(); err != nil {
		return usage(err)
	}
	if cmd.Flags().Changed("threads") { // else 0: CPUs / ranks in each run
		if m.Threads, err = threadsOf(cmd, f.threads, 1); err != nil {
			return err
		}
	}
	key, command := bfsMatrixKey(cmd, &m)
	outs, err := startBench(cmd, &f.out, matrix, key, command)
	if err != nil {
		return err
	}
	return m.Run(cmd.Context(), &f.out, textOut(cmd, outs), cmd.ErrOrStderr())
}

// bfsMatrixKey returns the marker key of m's table and the command line
// that regenerates it: the parameters that change the table, the graph's
// --edgefactor and --seed and --threads only when they were given.
func bfsMatrixKey(cmd *cobra.Command, m *bench.BFSMatrix) (key, command string) {
	key = fmt.Sprintf("%s scale=%d ranks=%d roots=%d", m.Name, m.Graph.Scale, m.Ranks, m.Roots)
	command = fmt.Sprintf("graphrun bench %s --scale %d --ranks %d --roots %d", m.Name, m.Graph.Scale, m.Ranks, m.Roots)
	for _, name := range []string{"edgefactor", "seed", "threads"} {
		if fl := cmd.Flags().Lookup(name); fl.Changed {
			key += " " + name + "=" + fl.Value.String()
			command += " --" + name + " " + fl.Value.String()
		}
	}
	return key, command
}
