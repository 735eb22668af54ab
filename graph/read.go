// This file reads the real-world edge lists that PageRank runs on, as paper
// 000 §VII does with the Twitter and Yahoo graphs given as edge lists: a
// single-process reader (ReadEdges) and a per-rank parallel reader that
// splits the file between the ranks (ReadEdgesRange). The same readers
// stream a rank's share in chunks for PageRank's set-up (FileShare,
// share.go) and read a pipe or standard input once (spread.go); the
// distributed dense relabelling of the sparse original vertex ids to
// 0..n−1 is in labels.go (Relabel, RelabelShare).
//
// # Formats
//
// The format comes from the file name (DetectEdgeFormat) or is named
// explicitly; a ".gz" suffix means gzip compression, for every format.
//
//   - EdgeFormatSNAP (".txt", ".edges", ".tsv"): SNAP text. One directed edge
//     "u v" per line, the ids non-negative decimal integers below 2^63,
//     separated by spaces or tabs. '#' starts a comment that runs to the end
//     of the line (SNAP's header lines); blank lines are skipped; CRLF line
//     ends are accepted. Ids may be sparse: Relabel makes them dense.
//   - EdgeFormatEL (".el"): graphrun's own text edge list (see
//     edgelist_write.go), the same grammar as SNAP text; ReadEdges accepts
//     and rejects the same lines as ReadEdgeListFile, with the same edges.
//   - EdgeFormatWEL (".wel"): weighted text, "u v w" per line. The weight must
//     be a finite number (strconv.ParseFloat syntax); it is validated and
//     dropped, as PageRank ignores it.
//   - EdgeFormatMTX (".mtx"): Matrix Market, banner
//     "%%MatrixMarket matrix coordinate pattern|real|integer general|symmetric",
//     then '%' comment lines, then the size line "rows cols nnz", then exactly
//     nnz entries "i j [value]" with 1-based indices (1 ≤ i ≤ rows,
//     1 ≤ j ≤ cols) that become the edge (i−1, j−1). A real or integer value
//     is validated and dropped. For a symmetric matrix every off-diagonal
//     entry (i, j) also gives the edge (j, i), right after it; a diagonal
//     entry gives one self-loop. Array (dense) matrices and the complex,
//     hermitian and skew-symmetric kinds are rejected with a clear error.
//     Blank and '%' lines are also skipped among the entries.
//   - EdgeFormatBEL (".bel"): graphrun's binary edge list (edgelist_write.go).
//
// An empty text file, or one of comments only, is a valid graph with no
// edges (as for ReadEdgeListFile); so is a Matrix Market file whose size line
// says 0 entries. A Matrix Market file needs its banner and size line: an
// empty .mtx is an error.
//
// # Errors
//
// Malformed text gives an *EdgeListError whose message is "file:line: what is
// wrong", with the global 1-based line number also when the file was split
// between ranks; callers find it with errors.As. A corrupt or truncated gzip
// stream gives an *EdgeListError naming the file and the line being read that
// wraps the decompressor's error (io.ErrUnexpectedEOF for a truncated file).
// A line longer than 1 MiB (its '\n' excluded) is an error, as for
// ReadEdgeListFile.
//
// # Speed
//
// Lines are parsed by a hand-written byte scanner over 1 MiB buffers. The
// common line "u v\n" takes a fast path that converts eight digits at a time
// (SWAR); everything else, errors included, goes through a general parser.
// Nothing is allocated per line or per token (only a .wel weight or a Matrix
// Market value goes through strconv).

package graph

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// EdgeFormat names an edge-list file format; see the file comment above.
type EdgeFormat string

// The edge-list formats ReadEdges and ReadEdgesRange read.
const (
	EdgeFormatSNAP EdgeFormat = "snap" // SNAP text: "u v" lines, '#' comments
	EdgeFormatEL   EdgeFormat = "el"   // graphrun text: "u v" lines, '#' comments
	EdgeFormatWEL  EdgeFormat = "wel"  // weighted text: "u v w" lines
	EdgeFormatMTX  EdgeFormat = "mtx"  // Matrix Market coordinate
	EdgeFormatBEL  EdgeFormat = "bel"  // graphrun binary
)

// edgeReadBufSize is the size of every read buffer, and one more than the
// longest line accepted.
const edgeReadBufSize = 1 << 20

// DetectEdgeFormat resolves the format of the edge list at path. explicit
// names the format ("snap" or "txt", "el" or "text", "wel", "mtx" or
// "matrixmarket", "bel" or "binary", optionally followed by ".gz"); when it
// is empty or "auto" the format comes from the extension of path (".txt",
// ".edges" and ".tsv" are SNAP text, ".el", ".wel", ".mtx", ".bel"). gzipped
// is true when path or explicit ends in ".gz".
func DetectEdgeFormat(path, explicit string) (format EdgeFormat, gzipped bool, err error) {
	name := strings.ToLower(path)
	if strings.HasSuffix(name, ".gz") {
		gzipped = true
		name = strings.TrimSuffix(name, ".gz")
	}
	ex := strings.ToLower(strings.TrimSpace(explicit))
	if strings.HasSuffix(ex, ".gz") {
		gzipped = true
		ex = strings.TrimSuffix(ex, ".gz")
	}
	ex = strings.TrimPrefix(ex, ".")
	switch ex {
	case "snap", "txt":
		return EdgeFormatSNAP, gzipped, nil
	case "el", "text":
		return EdgeFormatEL, gzipped, nil
	case "wel":
		return EdgeFormatWEL, gzipped, nil
	case "mtx", "mm", "matrixmarket":
		return EdgeFormatMTX, gzipped, nil
	case "bel", "binary":
		return EdgeFormatBEL, gzipped, nil
	case "", "auto":
	default:
		return "", false, fmt.Errorf("unknown edge format %q: want snap, el, wel, mtx or bel (optionally with .gz), or auto", explicit)
	}
	switch filepath.Ext(name) {
	case ".txt", ".edges", ".tsv":
		return EdgeFormatSNAP, gzipped, nil
	case ".el":
		return EdgeFormatEL, gzipped, nil
	case ".wel":
		return EdgeFormatWEL, gzipped, nil
	case ".mtx":
		return EdgeFormatMTX, gzipped, nil
	case ".bel":
		return EdgeFormatBEL, gzipped, nil
	}
	return "", false, fmt.Errorf("%s: cannot tell the edge format from the name: use .txt/.edges (SNAP), .el, .wel, .mtx or .bel, optionally .gz, or name the format", path)
}

