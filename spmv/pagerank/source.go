package pagerank

// Where a pagerank run's edges come from (Kylix §VII runs PageRank on
// edge lists; REFERENCES.md): an edge list (edgelist.Input: a file every rank
// reads its share of, or a stream rank 0 reads and spreads), or a Graph500
// Kronecker graph every rank generates its share of, a chunk at a time.
// The fixed-size run and an elastic job's re-reads after a topology change
// share this one loader.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// Source is the input of a pagerank run: an edge list (File) or, when File
// is nil, the Kronecker graph of Kron (valid parameters).
type Source struct {
	File    *edgelist.Input
	Kron    kronecker.Params
	Threads int // goroutines per rank generating a Kronecker share
	// Weighted hands out the edges' weights (a WeightedShare): the edge
	// list's, or the Kronecker generator's.
	Weighted bool
}

// Name is how the output names the input: the edge list's path, or
// "kron:SCALE".
func (s *Source) Name() string {
	if s.File == nil {
		return fmt.Sprintf("kron:%d", s.Kron.Scale)
	}
	return s.File.Path
}

// Path is the edge list's path ("" for a Kronecker graph).
func (s *Source) Path() string {
	if s.File == nil {
		return ""
	}
	return s.File.Path
}

// Input is the driver's view of the source.
func (s *Source) Input() Input {
	in := Input{Name: s.Name(), Share: s.share, Load: s.load}
	if s.File != nil {
		in.IDOffset = s.File.IDOffset
	}
	return in
}

// JoinTag is the tag of a job on this source (JoinTag): the input's base
// name and the configuration.
func (s *Source) JoinTag(cfg Config) string {
	input := s.Name()
	if s.File != nil {
		input = filepath.Base(s.File.Path)
	}
	return JoinTag(input, cfg)
}

// load returns rank's share of the input in a job of size ranks
// (Input.Load): nothing is read until the set-up scans it.
func (s *Source) load(_ context.Context, rank, size int) (graph.EdgeShare, error) {
	if s.File == nil {
		share := s.Kron.Share(rank, size, s.Threads)
		if s.Weighted {
			return newKronWeighted(share), nil
		}
		return share.Edges(), nil
	}
	return s.File.Load(rank, size)
}

// share returns this rank's share of the input in c's job (Input.Share;
// edgelist.Input.Share for a file or stream).
func (s *Source) share(ctx context.Context, c comm.Comm) (graph.EdgeShare, error) {
	if s.File == nil {
		return s.load(ctx, c.Rank(), c.Size())
	}
	if s.Weighted {
		return s.File.WeightedShare(ctx, c)
	}
	return s.File.Share(ctx, c)
}

// StdinForChildren is the standard input a launcher of child processes
// hands to its rank 0: its own when the input is "-", else none.
func (s *Source) StdinForChildren() io.Reader {
	if s.File == nil {
		return nil
	}
	return s.File.StdinForChildren()
}
