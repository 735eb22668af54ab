// The text parser of the edge-list readers (read.go): SNAP, .el and .wel
// lines, the chunks of edges a streamed read hands on, and the error
// messages that name file:line.

package edgelist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/graphrun/graphrun/graph"
)

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
	edges   []graph.Edge
	// weights, when weighted, holds edges[i]'s weight at i (weights.go).
	weights  []float32
	weighted bool
	src      *edgeSource // its context and emit
	// directedSet: a binary graph said whether its edges are directed
	// (and a .grb whether its tuples are a symmetric matrix's entries).
	directedSet, directed, symmetric bool
	// mirror: a symmetric Matrix Market entry (i, j), i ≠ j, also gives
	// the edge (j, i), unless the source reads entries only.
	mirror bool
}

// emitEdges is the chunk of edges a streamed read hands to its emit at
// once: the parsers flush before a line once they hold emitEdges edges, so
// the chunk buffer (allocated once per pass, emitEdges plus a decoding
// batch of .bel tuples) never grows.
const emitEdges = 1 << 16

// streamed reports whether the edges go to the source's emit in chunks,
// and gives a streamed parser its chunk buffer.
func (p *edgeParser) streamed() bool {
	if p.src == nil || (p.src.emit == nil && p.src.emitWeighted == nil) {
		return false
	}
	if p.edges == nil {
		n := int64(emitEdges + decodeBatch)
		if p.src.stream == nil && !p.src.gzipped {
			n = min(n, p.src.size/2+2) // an edge takes 4 bytes at least, 2 per symmetric entry
		}
		p.edges = make([]graph.Edge, 0, n)
		if p.weighted {
			p.weights = make([]float32, 0, n)
		}
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
	var err error
	if p.weighted {
		err = p.src.emitWeighted(p.edges, p.weights)
	} else {
		err = p.src.emit(p.edges)
	}
	p.edges, p.weights = p.edges[:0], p.weights[:0]
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
		p.edges = make([]graph.Edge, 0, est)
		if p.weighted {
			p.weights = make([]float32, 0, est)
		}
	}
}

// addEdges appends es, with their weights ws when the parser is
// weighted, and tracks the largest id.
func (p *edgeParser) addEdges(es []graph.Edge, ws []float32) {
	p.streamed() // the chunk buffer, if streamed
	for _, e := range es {
		p.maxID = max(p.maxID, e.U, e.V)
	}
	p.edges = append(p.edges, es...)
	if p.weighted {
		p.weights = append(p.weights, ws...)
	}
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
				edges = append(edges, graph.Edge{U: u, V: v})
				maxID = max(maxID, u, v)
				line++
				i = next
				continue
			}
		}
		end := lineEnd(b, i)
		p.line = line
		e, w, ok, err := p.textLine(b[i:end])
		if err != nil {
			return 0, false, err
		}
		if ok {
			edges = append(edges, e)
			maxID = max(maxID, e.U, e.V)
			if p.weighted {
				p.weights = append(p.weights, w)
			}
		}
		line++
		i = end + 1
	}
	return len(b), false, nil
}

// textLine parses one text line (without its '\n') at p.line: ok is false
// for a blank or comment line; w is a .wel line's weight when the parser
// is weighted.
func (p *edgeParser) textLine(line []byte) (e graph.Edge, w float32, ok bool, err error) {
	j := skipBlanks(line, 0)
	if j == len(line) || line[j] == '#' {
		return graph.Edge{}, 0, false, nil
	}
	u, k, ok := scanID(line, j, '#')
	if !ok {
		return graph.Edge{}, 0, false, p.fieldError(line, j, '#', "vertex id")
	}
	j = skipBlanks(line, k)
	if j == len(line) || line[j] == '#' {
		return graph.Edge{}, 0, false, p.columnsError(line)
	}
	v, k, ok := scanID(line, j, '#')
	if !ok {
		return graph.Edge{}, 0, false, p.fieldError(line, j, '#', "vertex id")
	}
	j = skipBlanks(line, k)
	if p.format == EdgeFormatWEL {
		if j == len(line) || line[j] == '#' {
			return graph.Edge{}, 0, false, p.columnsError(line)
		}
		k = fieldEnd(line, j, '#')
		if w, err = p.value(line[j:k], "weight"); err != nil {
			return graph.Edge{}, 0, false, err
		}
		j = skipBlanks(line, k)
	}
	if j != len(line) && line[j] != '#' {
		return graph.Edge{}, 0, false, p.columnsError(line)
	}
	return graph.Edge{U: u, V: v}, w, true, nil
}

// columnsError reports a text line with the wrong number of columns.
func (p *edgeParser) columnsError(line []byte) error {
	n := countFields(line, '#')
	if p.format == EdgeFormatWEL {
		return p.errorf("want 3 columns (u v weight), got %d", n)
	}
	return p.errorf("want 2 columns (u v), got %d", n)
}
