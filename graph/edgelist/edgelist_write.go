// This file holds the edge-list file formats that `graphrun generate`
// writes to a file: their streaming writer, which never leaves a half-written output
// file. They are read by the one edge-list reader (read.go: ReadEdges,
// ReadEdgesRange, FileShare), whose .el grammar is SNAP text's.
//
// Two formats exist, chosen from the file extension unless given explicitly:
//
//   - text, ".el": one tuple per line, "u v\n", as non-negative decimal
//     integers separated by spaces or tabs. When read, blank lines are
//     skipped and '#' starts a comment that runs to the end of the line.
//   - binary, ".bel": a 16-byte header, the magic "GRUNEL01" then the tuple
//     count as a little-endian uint64, followed by that many tuples of two
//     little-endian int64 (u, then v). Nothing may follow the last tuple.
//
// Vertex ids are global and non-negative; duplicates and self-loops are
// ordinary tuples and are written and read as such.

package edgelist

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/graphrun/graphrun/graph"
)

// EdgeListMagic opens every binary edge-list file.
const EdgeListMagic = "GRUNEL01"

// edgeListHeaderSize is the size of the binary header: magic and count.
const edgeListHeaderSize = 16

// Edge-list format names, as accepted by CreateEdgeList, WriteEdgeList and
// ReadEdgeList. EdgeListAuto picks the format from the file name.
const (
	EdgeListAuto   = ""
	EdgeListText   = "el"
	EdgeListBinary = "bel"
)

// edgeListFormat resolves a format name (also "text" and "binary", and "" or
// "auto" for the extension of path) to EdgeListText or EdgeListBinary.
func edgeListFormat(path, format string) (string, error) {
	switch strings.ToLower(format) {
	case "el", "text":
		return EdgeListText, nil
	case "bel", "binary":
		return EdgeListBinary, nil
	case "", "auto":
		switch strings.ToLower(filepath.Ext(path)) {
		case ".el":
			return EdgeListText, nil
		case ".bel":
			return EdgeListBinary, nil
		}
		return "", fmt.Errorf("%s: cannot tell the edge-list format from the extension %q; use .el (text) or .bel (binary), or name the format", path, filepath.Ext(path))
	}
	return "", fmt.Errorf("unknown edge-list format %q: want %q (text), %q (binary) or %q (from the file extension)", format, EdgeListText, EdgeListBinary, "auto")
}

// EdgeListError is a malformed edge list: the file name and, for text, the
// 1-based line or, for binary, the byte offset where the problem is.
type EdgeListError struct {
	Name   string // file name, as given to the decoder
	Line   int64  // text: 1-based line number; 0 for binary
	Offset int64  // binary: byte offset; unused for text
	Err    error  // what is wrong
}

func (e *EdgeListError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: offset %d: %v", e.Name, e.Offset, e.Err)
}

func (e *EdgeListError) Unwrap() error { return e.Err }

// edgeListBufSize is the size of the file buffers (1 MiB).
const edgeListBufSize = 1 << 20

// EdgeListWriter writes an edge-list file through a temporary file in the same
// directory, renamed over the destination only by a successful Close: the
// destination never holds a partial list. Use it as
//
//	w, err := graph.CreateEdgeList(path, graph.EdgeListAuto)
//	if err != nil { … }
//	defer w.Abort()
//	for … { if err := w.Write(chunk); err != nil { return err } }
//	return w.Close()
//
// An EdgeListWriter is not safe for concurrent use.
type EdgeListWriter struct {
	path   string // destination
	tmp    string // temporary file, renamed to path by Close
	f      *os.File
	w      *bufio.Writer
	binary bool
	n      int64  // tuples written
	buf    []byte // encoding scratch, reused
	err    error  // first error; every later call returns it
	closed bool
}

// CreateEdgeList starts writing the edge list at path in the given format
// (EdgeListText, EdgeListBinary or EdgeListAuto; "text" and "binary" are
// accepted too). The file is created with mode 0644 when Close succeeds.
func CreateEdgeList(path, format string) (*EdgeListWriter, error) {
	fmtName, err := edgeListFormat(path, format)
	if err != nil {
		return nil, fmt.Errorf("create edge list: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create edge list %s: %w", path, err)
	}
	w := &EdgeListWriter{
		path:   path,
		tmp:    f.Name(),
		f:      f,
		w:      bufio.NewWriterSize(f, edgeListBufSize),
		binary: fmtName == EdgeListBinary,
		buf:    make([]byte, 0, 64<<10),
	}
	if w.binary {
		// The count is patched in by Close.
		var hdr [edgeListHeaderSize]byte
		copy(hdr[:], EdgeListMagic)
		if _, err := w.w.Write(hdr[:]); err != nil {
			w.fail(err)
			return nil, w.err
		}
	}
	return w, nil
}

