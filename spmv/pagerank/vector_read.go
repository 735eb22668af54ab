package pagerank

// The reader of a Vector file: "id weight" lines, the format a caller
// gives a personalization, dangling distribution or start vector in.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// maxVectorLine bounds a line of a vector file.
const maxVectorLine = 1 << 16

// ReadVector reads a Vector from r, named name in its errors: one vertex a
// line, "id weight" (space or tab separated; "id" alone has weight 1),
// ids as in the graph's file, from which idOffset is subtracted (1 for
// Matrix Market, whose ids are 1-based). Blank lines and lines starting
// with '#' or '%' are skipped. An error names name:line: an id that is not
// an integer, a weight that is not a finite non-negative number, more than
// two fields, an id listed twice, no vertex, or weights that sum to 0.
func ReadVector(r io.Reader, name string, idOffset int64) (*Vector, error) {
	v := &Vector{Name: name, IDOffset: idOffset}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxVectorLine)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' || text[0] == '%' {
			continue
		}
		id, w, err := parseVectorLine(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		v.IDs, v.Weights, v.Lines = append(v.IDs, id-idOffset), append(v.Weights, w), append(v.Lines, line)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d bytes", name, line+1, maxVectorLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := v.check(); err != nil {
		return nil, err
	}
	return v, nil
}

// parseVectorLine parses "id [weight]".
func parseVectorLine(text string) (int64, float64, error) {
	f := strings.Fields(text)
	if len(f) > 2 {
		return 0, 0, fmt.Errorf("%d fields, want \"id weight\"", len(f))
	}
	id, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("id %q is not an integer", f[0])
	}
	if id < 0 {
		return 0, 0, fmt.Errorf("id %d is negative", id)
	}
	w := 1.0
	if len(f) == 2 {
		w, err = strconv.ParseFloat(f[1], 64)
		if err != nil || math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return 0, 0, fmt.Errorf("weight %q of vertex %d is not a finite non-negative number", f[1], id)
		}
	}
	return id, w, nil
}

// ReadVectorFile is ReadVector of the file at path.
func ReadVectorFile(path string, idOffset int64) (*Vector, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadVector(f, path, idOffset)
}
