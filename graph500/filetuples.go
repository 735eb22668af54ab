// A rank's share of a file's relabelled tuples as kernel 1 reads it: a
// graph.TupleSource read twice (count, then fill), as the Kronecker
// generator is, so that the share is never held in memory beside the CSR
// it builds (the Graph500 specification's kernel 1 input, a list of edge
// tuples). A .grb share is read straight from the file with positioned
// reads (grbTuples); any other input, parsed once to relabel and once to
// map its ids, is staged as 8-byte packed tuples in an unlinked temporary
// file (stagedTuples) that kernel 1 reads back. A directed search, whose
// kernel 1 sends the tuples in one exchange, keeps them in memory
// (packedTuples).

package graph500

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"unsafe"

	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
)

// stageChunk is the number of tuples a staged share decodes per
// positioned read.
const stageChunk = 1 << 14

// grbTuples is tuples [lo, hi) of a .grb file, read at every Read.
type grbTuples struct {
	g      *edgelist.GRB
	lo, hi int64
}

// Len returns the number of tuples.
func (t grbTuples) Len() int64 { return t.hi - t.lo }

// Read reads tuples [first, first+len(out)), checking their blocks' CRCs.
func (t grbTuples) Read(ctx context.Context, first int64, out []graph.Edge) error {
	if first < 0 || first+int64(len(out)) > t.Len() {
		return fmt.Errorf("graph500: read of tuples [%d, %d) from a share of %d", first, first+int64(len(out)), t.Len())
	}
	return t.g.ReadTuples(ctx, t.lo+first, out)
}

// stagedTuples is a share of packed tuples (u<<32 | v, uint64 in the
// machine's byte order: only this process reads them) in a temporary file
// that is unlinked as soon as it is created, so that nothing is left
// behind however the run ends; Close releases its space.
type stagedTuples struct {
	f       *os.File
	n       int64
	buffers sync.Pool // *[]uint64 of stageChunk tuples: Read allocates nothing once warm
}

// asBytes is the memory of xs as bytes (the staged file's layout).
func asBytes(xs []uint64) []byte {
	if len(xs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), 8*len(xs))
}

// Len returns the number of tuples.
func (s *stagedTuples) Len() int64 { return s.n }

// Read reads tuples [first, first+len(out)) back from the file. It is safe
// for concurrent use (the blocks of a rank read their parts at once).
func (s *stagedTuples) Read(ctx context.Context, first int64, out []graph.Edge) error {
	if first < 0 || first+int64(len(out)) > s.n {
		return fmt.Errorf("graph500: read of tuples [%d, %d) from a share of %d", first, first+int64(len(out)), s.n)
	}
	pb, _ := s.buffers.Get().(*[]uint64)
	if pb == nil {
		b := make([]uint64, stageChunk)
		pb = &b
	}
	defer s.buffers.Put(pb)
	for len(out) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(len(out), stageChunk)
		packed := (*pb)[:k]
		if _, err := s.f.ReadAt(asBytes(packed), 8*first); err != nil {
			return fmt.Errorf("reading back the staged tuples: %w", err)
		}
		for i, x := range packed {
			out[i] = graph.Edge{U: int64(x >> 32), V: int64(x & math.MaxUint32)}
		}
		out, first = out[k:], first+int64(k)
	}
	return nil
}

// Close closes (and so frees) the staging file.
func (s *stagedTuples) Close() error { return s.f.Close() }

// stagingFile creates an unlinked temporary file (os.TempDir, so TMPDIR
// chooses the disk) to stage what of name a share holds.
func stagingFile(name string) (*os.File, error) {
	f, err := os.CreateTemp("", "graphrun-tuples-*")
	if err != nil {
		return nil, fmt.Errorf("staging the tuples of %s: %w", name, err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("staging the tuples of %s: %w", name, err)
	}
	return f, nil
}

// stageTuples maps the edges of share through labels and stages them in
// a temporary file: 8 bytes of disk per tuple, a buffer of memory.
func stageTuples(ctx context.Context, share graph.EdgeShare, labels *graph.Labels, name string) (*stagedTuples, error) {
	f, err := stagingFile(name)
	if err != nil {
		return nil, err
	}
	s := &stagedTuples{f: f}
	w := bufio.NewWriterSize(f, 1<<20)
	packed := make([]uint64, graph.ScanChunk)
	err = share.Scan(ctx, func(es []graph.Edge) error { return s.stage(es, labels, packed, w) })
	if err == nil && s.n != labels.Edges {
		err = graph.ErrShareChanged
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read edges %s: %w", name, err)
	}
	return s, nil
}

// stage maps es through labels (packed is the buffer) and appends them to
// the staged file through w.
func (s *stagedTuples) stage(es []graph.Edge, labels *graph.Labels, packed []uint64, w io.Writer) error {
	for len(es) > 0 {
		k := min(len(es), len(packed))
		if s.n+int64(k) > labels.Edges {
			return graph.ErrShareChanged
		}
		if err := labels.Map(es[:k], packed[:k]); err != nil {
			return err
		}
		if _, err := w.Write(asBytes(packed[:k])); err != nil {
			return fmt.Errorf("staging the tuples (set TMPDIR to a disk with room for 8 bytes a tuple): %w", err)
		}
		s.n += int64(k)
		es = es[k:]
	}
	return nil
}

// openTuples is a share read from a file that it holds open until Close.
type openTuples struct {
	graph.TupleSource
	io.Closer
}

// spanTuples is tuples [lo, hi) of another source: a block's part of its
// rank's share.
type spanTuples struct {
	src    graph.TupleSource
	lo, hi int64
}

// Len returns the number of tuples.
func (s spanTuples) Len() int64 { return s.hi - s.lo }

// Read reads tuples [first, first+len(out)) of the span.
func (s spanTuples) Read(ctx context.Context, first int64, out []graph.Edge) error {
	if first < 0 || first+int64(len(out)) > s.Len() {
		return fmt.Errorf("graph500: read of tuples [%d, %d) from a part of %d", first, first+int64(len(out)), s.Len())
	}
	return s.src.Read(ctx, s.lo+first, out)
}

// packedOf returns the tuples of src packed u<<32 | v: src itself when it
// is held in memory, else read whole.
func packedOf(ctx context.Context, src graph.TupleSource) ([]uint64, error) {
	if p, ok := src.(packedTuples); ok {
		return p, nil
	}
	out := make([]uint64, src.Len())
	buf := make([]graph.Edge, min(stageChunk, src.Len()))
	for first := int64(0); first < src.Len(); first += int64(len(buf)) {
		chunk := buf[:min(int64(len(buf)), src.Len()-first)]
		if err := src.Read(ctx, first, chunk); err != nil {
			return nil, err
		}
		for i, e := range chunk {
			out[first+int64(i)] = uint64(e.U)<<32 | uint64(e.V)
		}
	}
	return out, nil
}
