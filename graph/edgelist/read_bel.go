// The reader of graphrun's binary edge list, .bel (edgelist_write.go): a
// file's share is read by tuple range with positioned reads; a gzipped
// .bel or a stream is decoded front to back, keeping the share's tuples.

package edgelist

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/graphrun/graphrun/graph"
)

// readBinary reads rank's share of the tuples of a .bel file.
func (s *edgeSource) readBinary(rank, size int) (*edgeParser, error) {
	p := s.newParser()
	if s.gzipped || s.stream != nil {
		r := s.stream
		if s.gzipped {
			var err error
			if r, err = s.gunzip(); err != nil {
				return nil, err
			}
		}
		// The share follows the header's count: peek at it. A count that
		// disagrees with the data fails the decoder on every rank.
		var count, idx, lo, hi int64
		bb := bufio.NewReaderSize(r, s.bufSize)
		if hdr, err := bb.Peek(edgeListHeaderSize); err == nil && string(hdr[:8]) == EdgeListMagic {
			count = int64(min(binary.LittleEndian.Uint64(hdr[8:]), math.MaxInt64/2))
		}
		lo, hi = graph.ShareStart(count, rank, size), graph.ShareStart(count, rank+1, size)
		err := decodeBinaryEdgeList(bb, s.name, func(es []graph.Edge) error {
			if err := s.checkCtx(); err != nil {
				return err
			}
			a, b := max(lo-idx, 0), min(hi-idx, int64(len(es)))
			if a < b {
				p.addEdges(es[a:b], nil)
			}
			idx += int64(len(es))
			return p.flushFull()
		})
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	var hdr [edgeListHeaderSize]byte
	if n, _ := s.ra.ReadAt(hdr[:], 0); n < edgeListHeaderSize {
		return nil, &EdgeListError{Name: s.name, Offset: int64(n), Err: fmt.Errorf("truncated header: %d of %d bytes", n, edgeListHeaderSize)}
	}
	if string(hdr[:8]) != EdgeListMagic {
		return nil, &EdgeListError{Name: s.name, Err: fmt.Errorf("bad magic %q, want %q", hdr[:8], EdgeListMagic)}
	}
	count := binary.LittleEndian.Uint64(hdr[8:])
	if have := uint64(s.size-edgeListHeaderSize) / 16; count != have || (s.size-edgeListHeaderSize)%16 != 0 {
		return nil, &EdgeListError{Name: s.name, Offset: 8, Err: fmt.Errorf(
			"count mismatch: header says %d tuples, the file holds %d tuples and %d bytes", count, have, (s.size-edgeListHeaderSize)%16)}
	}
	lo, hi := graph.ShareStart(int64(count), rank, size), graph.ShareStart(int64(count), rank+1, size)
	p.hintCapacity(16 * (hi - lo))
	r := io.NewSectionReader(s.ra, edgeListHeaderSize+16*lo, 16*(hi-lo))
	err := decodeBinaryEdgeList(io.MultiReader(bytes.NewReader(binaryHeader(hi-lo)), r), s.name, func(es []graph.Edge) error {
		if err := s.checkCtx(); err != nil {
			return err
		}
		p.addEdges(es, nil)
		return p.flushFull()
	})
	if err != nil {
		var ele *EdgeListError
		if errors.As(err, &ele) && ele.Offset >= edgeListHeaderSize {
			ele.Offset += 16 * lo // make the offset global
		}
		return nil, err
	}
	return p, nil
}

// binaryHeader returns the .bel header of a list of count tuples.
func binaryHeader(count int64) []byte {
	return binary.LittleEndian.AppendUint64([]byte(EdgeListMagic), uint64(count))
}

// decodeBatch is the number of tuples decodeBinaryEdgeList passes to emit at once.
const decodeBatch = 1 << 14

// decodeBinaryEdgeList decodes a whole .bel stream from r, passing the
// tuples to emit in batches of decodeBatch (only valid during the call).
func decodeBinaryEdgeList(r io.Reader, name string, emit func([]graph.Edge) error) error {
	var hdr [edgeListHeaderSize]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return &EdgeListError{Name: name, Offset: int64(n), Err: fmt.Errorf("truncated header: %d of %d bytes", n, edgeListHeaderSize)}
		}
		return &EdgeListError{Name: name, Offset: int64(n), Err: err}
	}
	if string(hdr[:8]) != EdgeListMagic {
		return &EdgeListError{Name: name, Offset: 0, Err: fmt.Errorf("bad magic %q, want %q", hdr[:8], EdgeListMagic)}
	}
	count := binary.LittleEndian.Uint64(hdr[8:])
	if count > (math.MaxInt64-edgeListHeaderSize)/16 {
		return &EdgeListError{Name: name, Offset: 8, Err: fmt.Errorf("tuple count %d too large", count)}
	}
	off := int64(edgeListHeaderSize)
	buf := make([]byte, 16*min(count, decodeBatch))
	batch := make([]graph.Edge, 0, min(count, decodeBatch))
	for done := uint64(0); done < count; {
		k := min(count-done, decodeBatch)
		n, err := io.ReadFull(r, buf[:16*k])
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return &EdgeListError{Name: name, Offset: off + int64(n), Err: fmt.Errorf(
					"truncated: header says %d tuples, data ends after %d and %d bytes", count, done+uint64(n/16), n%16)}
			}
			return &EdgeListError{Name: name, Offset: off + int64(n), Err: err}
		}
		batch = batch[:0]
		for i := range int(k) {
			rec := buf[16*i : 16*i+16]
			u := int64(binary.LittleEndian.Uint64(rec[:8]))
			v := int64(binary.LittleEndian.Uint64(rec[8:]))
			if u|v < 0 {
				return &EdgeListError{Name: name, Offset: off + int64(16*i), Err: fmt.Errorf(
					"tuple %d (%d, %d): negative vertex id", done+uint64(i), u, v)}
			}
			batch = append(batch, graph.Edge{U: u, V: v})
		}
		if err := emit(batch); err != nil {
			return err
		}
		done += k
		off += int64(16 * k)
	}
	// The header's count must account for the whole file.
	var extra [1]byte
	switch n, err := io.ReadFull(r, extra[:]); {
	case n > 0:
		return &EdgeListError{Name: name, Offset: off, Err: fmt.Errorf("count mismatch: data continues after the %d tuples the header announces", count)}
	case errors.Is(err, io.EOF):
		return nil
	default:
		return &EdgeListError{Name: name, Offset: off, Err: err}
	}
}
