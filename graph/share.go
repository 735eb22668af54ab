// This file is the streamed input of PageRank's set-up (paper 000 §VII: a
// rank's share of an edge list, which the set-up reads twice — once for the
// distinct vertex ids, once to route the relabelled edges — without ever
// holding the share whole): EdgeShare and its two sources, a rank's share
// of an edge-list file (FileShare) and edges already in memory
// (EdgeChunks).

package graph

import (
	"context"
	"fmt"
)

// EdgeShare is one rank's share of an input's edges, read from the start
// as many times as a consumer needs.
type EdgeShare interface {
	// Scan hands the share's edges to emit in consecutive chunks, the same
	// edges in the same order on every call. A chunk is only valid during
	// the call: emit must copy what it keeps. Scan stops at the first
	// error of emit, of the input, or of ctx (checked at least once per
	// chunk), and returns it.
	Scan(ctx context.Context, emit func([]Edge) error) error
}

// scanChunk is the largest chunk an in-memory share hands to emit.
const scanChunk = 1 << 16

// EdgeChunks is a share held in memory, as one or more slices of edges in
// order (a share received in pieces needs no copy into one slice).
type EdgeChunks [][]Edge

// Scan hands the edges to emit in chunks of at most scanChunk edges.
func (s EdgeChunks) Scan(ctx context.Context, emit func([]Edge) error) error {
	for _, part := range s {
		for len(part) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(len(part), scanChunk)
			if err := emit(part[:n]); err != nil {
				return err
			}
			part = part[n:]
		}
	}
	return ctx.Err()
}

// FileShare is rank's share of an edge-list file when size ranks read it
// together, as ReadEdgesRange reads it, streamed: a pass holds one chunk
// of edges and one read buffer, never the share. The first pass checks the
// whole file as ReadEdgesRange does and learns where the share starts;
// later passes go there directly. The file must not change between passes.
type FileShare struct {
	path       string
	format     EdgeFormat
	rank, size int
	plan       sharePlan
	entries    bool // one edge per Matrix Market entry or .grb tuple (Input.Entries)
}

// NewFileShare returns rank's share of the edge list at path in format
// ("" detects it from the name) when size ranks read it. Nothing is read
// before the first Scan.
func NewFileShare(path string, format EdgeFormat, rank, size int) (*FileShare, error) {
	if size < 1 || rank < 0 || rank >= size {
		return nil, fmt.Errorf("read edges %s: rank %d of %d ranks", path, rank, size)
	}
	if _, _, err := DetectEdgeFormat(path, string(format)); err != nil {
		return nil, fmt.Errorf("read edges: %w", err)
	}
	return &FileShare{path: path, format: format, rank: rank, size: size}, nil
}

// Scan reads the share, handing its edges to emit in chunks. Its errors
// are ReadEdgesRange's, and ctx's (checked once per buffer of input).
func (f *FileShare) Scan(ctx context.Context, emit func([]Edge) error) error {
	src, err := openEdgeSource(f.path, f.format)
	if err != nil {
		return err
	}
	defer src.close()
	src.ctx, src.emit, src.plan, src.entries = ctx, emit, &f.plan, f.entries
	_, err = src.read(f.rank, f.size)
	return err
}
