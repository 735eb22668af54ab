// The sources of the edge-list readers (read.go) and how a file is split
// between ranks: an uncompressed file by byte ranges cut at line starts, a
// gzip stream or a pipe by line ranges after a counting pass, a .bel file
// by tuple ranges read with positioned reads.

package edgelist

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/graphrun/graphrun/graph"

	"github.com/klauspost/compress/gzip"
)

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

	ctx  context.Context          // checked once per buffer of input; nil: never
	emit func([]graph.Edge) error // set: the edges go to emit in chunks, not into the parser
	// emitWeighted is emit for a weighted read: each chunk's weights beside it.
	emitWeighted func([]graph.Edge, []float32) error
	// weighted: the edges' weights are read (weights.go).
	weighted bool
	plan     *sharePlan // set: where a rank's share starts, kept from the first pass
	// entries: one edge per Matrix Market entry or .grb tuple, a symmetric
	// one's mirror left out (ReadOptions.Entries).
	entries bool
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
	return &edgeParser{name: s.name, format: s.format, gzipped: s.gzipped, line: 1, maxID: -1, maxLine: s.bufSize - 1, src: s, weighted: s.weighted}
}

// read parses rank's share of the source. With s.emit set, the edges go
// to emit in chunks of about emitEdges, the last one included, and the
// parser keeps none.
func (s *edgeSource) read(rank, size int) (*edgeParser, error) {
	if err := s.checkWeighted(); err != nil {
		return nil, err
	}
	var p *edgeParser
	var err error
	switch {
	case s.format == EdgeFormatBEL:
		p, err = s.readBinary(rank, size)
	case s.format == EdgeFormatGRB:
		p, err = s.readGRB(rank, size)
	case s.format == EdgeFormatSG || s.format == EdgeFormatWSG:
		p, err = s.readSG(rank, size)
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
	lo, hi := dataStart+graph.ShareStart(n, rank, size), dataStart+graph.ShareStart(n, rank+1, size)
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

// startText opens a pass over the text stream: a new parser and line
// reader, past a Matrix Market header.
func (s *edgeSource) startText() (*edgeParser, *lineReader, error) {
	p := s.newParser()
	lr, err := s.lines()
	if err != nil {
		return nil, nil, err
	}
	if p.format == EdgeFormatMTX {
		if err := p.readHeader(lr); err != nil {
			return nil, nil, err
		}
	}
	return p, lr, nil
}

// readStream reads rank's share of lines of the (decompressed) stream.
func (s *edgeSource) readStream(rank, size int) (*edgeParser, error) {
	var total *lineCounter // size > 1: the whole stream's counts
	var dataLines int64
	if s.plan != nil && s.plan.known {
		total, dataLines = s.plan.total, s.plan.dataLines
	} else if size > 1 {
		pre, lr, err := s.startText()
		if err != nil {
			return nil, err
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
	p, lr, err := s.startText()
	if err != nil {
		return nil, err
	}
	stopLine := int64(math.MaxInt64)
	if total != nil {
		lo, hi := graph.ShareStart(dataLines, rank, size), graph.ShareStart(dataLines, rank+1, size)
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
