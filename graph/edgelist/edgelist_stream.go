package edgelist

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/graphrun/graphrun/graph"
)

// EdgeListFormat resolves a format name as CreateEdgeList does: "el" or
// "text", "bel" or "binary", and "" or "auto" for the extension of path.
// It returns EdgeListText or EdgeListBinary.
func EdgeListFormat(path, format string) (string, error) { return edgeListFormat(path, format) }

// EdgeListEncoder writes an edge list whose number of tuples is known in
// advance to any writer, front to back: standard output, a pipe, or an
// output file that takes care of its own atomicity (graphrun's
// internal/output). The binary header carries the count given to
// NewEdgeListEncoder, so nothing is patched afterwards, and Close fails if
// another number of tuples was written.
type EdgeListEncoder struct {
	w      io.Writer
	binary bool
	want   int64 // tuples announced
	n      int64 // tuples written
	buf    []byte
	err    error
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
	case EdgeListBinary:
		e.binary = true
		hdr := binary.LittleEndian.AppendUint64([]byte(EdgeListMagic), uint64(count))
		if _, err := w.Write(hdr); err != nil {
			return nil, fmt.Errorf("write edge list: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown edge-list format %q: want %q or %q", format, EdgeListText, EdgeListBinary)
	}
	return e, nil
}

// Write appends edges. Vertex ids must be non-negative.
func (e *EdgeListEncoder) Write(edges []graph.Edge) error {
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
		if e.binary {
			e.buf = appendBinaryEdges(e.buf[:0], edges[:k])
		} else {
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
