package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
)

// newBenchMemoryCommand is `graphrun bench memory`: the peak resident memory
// of whole runs, each in a process of its own (GNU time's "maximum resident
// set size", read from getrusage), per input tuple or arc, beside the
// memory models' estimates (graph500.EstimateMemory, pagerank.EstimateMemory).
func newBenchMemoryCommand(g *globalFlags) *cobra.Command {
	var f matrixFlags[bench.MemorySpec]
	cmd := newMatrixCommand("memory", "Peak memory of bfs and pagerank runs per tuple and arc, against the model",
		func(cmd *cobra.Command) error {
			f.spec.Ranks = rankSweep(1, g.ranksOr(cmd, 4))
			return runBenchMemory(cmd, &f)
		})
	cmd.Long = `Runs each configuration in a process of its own and records its peak resident set size:
"graphrun bfs --scale S --ranks P --roots R" (validated, 1D and, with the bfs-2d kind, 2D)
and "graphrun pagerank --kron S --undirected --iterations 5 --ranks P", for P = 1, 2, 4, …
up to --ranks (default 4). Prints bytes per input tuple (bfs) or per arc (pagerank), the
memory model's estimate and its ratio to the measurement, as a Markdown table.`
	cmd.Example = `  graphrun bench memory --scales 16-18 --ranks 2 --kinds bfs
  graphrun bench memory --scales 18 --kinds bfs,pagerank --dir runs/memory`
	jobFlags(cmd, groupRanks)
	fl := cmd.Flags()
	fl.StringVar(&f.spec.Scales, "scales", "18-24", `scales, a range "A-B" or a list "18,20,22"`)
	fl.StringVar(&f.spec.Kinds, "kinds", "bfs,bfs-2d,pagerank", "runs to measure: bfs, bfs-2d, pagerank")
	fl.IntVar(&f.spec.Roots, "roots", 4, "bfs search keys per run (each validated)")
	registerBenchOutput(fl, &f.out)
	return cmd
}

func runBenchMemory(cmd *cobra.Command, f *matrixFlags[bench.MemorySpec]) error {
	m, err := f.spec.Parse()
	if err != nil {
		return usage(err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench memory: %w", err)
	}
	s := m.Spec
	ranks := slices.Max(m.RankCounts)
	key := fmt.Sprintf("memory scales=%s ranks=%d kinds=%s roots=%d", s.Scales, ranks, s.Kinds, s.Roots)
	command := fmt.Sprintf("graphrun bench memory --scales %s --ranks %d --kinds %s --roots %d", s.Scales, ranks, s.Kinds, s.Roots)
	if _, err := startBench(cmd, &f.out, "memory", key, command); err != nil {
		return err
	}
	return m.Run(cmd.Context(), memoryCommand(self), &f.out, cmd.OutOrStdout(), cmd.ErrOrStderr())
}

// memoryCommand runs a configuration of bench memory as a graphrun process
// of the binary self: "bfs --scale S --ranks P --roots R" (with
// --partition 2d for bfs-2d) or "pagerank --kron S --undirected
// --iterations 5 --ranks P", its JSON written with --json.
func memoryCommand(self string) bench.MemoryCommand {
	return func(ctx context.Context, kind string, scale, ranks, roots int, json string) *exec.Cmd {
		var args []string
		switch kind {
		case bench.MemoryBFS, bench.MemoryBFS2D:
			args = []string{"bfs", "--scale", fmt.Sprint(scale), "--ranks", fmt.Sprint(ranks), "--roots", fmt.Sprint(roots)}
			if kind == bench.MemoryBFS2D {
				args = append(args, "--partition", "2d")
			}
		case bench.MemoryPageRank:
			args = []string{"pagerank", "--kron", fmt.Sprint(scale), "--undirected", "--iterations", "5", "--ranks", fmt.Sprint(ranks)}
		}
		args = append(args, "--json", json)
		return exec.CommandContext(ctx, self, args...)
	}
}