// EdgeFile is a whole edge list read by ReadEdges.
type EdgeFile struct {
	// Edges are the edges in file order with their original ids (0-based
	// for Matrix Market), a symmetric matrix's entries mirrored.
	Edges []Edge
	// Directed is false only for a symmetric Matrix Market matrix, whose
	// Edges hold both directions of each undirected edge; text and binary
	// edge lists are taken as directed (SNAP marks undirected graphs only in
	// comments; such a list gives one direction per pair).
	Directed bool
	// Vertices is the size of the id space: max(rows, cols) for Matrix
	// Market, else 1 + the largest id (0 without edges, saturating at
	// math.MaxInt64). It is only a bound for sparse ids: Relabel counts the
	// vertices that occur.
	Vertices int64
	// Format is the format that was read.
	Format EdgeFormat
}

// ReadEdges reads the whole edge list at path. format "" detects it from
// the name (see DetectEdgeFormat, which also accepts the aliases).
func ReadEdges(path string, format EdgeFormat) (*EdgeFile, error) {
	src, err := openEdgeSource(path, format)
	if err != nil {
		return nil, err
	}
	defer src.close()
	p, err := src.read(0, 1)
	if err != nil {
		return nil, err
	}
	ef := &EdgeFile{Edges: p.edges, Directed: true, Format: src.format}
	switch {
	case src.format == EdgeFormatMTX:
		ef.Directed = !p.mtx.symmetric
		ef.Vertices = max(p.mtx.rows, p.mtx.cols)
	case p.maxID == math.MaxInt64:
		ef.Vertices = math.MaxInt64
	default:
		ef.Vertices = p.maxID + 1
	}
	return ef, nil
}

// ReadEdgesRange reads rank's share of the edge list at path when size
// ranks read it together; concatenated in rank order, the shares are exactly
// ReadEdges' Edges, for any size. It needs no communication.
//
// An uncompressed file is split into size near-equal byte ranges of its data
// (after the Matrix Market header, which every rank reads first); a line
// belongs to the rank whose range holds its first byte. To give global line
// numbers a rank counts the newlines before its range, and for Matrix Market
// it also counts the entries outside its range (a light scan, no parsing),
// so that every rank checks the entry count against the size line.
//
// A gzip stream cannot be split by bytes: every rank decompresses it twice,
// first to count its lines (and check the whole stream), then to parse the
// lines whose index falls in its share of near-equal line ranges, stopping
// after them. Each rank thus decompresses up to twice the file; parsing, the
// expensive part, is still divided. .bel files are split by tuple.
//
// Errors are those of ReadEdges for the lines the rank parses, plus, on
// every rank, errors of the header, the entry count, and the gzip stream.
// An input that ReadEdges rejects makes at least one rank fail, with
// ReadEdges' error.
func ReadEdgesRange(path string, format EdgeFormat, rank, size int) ([]Edge, error) {
	if size < 1 || rank < 0 || rank >= size {
		return nil, fmt.Errorf("read edges %s: rank %d of %d ranks", path, rank, size)
	}
	src, err := openEdgeSource(path, format)
	if err != nil {
		return nil, err
	}
	defer src.close()
	p, err := src.read(rank, size)
	if err != nil {
		return nil, err
	}
	return p.edges, nil
}

// edgeSource is an edge-list file to read: random access for an
// uncompressed file, a stream that can be restarted for a gzipped one; or
// a stream read once (a pipe), which only a single reader reads whole.
type edgeSource struct {
	name    string
	format  EdgeFormat
	gzipped bool
	ra      io.ReaderAt // the file (the compressed bytes when gzipped)
	size    int64       // of ra
	stream  io.Reader   // instead of ra: a non-seekable input, read once
	bufSize int         // read buffer size, and one more than the longest line
	closer  io.Closer

	ctx  context.Context    // checked once per buffer of input; nil: never
	emit func([]Edge) error // set: the edges go to emit in chunks, not into the parser
	plan *sharePlan         // set: where a rank's share starts, kept from the first pass
}

// sharePlan is what the first read of a rank's share learns about where it
// starts, so that later passes (FileShare) skip the scans that found it.
type sharePlan struct {
	known bool
	// Uncompressed text: the offset of the share's first line, its line
	// number, and the Matrix Market entries before it.
	start, line, entries int64
	// Compressed text: the whole stream's counts and data lines.
	total     *lineCounter
	dataLines int64
}

// checkCtx returns the context's error, if it is done, naming the input.
func (s *edgeSource) checkCtx() error {
	if s.ctx == nil {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("read edges %s: %w", s.name, err)
	}
	return nil
}

