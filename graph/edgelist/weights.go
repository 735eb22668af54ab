// Edge weights of the weighted formats (read.go, "Formats"): a .wel line's
// third column, a real or integer Matrix Market matrix's values and a
// gapbs .wsg's int32 weights. A read without weights validates them and
// drops them; a weighted read (ReadWeightedEdges, FileShare.ScanWeighted)
// hands every edge's weight beside it as a float32, as kernel 3 of the
// Graph500 specification and gapbs's WeightT store them, and refuses an
// input that has none.
//
// A weighted read takes a text weight with strconv.ParseFloat's syntax,
// rounded once to the nearest float32 (so a float32 written with
// strconv.FormatFloat(w, 'g', -1, 32) reads back exactly), and an integer
// Matrix Market value as the nearest float32. A weight that is negative,
// not a number, infinite or beyond float32's range is an error naming
// file:line; −0 reads as 0. A symmetric matrix's mirrored entry carries
// its entry's weight.

package edgelist

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/graphrun/graphrun/graph"
)

// ErrUnweighted is the error of a weighted read of an input without
// weights (SNAP text, .el, .bel, .grb, .sg, a pattern Matrix Market
// matrix); callers find it with errors.Is.
var ErrUnweighted = errors.New("has no edge weights")

// WeightedShare is a rank's share of a weighted input's edges, read from
// the start as many times as a consumer needs (FileShare).
type WeightedShare interface {
	graph.EdgeShare
	// ScanWeighted is Scan with each chunk's weights: ws[i] is es[i]'s.
	ScanWeighted(ctx context.Context, emit func(es []graph.Edge, ws []float32) error) error
}

// ReadWeightedEdges is ReadEdges with the edges' weights: the EdgeFile's
// Weights[i] is Edges[i]'s. An input without weights gives an error that
// wraps ErrUnweighted.
func ReadWeightedEdges(path string, format EdgeFormat) (*EdgeFile, error) {
	src, err := openEdgeSource(path, format)
	if err != nil {
		return nil, err
	}
	defer src.close()
	src.weighted = true
	p, err := src.read(0, 1)
	if err != nil {
		return nil, err
	}
	ef := edgeFileOf(src, p)
	ef.Weights = p.weights
	if ef.Weights == nil {
		ef.Weights = []float32{}
	}
	return ef, nil
}

// ScanWeighted reads the share as Scan does, handing each chunk's edges
// to emit with their weights. An input without weights gives an error
// that wraps ErrUnweighted.
func (f *FileShare) ScanWeighted(ctx context.Context, emit func([]graph.Edge, []float32) error) error {
	src, err := openEdgeSource(f.path, f.format)
	if err != nil {
		return err
	}
	defer src.close()
	src.ctx, src.emitWeighted, src.plan, src.entries, src.weighted = ctx, emit, &f.weightedPlan, f.entries, true
	_, err = src.read(f.rank, f.size)
	return err
}

// HasWeights reports whether the input at path in format ("" detects it
// from the name) carries edge weights: a .wel or .wsg file always, a
// Matrix Market file unless its banner says pattern (the banner is read),
// any other format never.
func HasWeights(path string, format EdgeFormat) (bool, error) {
	fm, _, err := DetectEdgeFormat(path, string(format))
	if err != nil {
		return false, fmt.Errorf("read edges: %w", err)
	}
	switch fm {
	case EdgeFormatWEL, EdgeFormatWSG:
		return true, nil
	case EdgeFormatMTX:
	default:
		return false, nil
	}
	src, err := openEdgeSource(path, format)
	if err != nil {
		return false, err
	}
	defer src.close()
	p, _, err := src.startText()
	if err != nil {
		return false, err
	}
	return p.mtx.field != "pattern", nil
}

// checkWeighted refuses a weighted read of a source whose format has no
// weights (a Matrix Market file's field is checked with its header).
func (s *edgeSource) checkWeighted() error {
	if !s.weighted {
		return nil
	}
	switch s.format {
	case EdgeFormatWEL, EdgeFormatWSG, EdgeFormatMTX:
		return nil
	}
	return &EdgeListError{Name: s.name, Line: 1, Err: fmt.Errorf("%w: the %s format holds none (shortest paths need .wel, .wsg or a real or integer Matrix Market file)", ErrUnweighted, s.format)}
}

// value parses a .wel weight or a Matrix Market value (what names it) at
// p.line: checked and dropped (0) unless the parser is weighted.
func (p *edgeParser) value(f []byte, what string) (float32, error) {
	if what == "integer value" {
		x, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return 0, p.errorf("bad %s %s: %w", what, quoteField(f), err)
		}
		if p.weighted && x < 0 {
			return 0, p.errorf("negative weight %s: shortest paths need weights ≥ 0", quoteField(f))
		}
		return float32(x), nil
	}
	bits := 64
	if p.weighted {
		bits = 32
	}
	x, err := strconv.ParseFloat(string(f), bits)
	switch {
	case err != nil:
		return 0, p.errorf("bad %s %s: %w", what, quoteField(f), err)
	case math.IsNaN(x) || math.IsInf(x, 0):
		return 0, p.errorf("bad %s %s: not a finite number", what, quoteField(f))
	case !p.weighted:
		return 0, nil
	case x < 0:
		return 0, p.errorf("negative weight %s: shortest paths need weights ≥ 0", quoteField(f))
	case x == 0:
		return 0, nil // −0 too
	}
	return float32(x), nil
}
