// The FILE argument of bfs, pagerank and convert, an edge list or graph
// file, or - for standard input, mapped with --format to a edgelist.Input
// (Kylix §VII runs PageRank on edge lists).

package main

import (
	"errors"

	"github.com/graphrun/graphrun/graph500"

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

// The least memory a run holds per edge of a rank's share, whatever else
// it holds: PageRank's matrix and BFS's plain rows (two 4-byte half-edges
// per tuple, at their final size before deduplication) take 8 bytes; the
// compressed rows about 3.1 at scale 20 (graph500's memory model), 4 here.
const (
	leastPlainEdgeBytes  = 8
	leastPackedEdgeBytes = 4
)

// boundEdges bounds in's shares by this machine's available memory: a
// share of more edges than leastBytes each leave room for, split among the
// machine's ranks, fails its read (exit 2, naming the input) before the
// run allocates by its count, where it would have run out of memory. An
// input whose size says nothing of its edges (a gzip of one repeated line
// expands a thousandfold) needs it. Where the available memory is unknown
// nothing is bounded.
func boundEdges(in *edgelist.Input, plan jobPlan, leastBytes int64) {
	if avail, err := graph500.AvailableMemory(); err == nil {
		in.MaxEdges = maxEdgesPerRank(avail, plan.LocalRanks(), leastBytes)
	}
}

// maxEdgesPerRank is the most edges each of localRanks ranks may hold
// with avail bytes available, at leastBytes per edge.
func maxEdgesPerRank(avail int64, localRanks int, leastBytes int64) int64 {
	return max(1, avail/leastBytes/int64(max(1, localRanks)))
}