// openEdgeSource opens path for reading in format (detected when "").
func openEdgeSource(path string, format EdgeFormat) (*edgeSource, error) {
	fmtName, gz, err := DetectEdgeFormat(path, string(format))
	if err != nil {
		return nil, fmt.Errorf("read edges: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read edges: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read edges: %w", err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("read edges: %s is a directory", path)
	}
	src := &edgeSource{name: path, format: fmtName, gzipped: gz, ra: f, size: st.Size(), bufSize: edgeReadBufSize, closer: f}
	if !gz {
		var magic [2]byte
		if n, _ := f.ReadAt(magic[:], 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
			f.Close()
			return nil, &EdgeListError{Name: path, Line: 1, Err: errors.New("the file is gzip-compressed: name it *.gz or give the format with .gz")}
		}
	}
	return src, nil
}

func (s *edgeSource) close() {
	if s.closer != nil {
		s.closer.Close()
	}
}

// lines returns a lineReader of the whole (decompressed) content.
func (s *edgeSource) lines() (*lineReader, error) {
	if s.stream != nil && !s.gzipped {
		return newLineReader(s.stream, s.bufSize, 0), nil
	}
	if !s.gzipped {
		return newSectionLineReader(s.ra, 0, s.size, s.bufSize), nil
	}
	zr, err := s.gunzip()
	if err != nil {
		return nil, err
	}
	return newLineReader(zr, s.bufSize, 0), nil
}

// gunzip returns the decompressed stream of a gzipped source.
func (s *edgeSource) gunzip() (io.Reader, error) {
	var in io.Reader
	if s.stream != nil {
		in = s.stream // buffered by openStreamSource
	} else {
		in = bufio.NewReaderSize(io.NewSectionReader(s.ra, 0, s.size), int(min(int64(s.bufSize), s.size+16)))
	}
	zr, err := gzip.NewReader(in)
	if err != nil {
		return nil, &EdgeListError{Name: s.name, Line: 1, Err: fmt.Errorf("not a valid gzip stream: %w", err)}
	}
	return zr, nil
}

// newParser returns a parser for s positioned at line 1.
func (s *edgeSource) newParser() *edgeParser {
	return &edgeParser{name: s.name, format: s.format, gzipped: s.gzipped, line: 1, maxID: -1, maxLine: s.bufSize - 1, src: s}
}

// read parses rank's share of the source. With s.emit set, the edges go
// to emit in chunks of about emitEdges, the last one included, and the
// parser keeps none.
func (s *edgeSource) read(rank, size int) (*edgeParser, error) {
	var p *edgeParser
	var err error
	switch {
	case s.format == EdgeFormatBEL:
		p, err = s.readBinary(rank, size)
	case s.gzipped || size == 1 || s.stream != nil:
		p, err = s.readStream(rank, size)
	default:
		p, err = s.readSplit(rank, size)
	}
	if err != nil {
		return nil, err
	}
	if err := p.flush(); err != nil {
		return nil, err
	}
	return p, nil
}

// shareStart returns the start of part r of [0, n) cut into size
// near-equal parts.
func shareStart(n int64, r, size int) int64 {
	hi, lo := bits.Mul64(uint64(n), uint64(r))
	q, _ := bits.Div64(hi, lo, uint64(size))
	return int64(q)
}

// readSplit reads rank's byte range of an uncompressed file.
func (s *edgeSource) readSplit(rank, size int) (*edgeParser, error) {
	p := s.newParser()
	var dataStart int64
	if p.format == EdgeFormatMTX {
		hr := newSectionLineReader(s.ra, 0, s.size, s.bufSize)
		if err := p.readHeader(hr); err != nil {
			return nil, err
		}
		dataStart = hr.off
	}
	n := s.size - dataStart
	lo, hi := dataStart+shareStart(n, rank, size), dataStart+shareStart(n, rank+1, size)
	cnt := p.counter()
	var start int64
	if s.plan != nil && s.plan.known {
		start, p.line, p.entries = s.plan.start, s.plan.line, s.plan.entries
	} else {
		var err error
		if start, err = s.lineStart(dataStart, lo); err != nil {
			return nil, err
		}
		// The lines before the range: count them, and for Matrix Market
		// their entries.
		if err := s.scanRange(cnt, dataStart, start); err != nil {
			return nil, err
		}
		if cnt.extraLine > 0 {
			return nil, p.tooManyEntries(cnt.extraLine)
		}
		p.line, p.entries = cnt.line, cnt.entries
	}
	line0, entries0 := p.line, p.entries
	p.hintCapacity(hi - start)
	end := start
	if start < hi {
		lr := newSectionLineReader(s.ra, start, s.size, s.bufSize)
		var err error
		if end, err = p.parseLines(lr, hi, math.MaxInt64); err != nil {
			return nil, err
		}
	}
	if p.format == EdgeFormatMTX && (s.plan == nil || !s.plan.known) {
		// The entries after the range.
		cnt.line, cnt.entries, cnt.pending, cnt.decided = p.line, p.entries, false, false
		if err := s.scanRange(cnt, end, s.size); err != nil {
			return nil, err
		}
		if cnt.extraLine > 0 {
			return nil, p.tooManyEntries(cnt.extraLine)
		}
		if err := p.checkEntryCount(cnt.entries); err != nil {
			return nil, err
		}
	}
	if s.plan != nil && !s.plan.known {
		*s.plan = sharePlan{known: true, start: start, line: line0, entries: entries0}
	}
	return p, nil
}

// lineStart returns the offset of the first line that starts at or after
// lo (the file size if none does).
func (s *edgeSource) lineStart(dataStart, lo int64) (int64, error) {
	if lo <= dataStart {
		return dataStart, nil
	}
	buf := make([]byte, min(int64(s.bufSize), 64<<10, s.size-lo+1))
	for pos := lo - 1; pos < s.size; {
		if err := s.checkCtx(); err != nil {
			return 0, err
		}
		n, err := s.ra.ReadAt(buf[:min(int64(len(buf)), s.size-pos)], pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("read edges %s: %w", s.name, err)
		}
		if n == 0 {
			break
		}
		pos += int64(n)
	}
	return s.size, nil
}

// scanRange feeds the bytes [from, to) of the file to cnt.
func (s *edgeSource) scanRange(cnt *lineCounter, from, to int64) error {
	if from >= to {
		return nil
	}
	buf := make([]byte, min(int64(s.bufSize), to-from))
	for pos := from; pos < to; {
		if err := s.checkCtx(); err != nil {
			return err
		}
		n, err := s.ra.ReadAt(buf[:min(int64(len(buf)), to-pos)], pos)
		cnt.scan(buf[:n], math.MaxInt64)
		pos += int64(n)
		if err != nil && pos < to {
			return fmt.Errorf("read edges %s: %w", s.name, err)
		}
	}
	return nil
}

// readStream reads rank's share of lines of the (decompressed) stream.
func (s *edgeSource) readStream(rank, size int) (*edgeParser, error) {
	var total *lineCounter // size > 1: the whole stream's counts
	var dataLines int64
	if s.plan != nil && s.plan.known {
		total, dataLines = s.plan.total, s.plan.dataLines
	} else if size > 1 {
		pre := s.newParser()
		lr, err := s.lines()
		if err != nil {
			return nil, err
		}
		if pre.format == EdgeFormatMTX {
			if err := pre.readHeader(lr); err != nil {
				return nil, err
			}
		}
		total = pre.counter()
		first := total.line
		for {
			if err := s.checkCtx(); err != nil {
				return nil, err
			}
			b, err := lr.peek()
			if err != nil {
				if err != io.EOF {
					pre.line = total.line
					return nil, pre.readError(err)
				}
				break
			}
			total.scan(b, math.MaxInt64)
			lr.advance(len(b))
		}
		dataLines = total.line - first
		if total.pending {
			dataLines++
		}
	}
	p := s.newParser()
	lr, err := s.lines()
	if err != nil {
		return nil, err
	}
	if p.format == EdgeFormatMTX {
		if err := p.readHeader(lr); err != nil {
			return nil, err
		}
	}
	stopLine := int64(math.MaxInt64)
	if total != nil {
		lo, hi := shareStart(dataLines, rank, size), shareStart(dataLines, rank+1, size)
		skip := p.counter()
		stopLine = skip.line + hi
		// Skip the lines of the ranks before, counting their entries.
		for skip.line < p.line+lo {
			if err := s.checkCtx(); err != nil {
				return nil, err
			}
			b, err := lr.peek()
			if err != nil {
				p.line = skip.line
				return nil, p.readError(err)
			}
			n, _ := skip.scan(b, p.line+lo)
			lr.advance(n)
		}
		p.line, p.entries = skip.line, skip.entries
		if total.extraLine > 0 && total.extraLine < p.line {
			return nil, p.tooManyEntries(total.extraLine)
		}
		p.hintCapacity(s.size / int64(size))
	} else if !s.gzipped && s.stream == nil {
		p.hintCapacity(s.size)
	}
	if _, err := p.parseLines(lr, math.MaxInt64, stopLine); err != nil {
		return nil, err
	}
	if p.format == EdgeFormatMTX {
		entries := p.entries
		if total != nil {
			if total.extraLine > 0 {
				return nil, p.tooManyEntries(total.extraLine)
			}
			entries = total.entries
		}
		if err := p.checkEntryCount(entries); err != nil {
			return nil, err
		}
	}
	if s.plan != nil && !s.plan.known {
		*s.plan = sharePlan{known: true, total: total, dataLines: dataLines}
	}
	return p, nil
}

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
		// disagrees with the data fails DecodeEdgeList on every rank.
		var count, idx, lo, hi int64
		bb := bufio.NewReaderSize(r, s.bufSize)
		if hdr, err := bb.Peek(edgeListHeaderSize); err == nil && string(hdr[:8]) == EdgeListMagic {
			count = int64(min(binary.LittleEndian.Uint64(hdr[8:]), math.MaxInt64/2))
		}
		lo, hi = shareStart(count, rank, size), shareStart(count, rank+1, size)
		err := DecodeEdgeList(bb, s.name, EdgeListBinary, func(es []Edge) error {
			if err := s.checkCtx(); err != nil {
				return err
			}
			a, b := max(lo-idx, 0), min(hi-idx, int64(len(es)))
			if a < b {
				p.addEdges(es[a:b])
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
	lo, hi := shareStart(int64(count), rank, size), shareStart(int64(count), rank+1, size)
	p.hintCapacity(16 * (hi - lo))
	r := io.NewSectionReader(s.ra, edgeListHeaderSize+16*lo, 16*(hi-lo))
	err := decodeBinaryEdgeList(io.MultiReader(bytes.NewReader(binaryHeader(hi-lo)), r), s.name, func(es []Edge) error {
		if err := s.checkCtx(); err != nil {
			return err
		}
		p.addEdges(es)
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

// lineReader hands out the lines of a stream from one reusable buffer.
type lineReader struct {
	r      io.Reader
	buf    []byte
	lo, hi int   // unread data: buf[lo:hi]
	off    int64 // stream offset of buf[lo]
	err    error // sticky error of r (io.EOF at its end)
}

// errLineTooLong reports a line that does not fit the read buffer.
var errLineTooLong = errors.New("line too long")

// newLineReader returns a lineReader of r, whose first byte is at stream
// offset off, with a buffer of bufSize bytes.
func newLineReader(r io.Reader, bufSize int, off int64) *lineReader {
	return &lineReader{r: r, buf: make([]byte, bufSize), off: off}
}

// newSectionLineReader returns a lineReader of the bytes [off, end) of ra.
// Its buffer is cut to the section when smaller, which does not change which
// lines are too long: none of a shorter section can fill the buffer.
func newSectionLineReader(ra io.ReaderAt, off, end int64, bufSize int) *lineReader {
	n := max(min(int64(bufSize), end-off+1), 1)
	return newLineReader(io.NewSectionReader(ra, off, end-off), int(n), off)
}

// fill moves the unread data to the front of the buffer and reads more.
func (lr *lineReader) fill() {
	if lr.lo > 0 {
		lr.hi = copy(lr.buf, lr.buf[lr.lo:lr.hi])
		lr.lo = 0
	}
	for range 100 {
		if lr.hi == len(lr.buf) || lr.err != nil {
			return
		}
		n, err := lr.r.Read(lr.buf[lr.hi:])
		lr.hi += n
		if err != nil {
			lr.err = err
		}
		if n > 0 {
			return
		}
	}
	lr.err = io.ErrNoProgress
}

// take consumes n unread bytes and returns them with their stream offset.
func (lr *lineReader) take(n int) ([]byte, int64) {
	b, off := lr.buf[lr.lo:lr.lo+n], lr.off
	lr.lo += n
	lr.off += int64(n)
	return b, off
}

// chunk returns the buffered complete lines, each with its '\n' (the last
// line of the stream may lack it), and their stream offset. At the end it
// returns io.EOF; a line that fills the buffer gives errLineTooLong, a read
// error is returned once the lines before it are consumed.
func (lr *lineReader) chunk() ([]byte, int64, error) {
	for {
		data := lr.buf[lr.lo:lr.hi]
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			b, off := lr.take(i + 1)
			return b, off, nil
		}
		if len(data) == len(lr.buf) {
			return nil, lr.off, errLineTooLong
		}
		if lr.err != nil {
			if lr.err == io.EOF && len(data) > 0 {
				b, off := lr.take(len(data))
				return b, off, nil
			}
			return nil, lr.off, lr.err
		}
		lr.fill()
	}
}

// line returns the next line without its '\n', with chunk's errors.
func (lr *lineReader) line() ([]byte, error) {
	for {
		data := lr.buf[lr.lo:lr.hi]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			b, _ := lr.take(i + 1)
			return b[:i], nil
		}
		if len(data) == len(lr.buf) {
			return nil, errLineTooLong
		}
		if lr.err != nil {
			if lr.err == io.EOF && len(data) > 0 {
				b, _ := lr.take(len(data))
				return b, nil
			}
			return nil, lr.err
		}
		lr.fill()
	}
}

// peek returns the unread buffered bytes, reading more when there are none;
// the error is io.EOF at the end.
func (lr *lineReader) peek() ([]byte, error) {
	if lr.lo == lr.hi {
		if lr.err == nil {
			lr.fill()
		}
		if lr.lo == lr.hi {
			return nil, lr.err
		}
	}
	return lr.buf[lr.lo:lr.hi], nil
}

// advance consumes n bytes returned by peek.
func (lr *lineReader) advance(n int) { lr.take(n) }

// mtxHeader is what a Matrix Market banner and size line say.
type mtxHeader struct {
	rows, cols, nnz int64
	field           string // "pattern", "real" or "integer"
	symmetric       bool
	sizeLine        int64 // line number of the size line
}

// edgeParser parses the lines of one edge list and collects its edges.
type edgeParser struct {
	name    string
	format  EdgeFormat
	gzipped bool
	mtx     mtxHeader
	line    int64 // number of the next line to parse
	entries int64 // Matrix Market entries before the next line
	maxID   int64 // largest id seen, -1 before the first
	maxLine int   // longest line accepted, '\n' excluded
	edges   []Edge
	src     *edgeSource // its context and emit
}

// emitEdges is the chunk of edges a streamed read hands to its emit at
// once: the parsers flush before a line once they hold emitEdges edges, so
// the chunk buffer (allocated once per pass, emitEdges plus a decoding
// batch of .bel tuples) never grows.
const emitEdges = 1 << 16

// streamed reports whether the edges go to the source's emit in chunks,
// and gives a streamed parser its chunk buffer.
func (p *edgeParser) streamed() bool {
	if p.src == nil || p.src.emit == nil {
		return false
	}
	if p.edges == nil {
		n := int64(emitEdges + decodeBatch)
		if p.src.stream == nil && !p.src.gzipped {
			n = min(n, p.src.size/2+2) // an edge takes 4 bytes at least, 2 per symmetric entry
		}
		p.edges = make([]Edge, 0, n)
	}
	return true
}

// flushFull hands the edges parsed so far to the source's emit once there
// are emitEdges of them.
func (p *edgeParser) flushFull() error {
	if !p.streamed() || len(p.edges) < emitEdges {
		return nil
	}
	return p.flush()
}

// flush hands the edges parsed so far to the source's emit, if it has one
// and its context is not done.
func (p *edgeParser) flush() error {
	if !p.streamed() || len(p.edges) == 0 {
		return nil
	}
	if err := p.src.checkCtx(); err != nil {
		return err
	}
	err := p.src.emit(p.edges)
	p.edges = p.edges[:0]
	return err
}

// errorf returns an *EdgeListError at the current line.
func (p *edgeParser) errorf(format string, args ...any) error {
	return &EdgeListError{Name: p.name, Line: p.line, Err: fmt.Errorf(format, args...)}
}

// readError reports a failure of the reader at the current line (a done
// context is not a defect of the input: it is returned as itself).
func (p *edgeParser) readError(err error) error {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("read edges %s: %w", p.name, err)
	case errors.Is(err, errLineTooLong):
		return p.errorf("line longer than %d bytes: %w", p.maxLine, err)
	case p.gzipped:
		return p.errorf("corrupt or truncated gzip stream: %w", err)
	}
	return p.errorf("read error: %w", err)
}

// tooManyEntries reports the Matrix Market entry at line, the first beyond
// the size line's count.
func (p *edgeParser) tooManyEntries(line int64) error {
	return &EdgeListError{Name: p.name, Line: line, Err: fmt.Errorf(
		"more entries than the %d announced by the size line (line %d)", p.mtx.nnz, p.mtx.sizeLine)}
}

// checkEntryCount reports a Matrix Market file with fewer entries than its
// size line says.
func (p *edgeParser) checkEntryCount(entries int64) error {
	if entries < p.mtx.nnz {
		return &EdgeListError{Name: p.name, Line: p.mtx.sizeLine, Err: fmt.Errorf(
			"the size line announces %d entries but the file has %d", p.mtx.nnz, entries)}
	}
	return nil
}

// hintCapacity reserves room for the edges of about n bytes of input
// (none when the edges go to an emit in chunks).
func (p *edgeParser) hintCapacity(n int64) {
	if p.streamed() {
		return
	}
	est := n / 12
	if p.format == EdgeFormatMTX && p.mtx.symmetric {
		est *= 2
	}
	est = min(est, 1<<27)
	if est > int64(cap(p.edges)) {
		p.edges = make([]Edge, 0, est)
	}
}

// addEdges appends es and tracks the largest id.
func (p *edgeParser) addEdges(es []Edge) {
	p.streamed() // the chunk buffer, if streamed
	for _, e := range es {
		p.maxID = max(p.maxID, e.U, e.V)
	}
	p.edges = append(p.edges, es...)
}

// counter returns a lineCounter that continues at p's position.
func (p *edgeParser) counter() *lineCounter {
	return &lineCounter{mtx: p.format == EdgeFormatMTX, line: p.line, entries: p.entries, nnz: p.mtx.nnz}
}

// isBlankByte reports whether c separates columns: space, tab, or the '\r'
// of a CRLF line end.
func isBlankByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// skipBlanks returns the index of the first non-blank byte of b at or after i.
func skipBlanks(b []byte, i int) int {
	for i < len(b) && isBlankByte(b[i]) {
		i++
	}
	return i
}

// readHeader reads a Matrix Market banner, comments and size line.
func (p *edgeParser) readHeader(lr *lineReader) error {
	b, err := lr.line()
	if err != nil {
		if err == io.EOF {
			return p.errorf("empty file: missing the Matrix Market banner")
		}
		return p.readError(err)
	}
	if err := p.parseBanner(b); err != nil {
		return err
	}
	for {
		p.line++
		b, err := lr.line()
		if err != nil {
			if err == io.EOF {
				return p.errorf("missing the size line \"rows cols entries\" after the banner")
			}
			return p.readError(err)
		}
		i := skipBlanks(b, 0)
		if i == len(b) || b[i] == '%' {
			continue
		}
		return p.parseSizeLine(b)
	}
}

// parseBanner checks the Matrix Market banner line.
func (p *edgeParser) parseBanner(b []byte) error {
	const want = "want \"%%MatrixMarket matrix coordinate pattern|real|integer general|symmetric\""
	f := strings.Fields(string(b))
	if len(f) == 0 || !strings.EqualFold(f[0], "%%MatrixMarket") {
		return p.errorf("bad banner %s: not a Matrix Market file; %s", quoteField(b), want)
	}
	if len(f) != 5 {
		return p.errorf("bad banner %s: %d words; %s", quoteField(b), len(f), want)
	}
	object, layout, field, symmetry := strings.ToLower(f[1]), strings.ToLower(f[2]), strings.ToLower(f[3]), strings.ToLower(f[4])
	if object != "matrix" {
		return p.errorf("unsupported Matrix Market object %q: only matrix", f[1])
	}
	switch layout {
	case "coordinate":
	case "array":
		return p.errorf("unsupported Matrix Market format \"array\" (dense): only coordinate (sparse) matrices are graphs")
	default:
		return p.errorf("bad Matrix Market format %q: want coordinate", f[2])
	}
	switch field {
	case "pattern", "real", "integer":
		p.mtx.field = field
	case "complex", "double":
		return p.errorf("unsupported Matrix Market field %q: want pattern, real or integer", f[3])
	default:
		return p.errorf("bad Matrix Market field %q: want pattern, real or integer", f[3])
	}
	switch symmetry {
	case "general":
	case "symmetric":
		p.mtx.symmetric = true
	case "hermitian", "skew-symmetric":
		return p.errorf("unsupported Matrix Market symmetry %q: want general or symmetric", f[4])
	default:
		return p.errorf("bad Matrix Market symmetry %q: want general or symmetric", f[4])
	}
	return nil
}

// parseSizeLine parses "rows cols nnz" and moves past it.
func (p *edgeParser) parseSizeLine(b []byte) error {
	var v [3]int64
	i := skipBlanks(b, 0)
	for k := range v {
		if i == len(b) {
			return p.errorf("bad size line %s: want \"rows cols entries\", got %d numbers", quoteField(b), k)
		}
		x, j, ok := scanID(b, i, '\n')
		if !ok {
			return p.fieldError(b, i, '\n', "size")
		}
		v[k] = x
		i = skipBlanks(b, j)
	}
	if i != len(b) {
		return p.errorf("bad size line %s: want \"rows cols entries\", got more", quoteField(b))
	}
	p.mtx.rows, p.mtx.cols, p.mtx.nnz = v[0], v[1], v[2]
	if p.mtx.symmetric && p.mtx.rows != p.mtx.cols {
		return p.errorf("a symmetric matrix must be square, the size line says %d×%d", p.mtx.rows, p.mtx.cols)
	}
	p.mtx.sizeLine = p.line
	p.line++
	return nil
}

// scanID parses the non-negative decimal integer below 2^63 at b[i:], which
// must end at a blank, at comment or at the end of b. It returns the value
// and the index after it; ok is false for anything else.
func scanID(b []byte, i int, comment byte) (x int64, next int, ok bool) {
	start := i
	var u uint64
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		if u > math.MaxInt64/10 {
			return 0, i, false
		}
		u = u*10 + uint64(d)
		if u > math.MaxInt64 {
			return 0, i, false
		}
	}
	if i == start {
		return 0, i, false
	}
	if i < len(b) {
		if c := b[i]; !isBlankByte(c) && c != comment {
			return 0, i, false
		}
	}
	return int64(u), i, true
}

// fieldEnd returns the end of the field that starts at b[i].
func fieldEnd(b []byte, i int, comment byte) int {
	for i < len(b) && !isBlankByte(b[i]) && b[i] != comment {
		i++
	}
	return i
}

// fieldError explains why the field at b[i:] is not a valid id.
func (p *edgeParser) fieldError(b []byte, i int, comment byte, what string) error {
	f := b[i:fieldEnd(b, i, comment)]
	digits := func(s []byte) bool {
		for _, c := range s {
			if c < '0' || c > '9' {
				return false
			}
		}
		return len(s) > 0
	}
	switch {
	case len(f) > 1 && f[0] == '-' && digits(f[1:]):
		return p.errorf("negative %s %s", what, quoteField(f))
	case digits(f):
		return p.errorf("%s %s out of range: must be below 2^63", what, quoteField(f))
	}
	return p.errorf("bad %s %s: want a non-negative decimal integer", what, quoteField(f))
}

// countFields returns the number of fields of b before a comment.
func countFields(b []byte, comment byte) int {
	n := 0
	for i := skipBlanks(b, 0); i < len(b) && b[i] != comment; i = skipBlanks(b, i) {
		n++
		i = fieldEnd(b, i, comment)
		if i == len(b) || b[i] == comment {
			break
		}
	}
	return n
}

// parseLines parses the lines of lr that start before offset stopOff and
// have a number below stopLine. It returns the offset of the first line it
// did not parse.
func (p *edgeParser) parseLines(lr *lineReader, stopOff, stopLine int64) (int64, error) {
	for {
		if p.src != nil {
			if err := p.src.checkCtx(); err != nil {
				return 0, err
			}
		}
		b, off, err := lr.chunk()
		if err != nil {
			if off >= stopOff || p.line >= stopLine {
				return off, nil
			}
			if err == io.EOF {
				return off, nil
			}
			return 0, p.readError(err)
		}
		var n int
		var stop bool
		if p.format == EdgeFormatMTX {
			n, stop, err = p.parseMTX(b, off, stopOff, stopLine)
		} else {
			n, stop, err = p.parseText(b, off, stopOff, stopLine)
		}
		if err != nil {
			return 0, err
		}
		if err := p.flushFull(); err != nil {
			return 0, err
		}
		if stop {
			return off + int64(n), nil
		}
	}
}

// parseText parses the text lines of b, which start at stream offset off,
// up to the stop limits. It returns the bytes parsed and whether a limit was
// reached.
func (p *edgeParser) parseText(b []byte, off, stopOff, stopLine int64) (int, bool, error) {
	fast := p.format != EdgeFormatWEL
	streamed := p.streamed()
	edges, maxID, line := p.edges, p.maxID, p.line
	defer func() { p.edges, p.maxID, p.line = edges, maxID, line }()
	i := 0
	for i < len(b) {
		if off+int64(i) >= stopOff || line >= stopLine {
			return i, true, nil
		}
		if streamed && len(edges) >= emitEdges {
			p.edges, p.maxID, p.line = edges, maxID, line
			if err := p.flush(); err != nil {
				return 0, false, err
			}
			edges = p.edges
		}
		if fast {
			if u, v, next, ok := fastPair(b, i); ok {
				edges = append(edges, Edge{U: u, V: v})
				maxID = max(maxID, u, v)
				line++
				i = next
				continue
			}
		}
		end := lineEnd(b, i)
		p.line = line
		e, ok, err := p.textLine(b[i:end])
		if err != nil {
			return 0, false, err
		}
		if ok {
			edges = append(edges, e)
			maxID = max(maxID, e.U, e.V)
		}
		line++
		i = end + 1
	}
	return len(b), false, nil
}

// fastPair parses the most common line, "u v\n" with ids of at most 18
// digits (so below 2^63) separated by spaces or tabs, an optional '\r'
// before the '\n', at b[i:]. ok is false for anything else, which the
// general parser then handles. Digits are converted eight at a time where
// eight bytes remain (the loop body is digitRun's, written out so that the
// per-line path makes no call).
func fastPair(b []byte, i int) (u, v int64, next int, ok bool) {
	const (
		hi   = 0xF0F0F0F0F0F0F0F0
		lo   = 0x0F0F0F0F0F0F0F0F
		zero = 0x3030303030303030
		six  = 0x0606060606060606
	)
	var ids [2]uint64
	j := i
	for f := range 2 {
		if f == 1 {
			if j >= len(b) || b[j] != ' ' && b[j] != '\t' {
				return 0, 0, 0, false
			}
			for j++; j < len(b) && (b[j] == ' ' || b[j] == '\t'); j++ {
			}
		}
		start := j
		var x uint64
		for j+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[j:])
			notDigit := (w&hi ^ zero) | ((w&lo + six) & hi)
			if notDigit == 0 {
				x = x*1e8 + swar8(w)
				j += 8
				continue
			}
			n := bits.TrailingZeros64(notDigit) >> 3
			if n > 0 {
				for k := 0; x != 0 && k < n; k++ { // ids above 8 digits
					x *= 10
				}
				x += swar8(w << (64 - 8*uint(n)))
				j += n
			}
			goto done
		}
		for ; j < len(b); j++ {
			d := b[j] - '0'
			if d > 9 {
				break
			}
			x = x*10 + uint64(d)
		}
	done:
		if j == start || j-start > 18 {
			return 0, 0, 0, false
		}
		ids[f] = x
	}
	if j >= len(b) {
		return 0, 0, 0, false
	}
	if b[j] == '\r' {
		if j++; j >= len(b) {
			return 0, 0, 0, false
		}
	}
	if b[j] != '\n' {
		return 0, 0, 0, false
	}
	return int64(ids[0]), int64(ids[1]), j + 1, true
}

