// The conversions of `graphrun convert` and of `graphrun generate` to a .grb:
// an edge list relabelled once (graph.RelabelLocal) and written as a binary graph
// (grb.go) that later runs read without parsing or relabelling.

package edgelist

import (
	"context"
	"fmt"
	"io"

	"github.com/graphrun/graphrun/graph"
)

// WriteGRB relabels the edges of share, a whole input (a one-rank share,
// read twice), and writes them to w as a .grb graph whose tuples keep the
// input's order. directed, symmetric and idOffset are the input's
// (EdgeFile.Directed and Symmetric, as ReadEntries reads it;
// Input.IDOffset). It returns the header it wrote.
func WriteGRB(ctx context.Context, w io.Writer, share graph.EdgeShare, directed, symmetric bool, idOffset int64) (GRBHeader, error) {
	labels, err := graph.RelabelLocal(ctx, share)
	if err != nil {
		return GRBHeader{}, err
	}
	h := GRBHeader{Vertices: labels.N, Tuples: labels.Edges, Directed: directed, Symmetric: symmetric, IDOffset: idOffset}
	gw, err := NewGRBWriter(w, h)
	if err != nil {
		return h, err
	}
	if err := gw.WriteIDs(labels.Original); err != nil {
		return h, err
	}
	buf := make([]uint64, graph.ScanChunk)
	err = share.Scan(ctx, func(es []graph.Edge) error {
		for len(es) > 0 {
			k := min(len(es), len(buf))
			if err := labels.Map(es[:k], buf[:k]); err != nil {
				return err
			}
			if err := gw.WriteTuples(buf[:k]); err != nil {
				return err
			}
			es = es[k:]
		}
		return nil
	})
	if err != nil {
		return h, fmt.Errorf("write graph: %w", err)
	}
	return h, gw.Close()
}

// WriteEdgeListOf writes the edges of share to w as an edge list in format
// (EdgeListText or EdgeListBinary) with idOffset added to every id, so
// that a Matrix Market input keeps its 1-based ids. count is the number of
// edges of share.
func WriteEdgeListOf(ctx context.Context, w io.Writer, share graph.EdgeShare, format string, count, idOffset int64) error {
	enc, err := NewEdgeListEncoder(w, format, count)
	if err != nil {
		return err
	}
	buf := make([]graph.Edge, graph.ScanChunk)
	err = share.Scan(ctx, func(es []graph.Edge) error {
		for len(es) > 0 {
			k := min(len(es), len(buf))
			for i, e := range es[:k] {
				buf[i] = graph.Edge{U: e.U + idOffset, V: e.V + idOffset}
			}
			if err := enc.Write(buf[:k]); err != nil {
				return err
			}
			es = es[k:]
		}
		return nil
	})
	if err != nil {
		return err
	}
	return enc.Close()
}

// ReadInputEntries reads the whole of in as ReadEntries does (a symmetric
// matrix's entries once; its EdgeFile says Symmetric): `graphrun
// convert`'s input. A stream is opened with OpenStream (stdin for "-"; a
// named FIFO, a device or a process substitution by its path). An input
// without a single edge is an error.
func ReadInputEntries(ctx context.Context, in *Input, stdin io.Reader) (*EdgeFile, error) {
	var ef *EdgeFile
	if in.Stream {
		rc, err := OpenStream(ctx, in.Path, stdin)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		if ef, err = ReadStreamEntries(ctx, rc, in.Path, in.Format); err != nil {
			return nil, err
		}
	} else {
		var err error
		if ef, err = ReadEntries(in.Path, in.Format); err != nil {
			return nil, err
		}
	}
	if len(ef.Edges) == 0 {
		return nil, fmt.Errorf("%s: no edges", in.Path)
	}
	return ef, nil
}

// WriteConverted writes ef to w as kind: "grb" (WriteGRB, keeping the
// symmetric flag) or an edge list, EdgeListText or EdgeListBinary
// (WriteEdgeListOf), with idOffset added to the ids. An edge list has no
// symmetric flag, so a symmetric input's edges (ef.Symmetric: a symmetric
// Matrix Market matrix, an undirected gapbs graph, a symmetric .grb) are
// written once each, as entries: an undirected view of the list counts
// the same tuples as of the input, and a directed reader sees one
// direction of each (docs/formats.md, "Counting edges"). It returns what
// it wrote, for a message: "T tuples" or "V vertices and T tuples".
func WriteConverted(ctx context.Context, w io.Writer, ef *EdgeFile, kind string, idOffset int64) (string, error) {
	if kind == "grb" {
		h, err := WriteGRB(ctx, w, graph.EdgeChunks{ef.Edges}, ef.Directed, ef.Symmetric, idOffset)
		return fmt.Sprintf("%d vertices and %d tuples", h.Vertices, h.Tuples), err
	}
	n := int64(len(ef.Edges))
	return fmt.Sprintf("%d tuples", n), WriteEdgeListOf(ctx, w, graph.EdgeChunks{ef.Edges}, kind, n, idOffset)
}
