package main

import (
	"github.com/spf13/cobra"
)

// newSSSPCommand is graphrun sssp: the Graph500 run of the reference's
// bfs_sssp binary, kernel 3's shortest path searches after the BFS
// searches on the same graph and keys, its block holding both kernels'
// lines. It is bfs's command with kernel 3 on, on a generated graph only.
func newSSSPCommand(g *globalFlags) *cobra.Command {
	f := &bfsFlags{globalFlags: g}
	f.s.SSSP = true
	cmd := &cobra.Command{
		Use:   "sssp",
		Short: "Run the Graph500 BFS and SSSP benchmark (kernels 2 and 3) on a Kronecker graph",
		Example: `  graphrun sssp -s 20                       # scale 20: 64 BFS, then 64 SSSP searches, validated
  graphrun sssp -s 22 --ranks 4 -j run.json # four in-process ranks, both kernels in the JSON
  graphrun sssp -s 18 --delta 0.05          # a bucket width of your own`,
		Long: `Generates a Graph500 Kronecker graph with edge weights (uniform in [0, 1)),
builds it (kernel 1), runs validated breadth-first searches from 64 sampled
keys (kernel 2), then validated single-source shortest path searches from
the same keys (kernel 3, Meyer and Sanders's delta-stepping), and prints the
Graph500 statistics block with the reference's sssp lines. --delta sets the
bucket width (default: the heaviest weight over the average degree). The
searches run on the 1D partition; bfs's flags apply to its searches.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runBFS(cmd, f, args) },
	}
	f.register(cmd)
	cmd.Flags().Float64Var(&f.s.Delta, "delta", 0, "bucket width of the shortest path searches (0: from the graph)")
	// An edge list's weights are not read yet and the searches are 1D:
	// the file flags, the partition and the BFS tree stay off the help.
	hideFlags(cmd, "directed", "format", "out", "partition")
	return cmd
}
