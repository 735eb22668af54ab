// The FILE argument of bfs, pagerank and convert, an edge list or graph
// file, or - for standard input, mapped with --format to a edgelist.Input
// (Kylix §VII runs PageRank on edge lists).

package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/graph/edgelist"
)

// resolveFileInput checks an input FILE ("-" for standard input) and its
// --format. A missing or unreadable FILE is a usage error, except on a
// rank other than 0 of a job of processes, which reads nothing if rank 0
// finds a stream (and fails opening the file otherwise, as it would have).
func resolveFileInput(cmd *cobra.Command, format, path string, plan jobPlan) (*edgelist.Input, error) {
	stream, err := edgelist.IsStream(path)
	if err != nil && !(plan.MultiProcess() && plan.Rank() != 0) {
		return nil, usageError{err}
	}
	if !cmd.Flags().Changed("format") {
		format = ""
	}
	in, err := edgelist.NewInput(path, format, stream, cmd.InOrStdin())
	var le *edgelist.EdgeListError
	if errors.As(err, &le) {
		return nil, usageError{err} // the file's defect (a corrupt .grb header), not --format's
	}
	if err != nil {
		return nil, flagError("format", "%v", err)
	}
	return in, nil
}
