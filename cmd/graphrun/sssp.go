package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/graph/edgelist"
)

// newSSSPCommand is graphrun sssp: the Graph500 run of the reference's
// bfs_sssp binary, kernel 3's shortest path searches after the BFS
// searches on the same graph and keys, its block holding both kernels'
// lines. It is bfs's command with kernel 3 on, on a generated graph or on
// a weighted edge list.
func newSSSPCommand(g *globalFlags) *cobra.Command {
	f := &bfsFlags{globalFlags: g}
	f.s.SSSP = true
	cmd := &cobra.Command{
		Use:   "sssp [FILE|-]",
		Short: "Graph500 BFS and SSSP (kernels 2 and 3) on a Kronecker graph or a weighted edge list",
		Example: `  graphrun sssp -s 20                       # scale 20: 64 BFS, then 64 SSSP searches, validated
  graphrun sssp -s 22 --ranks 4 -j run.json # four in-process ranks, both kernels in the JSON
  graphrun sssp -s 18 --delta 0.05          # a bucket width of your own
  graphrun sssp -s 20 --ranks 4 --partition 2d  # both kernels on a 2x2 grid
  graphrun sssp roads.wel -r 7 -o dist.txt  # a weighted edge list: distances from vertex 7`,
		Long: `Generates a Graph500 Kronecker graph with edge weights (uniform in [0, 1)),
builds it (kernel 1), runs validated breadth-first searches from 64 sampled
keys (kernel 2), then validated single-source shortest path searches from
the same keys (kernel 3, Meyer and Sanders's delta-stepping), and prints the
Graph500 statistics block with the reference's sssp lines. --delta sets the
bucket width (default: twice the heaviest weight over the average degree).
--partition 2d runs both kernels on the 2D grid (the same distances and
parents); bfs's other flags apply to its searches.

With FILE, searches the undirected view of a weighted edge list instead
(.wel, a real or integer Matrix Market file, gapbs .wsg, optionally gzipped
but .wsg; - or a pipe needs --format); weights must be finite and ≥ 0.
--root and --out use the file's ids. A file without weights is refused
unless --unit-weights (hidden) weighs every edge 1.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runBFS(cmd, f, args) },
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.Float64Var(&f.s.Delta, "delta", 0, "bucket width of the shortest path searches (0: from the graph)")
	fl.BoolVar(&f.s.UnitWeights, "unit-weights", false, "with FILE: weigh every edge 1 (a file without weights)")
	fl.Lookup("out").Usage = `with --root: write "vertex parent distance" lines of its shortest paths to this file`
	fl.Lookup("format").Usage = "with FILE: wel, mtx or wsg, .wel and .mtx optionally .gz (auto: from the name)"
	// The searches are undirected: --directed stays off the help, and so
	// does --unit-weights (most files searched for shortest paths have
	// weights).
	hideFlags(cmd, "directed", "unit-weights")
	return cmd
}

// checkWeighted refuses, before any work, a shortest path run on a file
// without weights unless every edge is to weigh 1 (a stream is checked as
// it is read).
func checkWeighted(in *edgelist.Input, unit bool) error {
	if unit || in.Stream {
		return nil
	}
	ok, err := edgelist.HasWeights(in.Path, in.Format)
	if err != nil {
		return usageError{err}
	}
	if !ok {
		return usageError{fmt.Errorf("%s %w: shortest paths need .wel, .wsg or a real or integer Matrix Market file (--unit-weights weighs every edge 1)", in.Path, edgelist.ErrUnweighted)}
	}
	return nil
}

// unweightedStream explains a stream refused for having no weights.
func unweightedStream(err error) error {
	if errors.Is(err, edgelist.ErrUnweighted) {
		return fmt.Errorf("%w (--unit-weights weighs every edge 1)", err)
	}
	return err
}
