// This file is where a pagerank run's edges come from (paper 000 §VII runs
// PageRank on edge lists): an edge-list file every rank reads its share of,
// a stream (standard input, a pipe, a FIFO, a device) that only rank 0 can
// read, or a Kronecker graph every rank generates its share of, a chunk at
// a time. The fixed-size run (pagerank.go) and the elastic one's re-reads
// after a topology change (pagerank_elastic.go) share this one loader.

package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
)

// pagerankInput is the input of a pagerank run.
type pagerankInput struct {
	path     string           // the edge list; "" with --kron
	format   graph.EdgeFormat // --format if given, else "" (from the name)
	kron     kronecker.Params // with --kron
	name     string           // how the output names the input
	idOffset int64            // added to the printed ids (1 for Matrix Market)
	// stream: path is read once, by rank 0, and spread (this process's
	// view; the ranks follow rank 0's). stdin is what "-" reads.
	stream  bool
	stdin   io.Reader
	threads int
}

// phasePageRankInput is the phase of the allreduce by which the ranks take
// rank 0's view of whether the input is a stream.
const phasePageRankInput = "pagerank.input"

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
	in := &pagerankInput{stdin: cmd.InOrStdin()}
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
	in.path, in.name = args[0], args[0]
	stream := in.path == graph.StdinName
	if !stream {
		var err error
		stream, err = graph.IsStream(in.path)
		if err != nil && !(plan.multiProcess() && plan.rank() != 0) {
			return nil, usageError{err}
		}
	}
	named := fl.Changed("format") && !strings.EqualFold(strings.TrimSpace(f.format), "auto")
	if stream {
		switch {
		case !named:
			return nil, flagError("format", "%s is read as a stream (standard input, a pipe, a FIFO or a device), whose name does not say its format: give it, e.g. --format snap or --format snap.gz", in.path)
		case f.elastic:
			return nil, flagError("elastic", "%s is a stream, read once: an elastic job re-reads its input when it changes size; give a regular file", in.path)
		case plan.replicas > 1 || plan.replication() > 1:
			return nil, flagError("replicas", "%s is a stream, read once by rank 0: replicas cannot read it too; give a regular file", in.path)
		}
	}
	in.stream = stream
	fm, _, err := graph.DetectEdgeFormat(in.path, f.format)
	if err != nil {
		return nil, flagError("format", "%v", err)
	}
	if named {
		in.format = graph.EdgeFormat(f.format)
	}
	if fm == graph.EdgeFormatMTX {
		in.idOffset = 1 // Matrix Market ids are printed 1-based, as in the file
	}
	return in, nil
}

// load returns rank's share of a file or Kronecker input in a job of size
// ranks (spmv.Elastic.Load): nothing is read until the set-up scans it.
func (in *pagerankInput) load(_ context.Context, rank, size int) (graph.EdgeShare, error) {
	if in.path == "" {
		first, count := in.kron.RankRange(rank, size)
		return &kronShare{kp: in.kron, first: first, count: count, threads: in.threads}, nil
	}
	return graph.NewFileShare(in.path, in.format, rank, size)
}

// share returns this rank's share of the input in c's job. The ranks
// first agree on rank 0's view of whether the input is a stream (one
// small allreduce); a stream is then read by rank 0 and spread over the
// ranks (graph.SpreadStream), which keep their parts in memory.
func (in *pagerankInput) share(ctx context.Context, c comm.Comm) (graph.EdgeShare, error) {
	if in.path == "" {
		return in.load(ctx, c.Rank(), c.Size())
	}
	agree := []int64{0}
	if c.Rank() == 0 && in.stream {
		agree[0] = 1
	}
	if err := c.AllreduceInt64(ctx, phasePageRankInput, agree, comm.Max); err != nil {
		return nil, fmt.Errorf("pagerank: %s: %w", in.path, err)
	}
	if agree[0] == 0 {
		return in.load(ctx, c.Rank(), c.Size())
	}
	var r io.Reader
	if c.Rank() == 0 {
		rc, err := graph.OpenStream(ctx, in.path, in.stdin)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		r = rc
	}
	share, err := graph.SpreadStream(ctx, c, r, in.path, in.format)
	if err != nil {
		return nil, err
	}
	return share, nil
}

// stdinForChildren is the standard input a --procs launcher hands to its
// rank 0: its own when the input is "-", else none.
func (in *pagerankInput) stdinForChildren() io.Reader {
	if in.path == graph.StdinName {
		return in.stdin
	}
	return nil
}
