// graphrun's binary graph, .grb (what `graphrun convert` and `graphrun
// generate` write to a .grb file): a graph relabelled once, so that every
// later run reads its share with positioned reads and no parsing. It
// serves the edge-list runs of Kylix §VII (PageRank) and of graphrun
// bfs FILE, whose relabelling (package graph's labels.go) it stores.
//
// # Layout (version 1)
//
// All integers are little-endian.
//
//	offset  size  field
//	0       8     magic "GRUNGRPH"
//	8       4     version, 1
//	12      4     flags: bit 0 set = the tuples are directed edges (a text
//	              edge list, a directed gapbs graph); clear = the graph is
//	              undirected (a Kronecker graph, or a symmetric Matrix
//	              Market matrix, whose tuples hold both directions of each
//	              stored entry). Bit 1 set = symmetric: the tuples are a
//	              symmetric matrix's entries, each (u, v), u ≠ v, standing
//	              also for (v, u); the edge readers give both, as for the
//	              Matrix Market file, and an undirected view (bfs) counts
//	              the entry once, as a line of that file. Other bits must
//	              be 0; bit 1 needs bit 0 clear.
//	16      8     vertices n (≤ 2^32): the distinct ids of the input
//	24      8     tuples m: the input's edges, duplicates and self-loops kept
//	32      8     id offset: what outputs add to the ids (1 for a Matrix
//	              Market input, whose ids are 1-based), 0 or 1
//	40      4     block size B in bytes (a power of two, 2^12 to 2^30)
//	44      16    zero
//	60      4     CRC-32C (Castagnoli) of bytes 0..59
//	64      8n    ids section: the original id of dense vertex 0..n−1, as
//	              int64, strictly increasing and non-negative
//	64+8n   8m    tuples section: m tuples (u, v) of dense ids, uint32 each,
//	              in the input's order
//	...     4k+4  checksums: the CRC-32C of each B-byte block of the ids
//	              section, then of each block of the tuples section (the
//	              last block of a section may be short; an empty section
//	              has none), then the CRC-32C of this table
//
// Nothing follows. A reader checks the header's CRC and the table's, then
// the CRC of every block it reads: a rank reading tuples [lo, hi) reads
// and checks only the blocks that hold them, and only the ids it needs.
//
// gapbs's serialized graphs (.sg, .wsg) are read by sg.go.

package edgelist

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"os"
	"sync"

	"github.com/graphrun/graphrun/graph"
)

// GRBMagic opens every .grb file.
const GRBMagic = "GRUNGRPH"

// GRBVersion is the version of the layout GRB reads and writes.
const GRBVersion = 1

const (
	grbHeaderSize = 64
	grbBlock      = 1 << 20 // the block size the writer uses
	grbFlagDir    = 1
	grbFlagSym    = 2
)

// castagnoli is the CRC-32C table (crc32 caches it).
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// GRBHeader is what a .grb file says of its graph.
type GRBHeader struct {
	Vertices int64 // n: dense ids 0..n−1
	Tuples   int64 // m
	Directed bool
	// Symmetric: each tuple (u, v), u ≠ v, also stands for (v, u) (a
	// symmetric Matrix Market matrix's entries). Not with Directed.
	Symmetric bool
	IDOffset  int64 // 0, or 1 for a Matrix Market input
}

// GRB is an open .grb file, its header and checksum table checked.
type GRB struct {
	GRBHeader
	name  string
	ra    io.ReaderAt
	block int64
	crcs  []uint32 // ids blocks, then tuples blocks
	idBlk int64    // number of ids blocks
	// scratch holds *grbScratch buffers of ScanTuples, which a caller
	// reading many ranges (kernel 1, a round at a time) reuses instead of
	// allocating a block per call.
	scratch sync.Pool
}

// grbScratch is ScanTuples' buffers: a block, and its tuples unpacked.
type grbScratch struct {
	buf    []byte
	packed []uint64
}

// grbError is a defect of a .grb file at a byte offset.
func grbError(name string, off int64, format string, args ...any) error {
	return &EdgeListError{Name: name, Offset: off, Err: fmt.Errorf(format, args...)}
}

// blocks returns the number of block-byte blocks of a section of n bytes.
func blocks(n, block int64) int64 { return (n + block - 1) / block }

