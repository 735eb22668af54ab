// A bound on the edges of a rank's share (Input.MaxEdges): what a file
// claims by its size says little of what it holds — a 19 MB gzip of one
// repeated line expands to 10^9 edges, which the structures built from
// them (8 bytes per edge at least) would take 8 GB for — so a share's
// scan counts the edges it actually read and fails, naming the input, as
// soon as they pass the bound: before a caller allocates anything sized
// by their count.

package edgelist

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/graphrun/graphrun/graph"
)

// boundedShare is a share whose Scan fails once it handed out more than
// max edges.
type boundedShare struct {
	graph.EdgeShare
	name string
	max  int64
}

// bounded returns share bounded by in.MaxEdges (share itself when 0).
func (in *Input) bounded(share graph.EdgeShare) graph.EdgeShare {
	if in.MaxEdges <= 0 {
		return share
	}
	return boundedShare{EdgeShare: share, name: in.Path, max: in.MaxEdges}
}

// Scan is the share's Scan, failing (tooManyEdges) once more than max
// edges were read.
func (b boundedShare) Scan(ctx context.Context, emit func([]graph.Edge) error) error {
	var n int64
	return b.EdgeShare.Scan(ctx, func(es []graph.Edge) error {
		if n += int64(len(es)); n > b.max {
			return tooManyEdges(b.name, b.max)
		}
		return emit(es)
	})
}

// boundedWeightedShare is boundedShare for a weighted share.
type boundedWeightedShare struct {
	WeightedShare
	name string
	max  int64
}

// boundedWeighted returns share bounded by in.MaxEdges (share itself when
// 0).
func (in *Input) boundedWeighted(share WeightedShare) WeightedShare {
	if in.MaxEdges <= 0 {
		return share
	}
	return boundedWeightedShare{WeightedShare: share, name: in.Path, max: in.MaxEdges}
}

// Scan is boundedShare's Scan.
func (b boundedWeightedShare) Scan(ctx context.Context, emit func([]graph.Edge) error) error {
	return boundedShare{EdgeShare: b.WeightedShare, name: b.name, max: b.max}.Scan(ctx, emit)
}

// ScanWeighted is the share's ScanWeighted, failing (tooManyEdges) once
// more than max edges were read.
func (b boundedWeightedShare) ScanWeighted(ctx context.Context, emit func(es []graph.Edge, ws []float32) error) error {
	var n int64
	return b.WeightedShare.ScanWeighted(ctx, func(es []graph.Edge, ws []float32) error {
		if n += int64(len(es)); n > b.max {
			return tooManyEdges(b.name, b.max)
		}
		return emit(es, ws)
	})
}

// tooManyEdges is the error of a share of name that holds more than max
// edges: an *fs.PathError naming the input, no line of which is at fault.
func tooManyEdges(name string, max int64) error {
	return &fs.PathError{Op: "read edges", Path: name, Err: fmt.Errorf("a rank's share holds more than %d edges, the most the memory available to it holds: the input is too large for this machine", max)}
}