// swar8 returns the value of the eight decimal digits packed in w, the
// first digit in the lowest byte (zero bytes count as 0 digits).
func swar8(w uint64) uint64 {
	w = (w & 0x0F0F0F0F0F0F0F0F) * 2561 >> 8
	w = (w & 0x00FF00FF00FF00FF) * 6553601 >> 16
	return (w & 0x0000FFFF0000FFFF) * 42949672960001 >> 32
}

// textLine parses one text line (without its '\n') at p.line: ok is false
// for a blank or comment line.
func (p *edgeParser) textLine(line []byte) (e Edge, ok bool, err error) {
	j := skipBlanks(line, 0)
	if j == len(line) || line[j] == '#' {
		return Edge{}, false, nil
	}
	u, k, ok := scanID(line, j, '#')
	if !ok {
		return Edge{}, false, p.fieldError(line, j, '#', "vertex id")
	}
	j = skipBlanks(line, k)
	if j == len(line) || line[j] == '#' {
		return Edge{}, false, p.columnsError(line)
	}
	v, k, ok := scanID(line, j, '#')
	if !ok {
		return Edge{}, false, p.fieldError(line, j, '#', "vertex id")
	}
	j = skipBlanks(line, k)
	if p.format == EdgeFormatWEL {
		if j == len(line) || line[j] == '#' {
			return Edge{}, false, p.columnsError(line)
		}
		k = fieldEnd(line, j, '#')
		if err := p.checkNumber(line[j:k], "weight"); err != nil {
			return Edge{}, false, err
		}
		j = skipBlanks(line, k)
	}
	if j != len(line) && line[j] != '#' {
		return Edge{}, false, p.columnsError(line)
	}
	return Edge{U: u, V: v}, true, nil
}