// NewGRB checks the header and checksum table of the .grb file of size
// bytes that ra reads; name names it in errors (*EdgeListError with the
// byte offset of the defect).
func NewGRB(ra io.ReaderAt, size int64, name string) (*GRB, error) {
	var h [grbHeaderSize]byte
	if n, _ := ra.ReadAt(h[:], 0); int64(n) < grbHeaderSize {
		return nil, grbError(name, int64(n), "truncated header: %d of %d bytes", n, grbHeaderSize)
	}
	le := binary.LittleEndian
	switch {
	case string(h[:8]) != GRBMagic:
		return nil, grbError(name, 0, "bad magic %q, want %q: not a graphrun binary graph", h[:8], GRBMagic)
	case le.Uint32(h[8:]) != GRBVersion:
		return nil, grbError(name, 8, "version %d, this graphrun reads version %d", le.Uint32(h[8:]), GRBVersion)
	case crc32.Checksum(h[:60], castagnoli()) != le.Uint32(h[60:]):
		return nil, grbError(name, 60, "header checksum mismatch: the header is corrupt")
	}
	g := &GRB{name: name, ra: ra}
	flags := le.Uint32(h[12:])
	n, m, off, block := le.Uint64(h[16:]), le.Uint64(h[24:]), le.Uint64(h[32:]), int64(le.Uint32(h[40:]))
	switch {
	case flags&^(grbFlagDir|grbFlagSym) != 0 || flags == grbFlagDir|grbFlagSym:
		return nil, grbError(name, 12, "unknown flags %#x", flags)
	case n > graph.MaxLabelledVertices:
		return nil, grbError(name, 16, "%d vertices: more than 2^32", n)
	case m > (math.MaxInt64-grbHeaderSize)/16:
		return nil, grbError(name, 24, "tuple count %d too large", m)
	case off > 1:
		return nil, grbError(name, 32, "id offset %d: want 0 or 1", off)
	case block < 1<<12 || block > 1<<30 || bits.OnesCount64(uint64(block)) != 1:
		return nil, grbError(name, 40, "block size %d: want a power of two from 2^12 to 2^30", block)
	}
	g.Vertices, g.Tuples, g.IDOffset, g.block = int64(n), int64(m), int64(off), block
	g.Directed, g.Symmetric = flags&grbFlagDir != 0, flags&grbFlagSym != 0
	g.idBlk = blocks(8*g.Vertices, block)
	k := g.idBlk + blocks(8*g.Tuples, block)
	want := grbHeaderSize + 8*g.Vertices + 8*g.Tuples + 4*k + 4
	if size != want {
		return nil, grbError(name, 16, "size mismatch: %d vertices and %d tuples make a file of %d bytes, it has %d", n, m, want, size)
	}
	tab := make([]byte, 4*k+4)
	tabOff := want - int64(len(tab))
	if _, err := ra.ReadAt(tab, tabOff); err != nil {
		return nil, grbError(name, tabOff, "reading the checksum table: %w", err)
	}
	if crc32.Checksum(tab[:4*k], castagnoli()) != le.Uint32(tab[4*k:]) {
		return nil, grbError(name, tabOff, "checksum table corrupt")
	}
	g.crcs = make([]uint32, k)
	for i := range g.crcs {
		g.crcs[i] = le.Uint32(tab[4*i:])
	}
	return g, nil
}

// OpenGRB opens and checks the .grb file at path (NewGRB); the caller
// closes the returned closer when done with the GRB.
func OpenGRB(path string) (*GRB, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read graph: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read graph: %w", err)
	}
	g, err := NewGRB(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return g, f, nil
}

// readSection reads bytes [lo, hi) of a section (ids: first block 0,
// tuples: first block g.idBlk) that starts at file offset base, checking
// the CRC of every block it touches, and hands them to fn a block at a
// time. buf is a scratch buffer of a block (or of the section, if
// shorter).
func (g *GRB) readSection(ctx context.Context, base, secLen, firstBlk, lo, hi int64, buf []byte, fn func([]byte) error) error {
	for b := lo / g.block; b*g.block < hi; b++ {
		if ctx != nil {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("read %s: %w", g.name, err)
			}
		}
		start := b * g.block
		end := min(start+g.block, secLen)
		blk := buf[:end-start]
		if _, err := g.ra.ReadAt(blk, base+start); err != nil {
			return grbError(g.name, base+start, "read error: %w", err)
		}
		if crc32.Checksum(blk, castagnoli()) != g.crcs[firstBlk+b] {
			return grbError(g.name, base+start, "block checksum mismatch: the file is corrupt")
		}
		a, z := max(lo, start)-start, min(hi, end)-start
		if err := fn(blk[a:z]); err != nil {
			return err
		}
	}
	return nil
}

