package edgelist

// A second, deliberately simple reader of graphrun's text edge list (.el),
// line by line with bufio.Scanner: the differential oracle of the one
// production reader (read.go), which read_fuzz_test.go and the tests
// below compare it with. It is test code only.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/graphrun/graphrun/graph"
)

// oracleMaxLine is the longest text line accepted, comments included.
const oracleMaxLine = 1 << 20

func oracleDecodeText(r io.Reader, name string, emit func([]graph.Edge) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), oracleMaxLine)
	batch := make([]graph.Edge, 0, decodeBatch)
	var line int64
	for sc.Scan() {
		line++
		e, ok, err := oracleTextLine(sc.Bytes())
		if err != nil {
			return &EdgeListError{Name: name, Line: line, Err: err}
		}
		if !ok {
			continue
		}
		batch = append(batch, e)
		if len(batch) == cap(batch) {
			if err := emit(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line longer than %d bytes: %w", oracleMaxLine, err)
		}
		return &EdgeListError{Name: name, Line: line + 1, Err: err}
	}
	if len(batch) > 0 {
		return emit(batch)
	}
	return nil
}

// oracleTextLine parses one text line: ok is false for a blank or comment
// line.
func oracleTextLine(b []byte) (e graph.Edge, ok bool, err error) {
	if i := bytes.IndexByte(b, '#'); i >= 0 {
		b = b[:i]
	}
	var fields [2][]byte
	n := 0
	for {
		for len(b) > 0 && oracleBlank(b[0]) {
			b = b[1:]
		}
		if len(b) == 0 {
			break
		}
		end := 0
		for end < len(b) && !oracleBlank(b[end]) {
			end++
		}
		if n < len(fields) {
			fields[n] = b[:end]
		}
		n++
		b = b[end:]
	}
	switch {
	case n == 0:
		return graph.Edge{}, false, nil
	case n != 2:
		return graph.Edge{}, false, fmt.Errorf("want 2 columns (u v), got %d", n)
	}
	u, err := oracleVertexID(fields[0])
	if err != nil {
		return graph.Edge{}, false, err
	}
	v, err := oracleVertexID(fields[1])
	if err != nil {
		return graph.Edge{}, false, err
	}
	return graph.Edge{U: u, V: v}, true, nil
}

// oracleBlank reports whether c separates columns (a space, tab or carriage
// return, so CRLF files read as well).
func oracleBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// oracleVertexID parses a non-negative decimal int64.
func oracleVertexID(b []byte) (int64, error) {
	if len(b) > 0 && b[0] == '-' {
		if _, err := oracleDecimal(b[1:]); err == nil {
			return 0, fmt.Errorf("negative vertex id %s", b)
		}
	}
	return oracleDecimal(b)
}

// oracleDecimal parses a string of decimal digits as a non-negative int64.
func oracleDecimal(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("bad integer %s", quoteField(b))
	}
	var x uint64
	for _, c := range b {
		d := uint64(c) - '0'
		if d > 9 {
			return 0, fmt.Errorf("bad integer %s", quoteField(b))
		}
		if x > (math.MaxInt64-d)/10 {
			return 0, fmt.Errorf("bad integer %s: out of range", quoteField(b))
		}
		x = x*10 + d
	}
	return int64(x), nil
}
