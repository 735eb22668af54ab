// FileShare, a rank's share of an edge-list file streamed as a
// graph.EdgeShare: the input of PageRank's set-up (Kylix §VII) when every
// rank reads its own part of a file.

package edgelist

import (
	"context"
	"fmt"

	"github.com/graphrun/graphrun/graph"
)

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
	// weightedPlan is plan for ScanWeighted, whose first pass checks
	// the weights too.
	weightedPlan sharePlan
	entries      bool // one edge per Matrix Market entry or .grb tuple (Input.Entries)
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
func (f *FileShare) Scan(ctx context.Context, emit func([]graph.Edge) error) error {
	src, err := openEdgeSource(f.path, f.format)
	if err != nil {
		return err
	}
	defer src.close()
	src.ctx, src.emit, src.plan, src.entries = ctx, emit, &f.plan, f.entries
	_, err = src.read(f.rank, f.size)
	return err
}