// ReadIDs writes the original ids of dense vertices [first,
// first+len(out)) to out.
func (g *GRB) ReadIDs(ctx context.Context, first int64, out []int64) error {
	if first < 0 || first+int64(len(out)) > g.Vertices {
		return fmt.Errorf("read %s: ids [%d, %d) of %d", g.name, first, first+int64(len(out)), g.Vertices)
	}
	buf := make([]byte, min(g.block, 8*g.Vertices))
	i := 0
	prev := int64(-1)
	return g.readSection(ctx, grbHeaderSize, 8*g.Vertices, 0, 8*first, 8*(first+int64(len(out))), buf, func(b []byte) error {
		for j := 0; j+8 <= len(b); j += 8 {
			x := int64(binary.LittleEndian.Uint64(b[j:]))
			if x < 0 || x <= prev {
				return grbError(g.name, grbHeaderSize+8*(first+int64(i)), "id %d of dense vertex %d: the ids must be non-negative and increasing", x, first+int64(i))
			}
			out[i], prev = x, x
			i++
		}
		return nil
	})
}

// ScanTuples hands tuples [lo, hi) to fn as dense ids packed u<<32 | v, a
// block at a time (the slice is only valid during the call). A dense id
// not below the vertex count is an error.
func (g *GRB) ScanTuples(ctx context.Context, lo, hi int64, fn func([]uint64) error) error {
	if err := g.checkRange(lo, hi); err != nil {
		return err
	}
	sc := g.getScratch()
	defer g.scratch.Put(sc)
	base := grbHeaderSize + 8*g.Vertices
	idx := lo
	n := uint64(g.Vertices)
	return g.readSection(ctx, base, 8*g.Tuples, g.idBlk, 8*lo, 8*hi, sc.buf, func(b []byte) error {
		out := sc.packed[:len(b)/8]
		for j := range out {
			u, v := binary.LittleEndian.Uint32(b[8*j:]), binary.LittleEndian.Uint32(b[8*j+4:])
			if uint64(u) >= n || uint64(v) >= n {
				return g.badTuple(idx+int64(j), u, v)
			}
			out[j] = uint64(u)<<32 | uint64(v)
		}
		idx += int64(len(out))
		return fn(out)
	})
}

// ReadTuples writes tuples [first, first+len(out)) to out as edges of
// dense ids, with ScanTuples' checks and no copy between: what a reader of
// a range a chunk at a time (kernel 1) wants. It allocates nothing once a
// scratch block exists.
func (g *GRB) ReadTuples(ctx context.Context, first int64, out []graph.Edge) error {
	if err := g.checkRange(first, first+int64(len(out))); err != nil {
		return err
	}
	sc := g.getScratch()
	defer g.scratch.Put(sc)
	base := grbHeaderSize + 8*g.Vertices
	idx := first
	n := uint64(g.Vertices)
	return g.readSection(ctx, base, 8*g.Tuples, g.idBlk, 8*first, 8*(first+int64(len(out))), sc.buf, func(b []byte) error {
		es := out[:len(b)/8]
		for j := range es {
			x := binary.LittleEndian.Uint64(b[8*j:]) // u in the low half, v in the high
			u, v := x&math.MaxUint32, x>>32
			if max(u, v) >= n {
				return g.badTuple(idx+int64(j), uint32(u), uint32(v))
			}
			es[j] = graph.Edge{U: int64(u), V: int64(v)}
		}
		idx += int64(len(es))
		out = out[len(es):]
		return nil
	})
}

// checkRange rejects a range [lo, hi) that is not of the file's tuples.
func (g *GRB) checkRange(lo, hi int64) error {
	if lo < 0 || hi > g.Tuples || lo > hi {
		return fmt.Errorf("read %s: tuples [%d, %d) of %d", g.name, lo, hi, g.Tuples)
	}
	return nil
}