// columnsError reports a text line with the wrong number of columns.
func (p *edgeParser) columnsError(line []byte) error {
	n := countFields(line, '#')
	if p.format == EdgeFormatWEL {
		return p.errorf("want 3 columns (u v weight), got %d", n)
	}
	return p.errorf("want 2 columns (u v), got %d", n)
}

// checkNumber validates a weight or Matrix Market value.
func (p *edgeParser) checkNumber(f []byte, what string) error {
	if what == "integer value" {
		if _, err := strconv.ParseInt(string(f), 10, 64); err != nil {
			return p.errorf("bad %s %s: %w", what, quoteField(f), err)
		}
		return nil
	}
	x, err := strconv.ParseFloat(string(f), 64)
	if err != nil {
		return p.errorf("bad %s %s: %w", what, quoteField(f), err)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return p.errorf("bad %s %s: not a finite number", what, quoteField(f))
	}
	return nil
}

// parseMTX parses Matrix Market entry lines like parseText.
func (p *edgeParser) parseMTX(b []byte, off, stopOff, stopLine int64) (int, bool, error) {
	h := &p.mtx
	valued := h.field != "pattern"
	streamed := p.streamed()
	i := 0
	for i < len(b) {
		if off+int64(i) >= stopOff || p.line >= stopLine {
			return i, true, nil
		}
		if streamed && len(p.edges) >= emitEdges {
			if err := p.flush(); err != nil {
				return 0, false, err
			}
		}
		if !valued && p.entries < h.nnz {
			// The common valid entry; anything else, errors included, takes
			// the general path below.
			if r, c, next, ok := fastPair(b, i); ok && r > 0 && c > 0 && r <= h.rows && c <= h.cols {
				p.entries++
				u, v := r-1, c-1
				p.maxID = max(p.maxID, u, v)
				p.edges = append(p.edges, Edge{U: u, V: v})
				if h.symmetric && u != v {
					p.edges = append(p.edges, Edge{U: v, V: u})
				}
				p.line++
				i = next
				continue
			}
		}
		end := lineEnd(b, i)
		line := b[i:end]
		i = end + 1
		j := skipBlanks(line, 0)
		if j == len(line) || line[j] == '%' {
			p.line++
			continue
		}
		p.entries++
		if p.entries > h.nnz {
			return 0, false, p.tooManyEntries(p.line)
		}
		want := 2
		if valued {
			want = 3
		}
		if n := countFields(line, '\n'); n != want {
			if valued {
				return 0, false, p.errorf("want 3 fields (row col value) for a %s matrix, got %d", h.field, n)
			}
			return 0, false, p.errorf("want 2 fields (row col) for a pattern matrix, got %d", n)
		}
		r, k, ok := scanID(line, j, '\n')
		if !ok {
			return 0, false, p.fieldError(line, j, '\n', "row index")
		}
		j = skipBlanks(line, k)
		c, k, ok := scanID(line, j, '\n')
		if !ok {
			return 0, false, p.fieldError(line, j, '\n', "column index")
		}
		if valued {
			j = skipBlanks(line, k)
			what := "real value"
			if h.field == "integer" {
				what = "integer value"
			}
			if err := p.checkNumber(line[j:fieldEnd(line, j, '\n')], what); err != nil {
				return 0, false, err
			}
		}
		switch {
		case r == 0 || c == 0:
			return 0, false, p.errorf("index 0 in entry (%d, %d): Matrix Market indices start at 1", r, c)
		case r > h.rows:
			return 0, false, p.errorf("row index %d > %d rows", r, h.rows)
		case c > h.cols:
			return 0, false, p.errorf("column index %d > %d columns", c, h.cols)
		}
		u, v := r-1, c-1
		p.maxID = max(p.maxID, u, v)
		p.edges = append(p.edges, Edge{U: u, V: v})
		if h.symmetric && u != v {
			p.edges = append(p.edges, Edge{U: v, V: u})
		}
		p.line++
	}
	return len(b), false, nil
}

