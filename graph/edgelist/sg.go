// The reader of gapbs's serialized graphs (.sg, and .wsg with weights), so
// that gapbs users can bring theirs (gapbs's converter writes them;
// graphrun convert to a .el file goes the other way). The layout, as
// gapbs's writer.h (WriteSerializedGraph) and reader.h
// (ReadSerializedGraph) write and read it, on a little-endian machine:
//
//	size         field
//	1            directed, a C++ bool (0 or 1)
//	8            e: the out-neighbour entries, int64
//	8            n: the vertices, int64
//	8(n+1)       out-offsets, int64: vertex u's entries are [off[u], off[u+1])
//	4e or 8e     out-neighbours, int32 (.sg) or (int32 v, int32 weight) (.wsg)
//	the same two sections again for the in-neighbours when directed
//
// An undirected graph stores each edge in both directions (gapbs's builder
// drops self-loops and duplicates). The reader gives one edge (u, v) per
// out-entry, with gapbs's ids; a weight (gapbs's WeightT, an int32 in
// src/benchmark.h) is dropped, or read as the nearest float32 by a
// weighted read, which refuses a negative one. Reading entries (an
// undirected view, or convert) it gives an undirected graph's edge once,
// as the entry (u, v) with u ≤ v, and says the graph is symmetric: each
// edge then stands for both directions, as a symmetric Matrix Market
// entry does, so that the undirected view counts an edge of the .sg once,
// as it counts a line of the text it came from. A rank reads the offsets
// and its near-equal range of entries with positioned reads.

package edgelist

import (
	"encoding/binary"
	"math"

	"github.com/graphrun/graphrun/graph"
)

// sgHeaderSize is the size of the directed flag and the two counts.
const sgHeaderSize = 17

// readSG reads rank's share of the out-entries of a gapbs .sg/.wsg file.
func (s *edgeSource) readSG(rank, size int) (*edgeParser, error) {
	if s.gzipped || s.stream != nil {
		return nil, &EdgeListError{Name: s.name, Err: errGRBStream}
	}
	p := s.newParser()
	var h [sgHeaderSize]byte
	if n, _ := s.ra.ReadAt(h[:], 0); n < sgHeaderSize {
		return nil, grbError(s.name, int64(n), "truncated gapbs header: %d of %d bytes", n, sgHeaderSize)
	}
	if h[0] > 1 {
		return nil, grbError(s.name, 0, "directed flag %d: want 0 or 1 (not a gapbs serialized graph)", h[0])
	}
	directed := h[0] == 1
	e, n := int64(binary.LittleEndian.Uint64(h[1:])), int64(binary.LittleEndian.Uint64(h[9:]))
	width := int64(4)
	if s.format == EdgeFormatWSG {
		width = 8
	}
	if e < 0 || n < 0 || n > math.MaxInt32 || e > (math.MaxInt64/4-8*n)/width {
		return nil, grbError(s.name, 1, "%d entries of %d vertices: not a gapbs serialized graph", e, n)
	}
	part := 8*(n+1) + width*e
	want := sgHeaderSize + part
	if directed {
		want += part
	}
	if s.size != want {
		return nil, grbError(s.name, 1, "size mismatch: %d entries of %d vertices make a file of %d bytes, it has %d (.sg holds 4-byte entries, .wsg 8)", e, n, want, s.size)
	}
	offs := newSGOffsets(s.ra, s.name, sgHeaderSize, n) // read on demand: never the whole 8(n+1) bytes
	if err := offs.check(e, rank, size); err != nil {
		return nil, err
	}
	lo, hi := graph.ShareStart(e, rank, size), graph.ShareStart(e, rank+1, size)
	p.directedSet, p.directed, p.symmetric = true, directed, !directed
	half := !directed && s.entries // each undirected edge once: (u, v) with u ≤ v
	p.hintCapacity(12 * (hi - lo))
	u, err := offs.vertexOf(lo)
	if err != nil {
		return nil, err
	}
	next := offs.at(u + 1) // where the entries of the next vertex start
	base := sgHeaderSize + 8*(n+1)
	const chunk = 1 << 14
	buf := make([]byte, width*min(chunk, max(hi-lo, 1)))
	es := make([]graph.Edge, 0, chunk)
	var ws []float32 // a weighted read's: es[i]'s weight
	if p.weighted {
		ws = make([]float32, 0, chunk)
	}
	for i := lo; i < hi; {
		if err := s.checkCtx(); err != nil {
			return nil, err
		}
		k := min(hi-i, chunk)
		if _, err := s.ra.ReadAt(buf[:width*k], base+width*i); err != nil {
			return nil, grbError(s.name, base+width*i, "read error: %w", err)
		}
		es, ws = es[:0], ws[:0]
		for j := range k {
			for next <= i+j { // the offsets increase to e > i+j: u stays below n
				u++
				next = offs.at(u + 1)
			}
			v := int64(int32(binary.LittleEndian.Uint32(buf[width*j:])))
			if v < 0 || v >= n {
				return nil, grbError(s.name, base+width*(i+j), "entry %d: neighbour %d of vertex %d is outside [0, %d)", i+j, v, u, n)
			}
			if half && u > v {
				continue
			}
			es = append(es, graph.Edge{U: u, V: v})
			if p.weighted {
				w := int32(binary.LittleEndian.Uint32(buf[width*j+4:]))
				if w < 0 {
					return nil, grbError(s.name, base+width*(i+j)+4, "entry %d: negative weight %d of edge (%d, %d): shortest paths need weights ≥ 0", i+j, w, u, v)
				}
				ws = append(ws, float32(w))
			}
		}
		if err := offs.Err(); err != nil {
			return nil, err
		}
		p.addEdges(es, ws)
		if err := p.flushFull(); err != nil {
			return nil, err
		}
		i += k
	}
	return p, nil
}