// badTuple is the error of tuple i, (u, v), with an id not below the
// vertex count.
func (g *GRB) badTuple(i int64, u, v uint32) error {
	return grbError(g.name, grbHeaderSize+8*g.Vertices+8*i, "tuple %d (%d, %d): a dense id not below the %d vertices", i, u, v, g.Vertices)
}

// getScratch returns a scratch block of ScanTuples and ReadTuples.
func (g *GRB) getScratch() *grbScratch {
	sc, _ := g.scratch.Get().(*grbScratch)
	if sc == nil {
		sc = &grbScratch{buf: make([]byte, min(g.block, 8*g.Tuples))}
		sc.packed = make([]uint64, len(sc.buf)/8)
	}
	return sc
}

// GRBWriter writes a .grb file front to back on any writer (internal/output
// makes a file of it atomically): the header, the ids, the tuples, then the
// checksum table. The counts are given first; Close fails if the ids or
// tuples written do not match them.
type GRBWriter struct {
	w         io.Writer
	h         GRBHeader
	crcs      []uint32
	cur       []byte // the block being filled
	ids, tups int64
	lastID    int64
	err       error
}

// NewGRBWriter writes the header of h on w.
func NewGRBWriter(w io.Writer, h GRBHeader) (*GRBWriter, error) {
	switch {
	case h.Vertices < 0 || h.Vertices > graph.MaxLabelledVertices:
		return nil, fmt.Errorf("write graph: %d vertices: want 0..2^32", h.Vertices)
	case h.Tuples < 0 || h.IDOffset < 0 || h.IDOffset > 1 || h.Directed && h.Symmetric:
		return nil, fmt.Errorf("write graph: %d tuples, id offset %d, directed %v and symmetric %v", h.Tuples, h.IDOffset, h.Directed, h.Symmetric)
	}
	var hdr [grbHeaderSize]byte
	le := binary.LittleEndian
	copy(hdr[:], GRBMagic)
	le.PutUint32(hdr[8:], GRBVersion)
	var flags uint32
	if h.Directed {
		flags |= grbFlagDir
	}
	if h.Symmetric {
		flags |= grbFlagSym
	}
	le.PutUint32(hdr[12:], flags)
	le.PutUint64(hdr[16:], uint64(h.Vertices))
	le.PutUint64(hdr[24:], uint64(h.Tuples))
	le.PutUint64(hdr[32:], uint64(h.IDOffset))
	le.PutUint32(hdr[40:], grbBlock)
	le.PutUint32(hdr[60:], crc32.Checksum(hdr[:60], castagnoli()))
	if _, err := w.Write(hdr[:]); err != nil {
		return nil, fmt.Errorf("write graph: %w", err)
	}
	return &GRBWriter{w: w, h: h, cur: make([]byte, 0, grbBlock), lastID: -1}, nil
}

// put appends b to the current section's block, writing full blocks.
func (gw *GRBWriter) put(b []byte) error {
	for len(b) > 0 {
		k := min(len(b), grbBlock-len(gw.cur))
		gw.cur = append(gw.cur, b[:k]...)
		b = b[k:]
		if len(gw.cur) == grbBlock {
			if err := gw.endBlock(); err != nil {
				return err
			}
		}
	}
	return nil
}

// endBlock writes the current block, if any, and records its CRC.
func (gw *GRBWriter) endBlock() error {
	if len(gw.cur) == 0 {
		return nil
	}
	gw.crcs = append(gw.crcs, crc32.Checksum(gw.cur, castagnoli()))
	_, err := gw.w.Write(gw.cur)
	gw.cur = gw.cur[:0]
	if err != nil {
		return fmt.Errorf("write graph: %w", err)
	}
	return nil
}

// WriteIDs appends original ids (strictly increasing, non-negative).
func (gw *GRBWriter) WriteIDs(ids []int64) error {
	if gw.err != nil {
		return gw.err
	}
	if gw.tups > 0 || gw.ids+int64(len(ids)) > gw.h.Vertices {
		gw.err = fmt.Errorf("write graph: ids after tuples, or more than the %d announced", gw.h.Vertices)
		return gw.err
	}
	var b [8]byte
	for _, x := range ids {
		if x <= gw.lastID {
			gw.err = fmt.Errorf("write graph: id %d after %d: ids must be non-negative and increasing", x, gw.lastID)
			return gw.err
		}
		gw.lastID = x
		binary.LittleEndian.PutUint64(b[:], uint64(x))
		if gw.err = gw.put(b[:]); gw.err != nil {
			return gw.err
		}
	}
	gw.ids += int64(len(ids))
	return nil
}

