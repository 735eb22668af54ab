package frontier

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zlib"
)

// Compression levels of Lv et al. §VII-B: ZLB-BS, ZLB-DF and ZLB-BC.
const (
	zlibBestSpeed       = zlib.BestSpeed
	zlibDefault         = zlib.DefaultCompression
	zlibBestCompression = zlib.BestCompression
)

// emptyZlib is a valid zlib stream of no bytes, used to create the reusable
// reader before the first message.
const emptyZlib = "\x78\x9c\x03\x00\x00\x00\x00\x01"

// zlibCodec deflates the raw bitmap bytes. Its writer and reader are created
// on first use and Reset for every later message.
type zlibCodec struct {
	name  string
	level int

	zw  *zlib.Writer
	out appendWriter // zw's target: the caller's dst

	zr   io.ReadCloser // implements zlib.Resetter
	in   bytes.Reader  // zr's source
	tail [1]byte

	scratch []byte // wire bytes on big-endian hosts; DecodeOr staging
}

func newZlibCodec(name string, level int) *zlibCodec {
	return &zlibCodec{name: name, level: level}
}

func (c *zlibCodec) Name() string { return c.name }

func (c *zlibCodec) Encode(dst []byte, src Bitmap) ([]byte, error) {
	c.out.b = dst
	defer func() { c.out.b = nil }()
	if c.zw == nil {
		zw, err := zlib.NewWriterLevel(&c.out, c.level)
		if err != nil {
			return dst, fmt.Errorf("frontier: %s: %w", c.name, err)
		}
		c.zw = zw
	} else {
		c.zw.Reset(&c.out)
	}
	if _, err := c.zw.Write(wireView(src, &c.scratch)); err != nil {
		return dst, fmt.Errorf("frontier: %s: %w", c.name, err)
	}
	if err := c.zw.Close(); err != nil {
		return dst, fmt.Errorf("frontier: %s: %w", c.name, err)
	}
	return c.out.b, nil
}

func (c *zlibCodec) Decode(dst Bitmap, src []byte) error {
	buf := decodeTarget(dst, &c.scratch)
	if err := c.inflate(buf, src); err != nil {
		return err
	}
	finishDecode(dst, buf)
	return nil
}

func (c *zlibCodec) DecodeOr(dst Bitmap, src []byte) error {
	buf := scratchBytes(&c.scratch, len(dst)*8)
	if err := c.inflate(buf, src); err != nil {
		return err
	}
	orWire(dst, buf)
	return nil
}

// inflate fills out with the stream in src, which must inflate to exactly
// len(out) bytes and end with its checksum. It never inflates more than
// len(out)+1 bytes.
func (c *zlibCodec) inflate(out, src []byte) error {
	if c.zr == nil {
		zr, err := zlib.NewReader(strings.NewReader(emptyZlib))
		if err != nil {
			return fmt.Errorf("frontier: %s: creating the reader: %w", c.name, err)
		}
		c.zr = zr
	}
	c.in.Reset(src)
	if err := c.zr.(zlib.Resetter).Reset(&c.in, nil); err != nil {
		return corruptErr(c.name, "header", err)
	}
	if _, err := io.ReadFull(c.zr, out); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return corrupt(c.name, "stream shorter than the %d-byte bitmap", len(out))
		}
		return corruptErr(c.name, "inflating", err)
	}
	// The stream must end here: reading on checks the checksum.
	switch n, err := io.ReadFull(c.zr, c.tail[:]); {
	case n > 0:
		return corrupt(c.name, "stream longer than the %d-byte bitmap", len(out))
	case !errors.Is(err, io.EOF):
		return corruptErr(c.name, "stream end", err)
	}
	if c.in.Len() != 0 {
		return corrupt(c.name, "%d trailing bytes", c.in.Len())
	}
	return nil
}
