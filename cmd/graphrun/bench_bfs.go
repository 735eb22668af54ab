package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
)

type benchBFSFlags struct {
	graphFlags
	*globalFlags
	roots int
	out   bench.Output
}

func newBenchBFSCommand(g *globalFlags, name, short string) *cobra.Command {
	f := benchBFSFlags{globalFlags: g}
	cmd := newMatrixCommand(name, short, func(cmd *cobra.Command) error { return runBenchBFS(cmd, name, &f) })
	cmd.Long = short + ".\nEach run on --ranks in-process ranks (default 16; bfs-scaling: 1, 2, 4, … up to it),\n" +
		"validation skipped. Prints the Markdown table; --dir keeps the JSON of every run."
	cmd.Example = "  graphrun bench " + name + " -s 16 --ranks 4\n  graphrun bench " + name + " -s 18 --roots 4 --dir runs/" + name
	jobFlags(cmd, groupRanks, groupThreads)
	f.graphFlags.register(cmd)
	fl := cmd.Flags()
	fl.IntVarP(&f.roots, "roots", "n", 8, "search keys per run (validation is skipped; the tests validate every mode)")
	registerBenchOutput(fl, &f.out)
	return cmd
}

func runBenchBFS(cmd *cobra.Command, matrix string, f *benchBFSFlags) error {
	params, err := f.params()
	if err != nil {
		return err
	}
	m := bench.BFSMatrix{Name: matrix, Graph: params, Ranks: f.ranksOr(cmd, 16), Roots: f.roots, Caption: "In-process ranks, `--no-validate`."}
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

// bfsMatrixKey returns the key of m (summary.json) and the command line
// that regenerates it: the parameters that change the table, the graph's
// --edgefactor and --seed and --threads only when they were given.
func bfsMatrixKey(cmd *cobra.Command, m *bench.BFSMatrix) (key, command string) {
	key = fmt.Sprintf("%s scale=%d ranks=%d roots=%d", m.Name, m.Graph.Scale, m.Ranks, m.Roots)
	command = fmt.Sprintf("graphrun bench %s --scale %d --ranks %d --roots %d", m.Name, m.Graph.Scale, m.Ranks, m.Roots)
	for _, name := range []string{"edgefactor", "seed", "threads"} {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed { // --threads: once the global flags are merged
			key += " " + name + "=" + fl.Value.String()
			command += " --" + name + " " + fl.Value.String()
		}
	}
	return key, command
}
