// The input flags of pagerank (FILE or --kron) and of bfs FILE and convert,
// mapped to a pagerank.Source or a graph.Input (paper 000 §VII runs
// PageRank on edge lists; REFERENCES.md).

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/pagerank"
)

// resolvePageRankInput checks FILE or --kron and says how the run reads
// it. A missing or unreadable FILE is a usage error, except on a rank
// other than 0 of a job of processes, which reads nothing if rank 0 finds
// a stream (and fails opening the file otherwise, as it would have).
func resolvePageRankInput(cmd *cobra.Command, f *pagerankFlags, args []string, plan jobPlan) (*pagerank.Source, error) {
	fl := cmd.Flags()
	in := &pagerank.Source{}
	switch {
	case fl.Changed("kron") && len(args) > 0:
		return nil, flagError("kron", "cannot be combined with the edge list %s", args[0])
	case fl.Changed("kron"):
		if f.kron < 1 || f.kron > kronecker.MaxScale {
			return nil, flagError("kron", "%d is outside 1..%d", f.kron, kronecker.MaxScale)
		}
		in.Kron = kronecker.DefaultParams(f.kron)
		if err := in.Kron.Validate(); err != nil {
			return nil, flagError("kron", "%v", err)
		}
		return in, nil
	case len(args) == 0:
		return nil, usageError{fmt.Errorf("pagerank needs an edge list FILE (or - for standard input) or --kron SCALE")}
	}
	file, err := resolveFileInput(cmd, f.format, args[0], plan)
	if err != nil {
		return nil, err
	}
	if file.Stream {
		switch {
		case f.elastic:
			return nil, flagError("elastic", "%s is a stream, read once: an elastic job re-reads its input when it changes size; give a regular file", file.Path)
		case plan.Replicas > 1 || plan.Replication() > 1:
			return nil, flagError("replicas", "%s is a stream, read once by rank 0: replicas cannot read it too; give a regular file", file.Path)
		}
	}
	in.File = file
	return in, nil
}

// resolveFileInput checks an input FILE ("-" for standard input) and its
// --format. A missing or unreadable FILE is a usage error, except on a
// rank other than 0 of a job of processes, which reads nothing if rank 0
// finds a stream (and fails opening the file otherwise, as it would have).
func resolveFileInput(cmd *cobra.Command, format, path string, plan jobPlan) (*graph.Input, error) {
	stream, err := graph.IsStream(path)
	if err != nil && !(plan.MultiProcess() && plan.Rank() != 0) {
		return nil, usageError{err}
	}
	if !cmd.Flags().Changed("format") {
		format = ""
	}
	in, err := graph.NewInput(path, format, stream, cmd.InOrStdin())
	if err != nil {
		return nil, flagError("format", "%v", err)
	}
	return in, nil
}
