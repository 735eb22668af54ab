package kronecker

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/graph"
)

// Share is one rank's contiguous range of the tuples (RankRange) as a
// graph.TupleSource: it generates any chunk on demand, as often as asked, in
// no memory but the caller's buffer. This is what lets kernel 1 read its
// input twice without the tuple list ever existing (graph.BuildUndirectedFrom).
type Share struct {
	params       Params
	first, count int64
	threads      int
}

// Share returns rank's share of the tuples of size ranks, generated with
// threads goroutines per chunk (≤ 0: GOMAXPROCS). The parameters must be
// valid (Validate).
func (p Params) Share(rank, size, threads int) Share {
	first, count := p.RankRange(rank, size)
	return Share{params: p, first: first, count: count, threads: threads}
}

// Len returns the number of tuples in the share.
func (s Share) Len() int64 { return s.count }

// First returns the index of the share's first tuple in the whole list.
func (s Share) First() int64 { return s.first }

// Read generates tuples [first, first+len(out)) of the share into out.
func (s Share) Read(ctx context.Context, first int64, out []graph.Edge) error {
	if first < 0 || first+int64(len(out)) > s.count {
		return fmt.Errorf("kronecker: read of tuples [%d, %d) from a share of %d", first, first+int64(len(out)), s.count)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.params.GenerateParallel(s.first+first, out, s.threads)
	return nil
}

// scanChunk is the number of tuples an Edges scan generates at once.
const scanChunk = 1 << 17

// Edges returns the share as a graph.EdgeShare: every Scan generates the
// tuples again, a chunk at a time, into one buffer the share keeps (the
// generator is counter-based: tuple k depends only on the parameters and
// k), so that the share never holds more than a chunk.
func (s Share) Edges() graph.EdgeShare { return &edges{s: s} }

// edges is Share.Edges.
type edges struct {
	s   Share
	buf []graph.Edge
}

// Scan generates the share's tuples and hands them to emit in chunks.
func (e *edges) Scan(ctx context.Context, emit func([]graph.Edge) error) error {
	if e.buf == nil {
		e.buf = make([]graph.Edge, min(e.s.count, scanChunk))
	}
	for done := int64(0); done < e.s.count; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(int64(len(e.buf)), e.s.count-done)
		e.s.params.GenerateParallel(e.s.first+done, e.buf[:n], e.s.threads)
		if err := emit(e.buf[:n]); err != nil {
			return err
		}
		done += n
	}
	return nil
}
