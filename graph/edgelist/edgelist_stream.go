package edgelist

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/graphrun/graphrun/graph"
)

// EdgeListFormat resolves a format name as CreateEdgeList does: "el" or
// "text", "bel" or "binary", and "" or "auto" for the extension of path;
// it also knows "wel" (and the extension .wel), the weighted text an
// EdgeListEncoder writes with WriteWeighted. It returns EdgeListText,
// EdgeListBinary or EdgeListWeighted.
func EdgeListFormat(path, format string) (string, error) {
	auto := format == "" || strings.EqualFold(format, "auto")
	if strings.EqualFold(format, EdgeListWeighted) || auto && strings.EqualFold(filepath.Ext(path), ".wel") {
		return EdgeListWeighted, nil
	}
	return edgeListFormat(path, format)
}

// EdgeListWeighted is the weighted text edge list, "u v w" per line
// (read.go's EdgeFormatWEL), each weight a float32 in the shortest
// decimal form that reads back exactly (strconv's 'g', -1, 32).
const EdgeListWeighted = "wel"

// EdgeListEncoder writes an edge list whose number of tuples is known in
// advance to any writer, front to back: standard output, a pipe, or an
// output file that takes care of its own atomicity (graphrun's
// internal/output). The binary header carries the count given to
// NewEdgeListEncoder, so nothing is patched afterwards, and Close fails if
// another number of tuples was written.
type EdgeListEncoder struct {
	w        io.Writer
	binary   bool
	weighted bool  // EdgeListWeighted: WriteWeighted, not Write
	want     int64 // tuples announced
	n        int64 // tuples written
	buf      []byte
	err      error
}

// NewEdgeListEncoder starts an edge list of count tuples in format
// (EdgeListText or EdgeListBinary, see EdgeListFormat) on w, writing the
// binary header at once.
func NewEdgeListEncoder(w io.Writer, format string, count int64) (*EdgeListEncoder, error) {
	if count < 0 {
		return nil, fmt.Errorf("edge list of %d tuples", count)
	}
	e := &EdgeListEncoder{w: w, want: count, buf: make([]byte, 0, 64<<10)}
	switch format {
	case EdgeListText:
	case EdgeListWeighted:
		e.weighted = true
	case EdgeListBinary:
		e.binary = true
		hdr := binary.LittleEndian.AppendUint64([]byte(EdgeListMagic), uint64(count))
		if _, err := w.Write(hdr); err != nil {
			return nil, fmt.Errorf("write edge list: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown edge-list format %q: want %q, %q or %q", format, EdgeListText, EdgeListBinary, EdgeListWeighted)
	}
	return e, nil
}

// Write appends edges. Vertex ids must be non-negative.
func (e *EdgeListEncoder) Write(edges []graph.Edge) error {
	if e.weighted && e.err == nil {
		e.err = fmt.Errorf("write edge list: a weighted list's edges need their weights")
	}
	return e.write(edges, nil)
}

// WriteWeighted appends edges with their weights ws (ws[i] is edges[i]'s)
// to a weighted list (EdgeListWeighted). Vertex ids must be non-negative,
// weights finite and ≥ 0.
func (e *EdgeListEncoder) WriteWeighted(edges []graph.Edge, ws []float32) error {
	switch {
	case e.err != nil:
	case !e.weighted:
		e.err = fmt.Errorf("write edge list: an unweighted list (.el, .bel) has no weights")
	case len(ws) != len(edges):
		e.err = fmt.Errorf("write edge list: %d edges with %d weights", len(edges), len(ws))
	}
	for i, w := range ws {
		if e.err == nil && !(w >= 0 && w <= math.MaxFloat32) {
			e.err = fmt.Errorf("write edge list: tuple %d (%d, %d): weight %v is not finite and ≥ 0", e.n+int64(i), edges[i].U, edges[i].V, w)
		}
	}
	return e.write(edges, ws)
}

// write appends edges, with their weights when the list is weighted.
func (e *EdgeListEncoder) write(edges []graph.Edge, ws []float32) error {
	if e.err != nil {
		return e.err
	}
	if int64(len(edges)) > e.want-e.n {
		e.err = fmt.Errorf("write edge list: more than the %d tuples announced", e.want)
		return e.err
	}
	const piece = 2048 // tuples encoded at a time: the buffer stays small
	for len(edges) > 0 {
		k := min(len(edges), piece)
		for i, ed := range edges[:k] {
			if ed.U|ed.V < 0 {
				e.err = fmt.Errorf("write edge list: tuple %d (%d, %d): negative vertex id", e.n+int64(i), ed.U, ed.V)
				return e.err
			}
		}
		switch {
		case e.binary:
			e.buf = appendBinaryEdges(e.buf[:0], edges[:k])
		case e.weighted:
			e.buf = appendWeightedEdges(e.buf[:0], edges[:k], ws[:k])
			ws = ws[k:]
		default:
			e.buf = appendTextEdges(e.buf[:0], edges[:k])
		}
		if _, err := e.w.Write(e.buf); err != nil {
			e.err = fmt.Errorf("write edge list: %w", err)
			return e.err
		}
		e.n += int64(k)
		edges = edges[k:]
	}
	return nil
}

// Close checks that the announced number of tuples was written. It does
// not close the writer.
func (e *EdgeListEncoder) Close() error {
	if e.err != nil {
		return e.err
	}
	if e.n != e.want {
		return fmt.Errorf("write edge list: %d tuples written, %d announced", e.n, e.want)
	}
	return nil
}

// appendWeightedEdges appends the "u v w" lines of edges and their weights
// ws to buf.
func appendWeightedEdges(buf []byte, edges []graph.Edge, ws []float32) []byte {
	for i, e := range edges {
		buf = strconv.AppendInt(buf, e.U, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, e.V, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, float64(ws[i]), 'g', -1, 32)
		buf = append(buf, '\n')
	}
	return buf
}