// fail records err as the writer's error and removes the temporary file.
func (w *EdgeListWriter) fail(err error) error {
	if w.err == nil {
		w.err = fmt.Errorf("write edge list %s: %w", w.path, err)
	}
	w.discard()
	return w.err
}

// discard closes and removes the temporary file, once.
func (w *EdgeListWriter) discard() {
	if w.f != nil {
		w.f.Close()
		os.Remove(w.tmp)
		w.f = nil
	}
}

// Write appends edges to the list. Vertex ids must be non-negative.
func (w *EdgeListWriter) Write(edges []graph.Edge) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("write edge list %s: writer already closed", w.path)
	}
	for i, e := range edges {
		if e.U|e.V < 0 {
			return w.fail(fmt.Errorf("tuple %d (%d, %d): negative vertex id", w.n+int64(i), e.U, e.V))
		}
	}
	// Encode in pieces so the scratch buffer stays small.
	const piece = 2048 // tuples: at most 2048·42 bytes of text
	for len(edges) > 0 {
		k := min(len(edges), piece)
		if w.binary {
			w.buf = appendBinaryEdges(w.buf[:0], edges[:k])
		} else {
			w.buf = appendTextEdges(w.buf[:0], edges[:k])
		}
		if _, err := w.w.Write(w.buf); err != nil {
			return w.fail(err)
		}
		w.n += int64(k)
		edges = edges[k:]
	}
	return nil
}

// Count returns the number of tuples written so far.
func (w *EdgeListWriter) Count() int64 { return w.n }

// Close completes the file: it flushes the buffer, fills in the binary
// header's count, syncs the file to disk and renames it to the destination,
// replacing any file there. On any error, now or before, the temporary file
// is removed, the destination is left untouched, and the error is returned.
func (w *EdgeListWriter) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return nil
	}
	w.closed = true
	if err := w.w.Flush(); err != nil {
		return w.fail(err)
	}
	if w.binary {
		var cnt [8]byte
		binary.LittleEndian.PutUint64(cnt[:], uint64(w.n))
		if _, err := w.f.WriteAt(cnt[:], int64(len(EdgeListMagic))); err != nil {
			return w.fail(err)
		}
	}
	if err := w.f.Chmod(0o644); err != nil {
		return w.fail(err)
	}
	if err := w.f.Sync(); err != nil {
		return w.fail(err)
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		os.Remove(w.tmp)
		return w.fail(err)
	}
	if err := os.Rename(w.tmp, w.path); err != nil {
		os.Remove(w.tmp)
		return w.fail(err)
	}
	return nil
}

// Abort abandons the file: the temporary file is removed and the destination
// left untouched. It does nothing after a successful Close, so it can be
// deferred right after CreateEdgeList.
func (w *EdgeListWriter) Abort() {
	if w.closed && w.err == nil {
		return
	}
	w.closed = true
	if w.err == nil {
		w.err = fmt.Errorf("write edge list %s: aborted", w.path)
	}
	w.discard()
}

// WriteEdgeList writes the edge list at path in the given format (see
// CreateEdgeList). edges is called once and passes the tuples, in order and
// in as many slices as it likes, to yield; an error from yield (or from
// edges itself) stops the writing. The file appears at path only if
// everything succeeded.
func WriteEdgeList(path, format string, edges func(yield func([]graph.Edge) error) error) error {
	w, err := CreateEdgeList(path, format)
	if err != nil {
		return err
	}
	defer w.Abort()
	if err := edges(w.Write); err != nil {
		if w.err != nil && errors.Is(err, w.err) {
			return err
		}
		return fmt.Errorf("write edge list %s: %w", path, err)
	}
	return w.Close()
}

// appendTextEdges appends the text lines of edges to buf.
func appendTextEdges(buf []byte, edges []graph.Edge) []byte {
	for _, e := range edges {
		buf = strconv.AppendInt(buf, e.U, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, e.V, 10)
		buf = append(buf, '\n')
	}
	return buf
}

// appendBinaryEdges appends the binary records of edges to buf.
func appendBinaryEdges(buf []byte, edges []graph.Edge) []byte {
	for _, e := range edges {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.U))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.V))
	}
	return buf
}

// quoteField quotes a field for an error message, cut short if long.
func quoteField(b []byte) string {
	const limit = 40
	if len(b) > limit {
		return strconv.Quote(string(b[:limit])) + "…"
	}
	return strconv.Quote(string(b))
}