// lineCounter counts lines, and Matrix Market entries, without parsing
// them. It must see the bytes of a stream in order, from a line start.
type lineCounter struct {
	mtx       bool
	line      int64 // number of the line being scanned
	entries   int64 // entry lines seen (Matrix Market)
	nnz       int64 // the size line's entry count
	extraLine int64 // line of entry nnz+1, 0 while none
	pending   bool  // bytes of the current line seen
	decided   bool  // current line known to be an entry or not
}

// scan consumes b, stopping at the start of line stopLine. It returns the
// bytes consumed and whether it stopped.
func (c *lineCounter) scan(b []byte, stopLine int64) (int, bool) {
	if !c.mtx && stopLine == math.MaxInt64 {
		if len(b) > 0 {
			c.line += int64(bytes.Count(b, []byte{'\n'}))
			c.pending = b[len(b)-1] != '\n'
		}
		return len(b), false
	}
	i := 0
	for i < len(b) {
		if !c.pending && c.line >= stopLine {
			return i, true
		}
		if c.mtx && !c.decided {
			for i < len(b) && isBlankByte(b[i]) {
				i++
				c.pending = true
			}
			if i == len(b) {
				return i, false
			}
			c.pending = true
			if b[i] != '\n' {
				c.decided = true
				if b[i] != '%' {
					c.entries++
					if c.entries == c.nnz+1 {
						c.extraLine = c.line
					}
				}
			}
		}
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			c.pending = true
			return len(b), false
		}
		i += j + 1
		c.line++
		c.pending, c.decided = false, false
	}
	return i, !c.pending && c.line >= stopLine
}

// lineEnd returns the index of the newline ending the line that starts at
// b[i], or len(b) for a last line without one.
func lineEnd(b []byte, i int) int {
	if end := bytes.IndexByte(b[i:], '\n'); end >= 0 {
		return i + end
	}
	return len(b)
}
