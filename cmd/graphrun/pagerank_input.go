// Where a pagerank run's edges come from (paper 000 §VII runs PageRank on
// edge lists): the flags mapped to an edge list (graph.Input: a file every
// rank reads its share of, or a stream rank 0 reads and spreads), or a
// Kronecker graph every rank generates its share of, a chunk at a time.
// The fixed-size run (pagerank.go) and the elastic one's re-reads after a
// topology change (pagerank_elastic.go) share this one loader; bfs FILE
// uses resolveFileInput too.

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
)

// pagerankInput is the input of a pagerank run: an edge list
// (graph.Input) or, with --kron, a Kronecker graph.
type pagerankInput struct {
	file     *graph.Input     // the edge list; nil with --kron
	path     string           // the edge list's path; "" with --kron
	kron     kronecker.Params // with --kron
	name     string           // how the output names the input
	idOffset int64            // added to the printed ids (1 for Matrix Market)
	threads  int
}

// kronChunk is the number of tuples a Kronecker share generates at once.
const kronChunk = 1 << 17

// kronShare is a rank's share of a Kronecker graph, generated chunk by
// chunk on every pass (the generator is counter-based: tuple k depends
// only on the parameters and k).
type kronShare struct {
	kp           kronecker.Params
	first, count int64
	threads      int
	buf          []graph.Edge
}

// Scan generates the share's tuples and hands them to emit in chunks.
func (k *kronShare) Scan(ctx context.Context, emit func([]graph.Edge) error) error {
	if k.buf == nil {
		k.buf = make([]graph.Edge, min(k.count, kronChunk))
	}
	for done := int64(0); done < k.count; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(int64(len(k.buf)), k.count-done)
		k.kp.GenerateParallel(k.first+done, k.buf[:n], k.threads)
		if err := emit(k.buf[:n]); err != nil {
			return err
		}
		done += n
	}
	return nil
}

// resolvePageRankInput checks FILE or --kron and says how the run reads
// it. A missing or unreadable FILE is a usage error, except on a rank
// other than 0 of a job of processes, which reads nothing if rank 0 finds
// a stream (and fails opening the file otherwise, as it would have).
func resolvePageRankInput(cmd *cobra.Command, f *pagerankFlags, args []string, plan jobPlan) (*pagerankInput, error) {
	fl := cmd.Flags()
	in := &pagerankInput{}
	switch {
	case fl.Changed("kron") && len(args) > 0:
		return nil, flagError("kron", "cannot be combined with the edge list %s", args[0])
	case fl.Changed("kron"):
		if f.kron < 1 || f.kron > kronecker.MaxScale {
			return nil, flagError("kron", "%d is outside 1..%d", f.kron, kronecker.MaxScale)
		}
		in.kron = kronecker.DefaultParams(f.kron)
		if err := in.kron.Validate(); err != nil {
			return nil, flagError("kron", "%v", err)
		}
		in.name = fmt.Sprintf("kron:%d", f.kron)
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
		case plan.replicas > 1 || plan.replication() > 1:
			return nil, flagError("replicas", "%s is a stream, read once by rank 0: replicas cannot read it too; give a regular file", file.Path)
		}
	}
	in.file, in.path, in.name, in.idOffset = file, file.Path, file.Path, file.IDOffset
	return in, nil
}

// resolveFileInput checks an input FILE ("-" for standard input) and its
// --format. A missing or unreadable FILE is a usage error, except on a
// rank other than 0 of a job of processes, which reads nothing if rank 0
// finds a stream (and fails opening the file otherwise, as it would have).
func resolveFileInput(cmd *cobra.Command, format, path string, plan jobPlan) (*graph.Input, error) {
	stream, err := graph.IsStream(path)
	if err != nil && !(plan.multiProcess() && plan.rank() != 0) {
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

// load returns rank's share of a file or Kronecker input in a job of size
// ranks (spmv.Elastic.Load): nothing is read until the set-up scans it.
func (in *pagerankInput) load(_ context.Context, rank, size int) (graph.EdgeShare, error) {
	if in.file == nil {
		first, count := in.kron.RankRange(rank, size)
		return &kronShare{kp: in.kron, first: first, count: count, threads: in.threads}, nil
	}
	return in.file.Load(rank, size)
}

// share returns this rank's share of the input in c's job
// (graph.Input.Share for a file or stream).
func (in *pagerankInput) share(ctx context.Context, c comm.Comm) (graph.EdgeShare, error) {
	if in.file == nil {
		return in.load(ctx, c.Rank(), c.Size())
	}
	return in.file.Share(ctx, c)
}

// stdinForChildren is the standard input a --procs launcher hands to its
// rank 0: its own when the input is "-", else none.
func (in *pagerankInput) stdinForChildren() io.Reader {
	if in.file == nil {
		return nil
	}
	return in.file.StdinForChildren()
}