// WriteTuples appends tuples of dense ids packed u<<32 | v, after all ids.
func (gw *GRBWriter) WriteTuples(packed []uint64) error {
	if gw.err != nil {
		return gw.err
	}
	if gw.ids != gw.h.Vertices || gw.tups+int64(len(packed)) > gw.h.Tuples {
		gw.err = fmt.Errorf("write graph: tuples before the %d ids, or more than the %d announced", gw.h.Vertices, gw.h.Tuples)
		return gw.err
	}
	if gw.tups == 0 {
		if gw.err = gw.endBlock(); gw.err != nil { // the ids section's last block
			return gw.err
		}
	}
	var b [8]byte
	n := uint64(gw.h.Vertices)
	for _, k := range packed {
		u, v := k>>32, k&math.MaxUint32
		if u >= n || v >= n {
			gw.err = fmt.Errorf("write graph: tuple (%d, %d) beyond the %d vertices", u, v, n)
			return gw.err
		}
		binary.LittleEndian.PutUint32(b[:], uint32(u))
		binary.LittleEndian.PutUint32(b[4:], uint32(v))
		if gw.err = gw.put(b[:]); gw.err != nil {
			return gw.err
		}
	}
	gw.tups += int64(len(packed))
	return nil
}

// Close writes the checksum table once every id and tuple announced was
// written. It does not close the writer.
func (gw *GRBWriter) Close() error {
	if gw.err != nil {
		return gw.err
	}
	if gw.ids != gw.h.Vertices || gw.tups != gw.h.Tuples {
		return fmt.Errorf("write graph: %d ids and %d tuples written, %d and %d announced", gw.ids, gw.tups, gw.h.Vertices, gw.h.Tuples)
	}
	if err := gw.endBlock(); err != nil {
		return err
	}
	tab := make([]byte, 0, 4*len(gw.crcs)+4)
	for _, c := range gw.crcs {
		tab = binary.LittleEndian.AppendUint32(tab, c)
	}
	tab = binary.LittleEndian.AppendUint32(tab, crc32.Checksum(tab, castagnoli()))
	if _, err := gw.w.Write(tab); err != nil {
		return fmt.Errorf("write graph: %w", err)
	}
	return nil
}

// errGRBStream is the error of a .grb or .sg input that is a stream or
// gzipped: its shares are read with positioned reads.
var errGRBStream = errors.New("a binary graph is read with positioned reads: give a regular, uncompressed file")

// readGRB reads rank's share of the tuples of a .grb file as edges with
// their original ids (the whole id map is read once per pass); a
// symmetric graph's tuple (u, v), u ≠ v, gives (v, u) right after it,
// unless the source reads entries.
func (s *edgeSource) readGRB(rank, size int) (*edgeParser, error) {
	if s.gzipped || s.stream != nil {
		return nil, &EdgeListError{Name: s.name, Err: errGRBStream}
	}
	g, err := NewGRB(s.ra, s.size, s.name)
	if err != nil {
		return nil, err
	}
	p := s.newParser()
	p.directedSet, p.directed, p.symmetric = true, g.Directed, g.Symmetric
	mirror := g.Symmetric && !s.entries
	ids := make([]int64, g.Vertices)
	if err := g.ReadIDs(s.ctx, 0, ids); err != nil {
		return nil, err
	}
	lo, hi := graph.ShareStart(g.Tuples, rank, size), graph.ShareStart(g.Tuples, rank+1, size)
	p.hintCapacity(12 * (hi - lo))
	var es []graph.Edge
	err = g.ScanTuples(s.ctx, lo, hi, func(packed []uint64) error {
		es = es[:0]
		for _, k := range packed {
			u, v := ids[k>>32], ids[k&math.MaxUint32]
			es = append(es, graph.Edge{U: u, V: v})
			if mirror && u != v {
				es = append(es, graph.Edge{U: v, V: u})
			}
		}
		p.addEdges(es, nil)
		return p.flushFull()
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}
