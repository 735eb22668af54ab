package main

import (
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
	m := bench.BFSMatrix{Name: matrix, Graph: params, Ranks: f.ranks, Roots: f.roots}
	if err := m.Check(); err != nil {
		return usage(err)
	}
	if cmd.Flags().Changed("threads") { // else 0: CPUs / ranks in each run
		if m.Threads, err = threadsOf(cmd, f.threads, 1); err != nil {
			return err
		}
	}
	for _, name := range []string{"edgefactor", "seed", "threads"} {
		if fl := cmd.Flags().Lookup(name); fl.Changed {
			m.Given = append(m.Given, bench.Setting{Name: name, Value: fl.Value.String()})
		}
	}
	key, command := m.Key()
	outs, err := startBench(cmd, &f.out, matrix, key, command)
	if err != nil {
		return err
	}
	return m.Run(cmd.Context(), &f.out, textOut(cmd, outs), cmd.ErrOrStderr())
}
