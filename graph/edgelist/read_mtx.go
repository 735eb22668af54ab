// The Matrix Market part of the edge-list parser (read.go, "Formats"): the
// banner and size line, and the entry lines with their 1-based indices.

package edgelist

import (
	"fmt"
	"io"
	"strings"

	"github.com/graphrun/graphrun/graph"
)

// mtxHeader is what a Matrix Market banner and size line say.
type mtxHeader struct {
	rows, cols, nnz int64
	field           string // "pattern", "real" or "integer"
	symmetric       bool
	sizeLine        int64 // line number of the size line
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
	if p.weighted && p.mtx.field == "pattern" {
		return &EdgeListError{Name: p.name, Line: 1, Err: fmt.Errorf("%w: a pattern matrix holds none (shortest paths need a real or integer one)", ErrUnweighted)}
	}
	p.mtx.sizeLine = p.line
	p.line++
	p.mirror = p.mtx.symmetric && (p.src == nil || !p.src.entries)
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
				p.addEntry(r, c, 0)
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
		var w float32
		var err error
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
			if w, err = p.value(line[j:fieldEnd(line, j, '\n')], what); err != nil {
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
		p.addEntry(r, c, w)
	}
	return len(b), false, nil
}

// addEntry appends the edge of the checked 1-based entry (r, c), and its
// mirror when the symmetric matrix is mirrored, each with weight w when
// the parser is weighted, and counts its line.
func (p *edgeParser) addEntry(r, c int64, w float32) {
	u, v := r-1, c-1
	p.maxID = max(p.maxID, u, v)
	p.edges = append(p.edges, graph.Edge{U: u, V: v})
	if p.weighted {
		p.weights = append(p.weights, w)
	}
	if p.mirror && u != v {
		p.edges = append(p.edges, graph.Edge{U: v, V: u})
		if p.weighted {
			p.weights = append(p.weights, w)
		}
	}
	p.line++
}
