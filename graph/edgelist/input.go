// Where a distributed run's edges come from when they are the user's, as
// for PageRank (Kylix §VII runs on edge lists) and BFS on a file
// (graphrun bfs FILE): an edge-list file every rank reads its share of, or
// a stream (standard input, a pipe, a FIFO, a device) that only rank 0
// can read and spreads over the ranks. Input is that choice, made once
// from the path and the format the user named, and its Share the rank's
// part of the edges.

package edgelist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/graphrun/graphrun/graph"

	"github.com/graphrun/graphrun/comm"
)

// ErrStreamFormat is the error of NewInput for a stream whose format was
// not named: a stream's name does not say its format.
var ErrStreamFormat = errors.New("is read as a stream (standard input, a pipe, a FIFO or a device), whose name does not say its format: name the format, e.g. snap or snap.gz")

// PhaseInput is the phase of the allreduce by which the ranks take rank
// 0's view of whether an Input is a stream.
const PhaseInput = "pagerank.input"

// Input is an edge list to read: a file (every rank reads its share) or a
// stream (rank 0 reads it once and spreads it).
type Input struct {
	// Path is the file, or StdinName for standard input.
	Path string
	// Format is the format named by the user, "" when it comes from the
	// name (DetectEdgeFormat).
	Format EdgeFormat
	// Detected is the resolved format (the named one, or the name's).
	Detected EdgeFormat
	// Stream is this process's view of whether Path is a stream; Share
	// follows rank 0's.
	Stream bool
	// IDOffset is added to the ids an output prints so that they are the
	// file's: 1 for Matrix Market, whose ids are 1-based, else 0.
	IDOffset int64
	// Entries reads one edge per Matrix Market entry or .grb tuple: a
	// symmetric matrix's entry gives its edge once, not also its mirror
	// (ReadEntries). An undirected view sets it so that each line is one
	// tuple.
	Entries bool
	// MaxEdges bounds the edges of one rank's share (0: no bound): a scan
	// of Share's share of a file fails, naming the input, as soon as it
	// has read more (bound.go), before anything is sized by their count;
	// a stream's spreading fails once a rank has received more.
	MaxEdges int64

	stdin io.Reader // what StdinName reads
}

// NewInput resolves the input at path in format ("" or "auto": from the
// name; else a DetectEdgeFormat name, optionally with ".gz"). stream says
// whether path is a stream (IsStream; a caller that cannot stat the
// path, such as a rank other than 0 that reads nothing if rank 0 finds a
// stream, passes false). A stream needs a named format: without one the
// error wraps ErrStreamFormat. An unknown format gives DetectEdgeFormat's
// error, and a .grb file whose header is bad NewGRB's. stdin is what
// StdinName reads.
func NewInput(path, format string, stream bool, stdin io.Reader) (*Input, error) {
	named := strings.TrimSpace(format) != "" && !strings.EqualFold(strings.TrimSpace(format), "auto")
	if stream && !named {
		return nil, fmt.Errorf("%s %w", path, ErrStreamFormat)
	}
	fm, _, err := DetectEdgeFormat(path, format)
	if err != nil {
		return nil, err
	}
	in := &Input{Path: path, Detected: fm, Stream: stream, stdin: stdin}
	if named {
		in.Format = EdgeFormat(format)
	}
	switch {
	case fm == EdgeFormatMTX:
		in.IDOffset = 1
	case fm == EdgeFormatGRB && !stream:
		g, closer, err := OpenGRB(path)
		if err != nil {
			return nil, err
		}
		closer.Close()
		in.IDOffset = g.IDOffset // the input's, kept by convert
	}
	return in, nil
}

// Load returns rank's share of the file when size ranks read it: nothing
// is read until the share is scanned.
func (in *Input) Load(rank, size int) (graph.EdgeShare, error) {
	fs, err := in.fileShare(rank, size)
	if err != nil {
		return nil, err
	}
	return fs, nil
}

// fileShare is Load's share, which also reads the weights.
func (in *Input) fileShare(rank, size int) (*FileShare, error) {
	fs, err := NewFileShare(in.Path, in.Format, rank, size)
	if err != nil {
		return nil, err
	}
	fs.entries = in.Entries
	return fs, nil
}

// Share returns this rank's share of the input in c's job. The ranks
// first agree on rank 0's view of whether the input is a stream (one
// small allreduce); a stream is then read by rank 0 and spread over the
// ranks (SpreadStream), which keep their parts in memory. It is a
// collective.
func (in *Input) Share(ctx context.Context, c comm.Comm) (graph.EdgeShare, error) {
	s, err := in.share(ctx, c, false)
	if err != nil {
		return nil, err
	}
	if chunks, ok := s.(weightedChunks); ok {
		return in.bounded(chunks.edges), nil
	}
	return in.bounded(s), nil
}

// WeightedShare is Share with the edges' weights (weights.go): a stream's
// weights are spread with its edges. An input without weights fails the
// share's ScanWeighted (a file's) or this call (a stream's) with an error
// that wraps ErrUnweighted; HasWeights tells a file's beforehand.
func (in *Input) WeightedShare(ctx context.Context, c comm.Comm) (WeightedShare, error) {
	s, err := in.share(ctx, c, true)
	if err != nil {
		return nil, err
	}
	return in.boundedWeighted(s), nil
}

// share is Share or, weighted, WeightedShare.
func (in *Input) share(ctx context.Context, c comm.Comm, weighted bool) (WeightedShare, error) {
	agree := []int64{0}
	if c.Rank() == 0 && in.Stream {
		agree[0] = 1
	}
	if err := c.AllreduceInt64(ctx, PhaseInput, agree, comm.Max); err != nil {
		return nil, fmt.Errorf("read edges %s: %w", in.Path, err)
	}
	if agree[0] == 0 {
		fs, err := in.fileShare(c.Rank(), c.Size())
		if err != nil {
			return nil, err
		}
		return fs, nil
	}
	var r io.Reader
	if c.Rank() == 0 {
		rc, err := OpenStream(ctx, in.Path, in.stdin)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		r = rc
	}
	return spreadStreamBounded(ctx, c, r, in.Path, in.Format, spreadRound, in.Entries, weighted, in.MaxEdges)
}

// StdinForChildren is the standard input a launcher of local processes
// hands to its rank 0: its own when the input is standard input, else
// none.
func (in *Input) StdinForChildren() io.Reader {
	if in.Path == StdinName {
		return in.stdin
	}
	return nil
}
