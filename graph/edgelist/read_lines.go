// The line reader of the edge-list readers (read.go): lines handed out of
// one reusable buffer, and a counter of lines and Matrix Market entries
// that skips bytes without parsing them.

package edgelist

import (
	"bytes"
	"errors"
	"io"
	"math"
)

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
