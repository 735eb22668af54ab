package frontier

import (
	"fmt"
	"slices"

	"github.com/klauspost/compress/s2"
)

// snappyCodec sends a Snappy block of the raw bitmap bytes.
type snappyCodec struct {
	scratch []byte // wire bytes on big-endian hosts; DecodeOr staging
}

func (*snappyCodec) Name() string { return nameSnappy }

func (c *snappyCodec) Encode(dst []byte, src Bitmap) ([]byte, error) {
	raw := wireView(src, &c.scratch)
	n := s2.MaxEncodedLen(len(raw))
	if n < 0 {
		return dst, fmt.Errorf("frontier: %s: %w: %d bytes", nameSnappy, s2.ErrTooLarge, len(raw))
	}
	dst = slices.Grow(dst, n)
	out := s2.EncodeSnappy(dst[len(dst):len(dst)+n], raw)
	return dst[:len(dst)+len(out)], nil
}

func (c *snappyCodec) Decode(dst Bitmap, src []byte) error {
	buf := decodeTarget(dst, &c.scratch)
	if err := snappyInto(buf, src); err != nil {
		return err
	}
	finishDecode(dst, buf)
	return nil
}

func (c *snappyCodec) DecodeOr(dst Bitmap, src []byte) error {
	buf := scratchBytes(&c.scratch, len(dst)*8)
	if err := snappyInto(buf, src); err != nil {
		return err
	}
	orWire(dst, buf)
	return nil
}

// snappyInto decodes the block src into out, which it must fill exactly.
func snappyInto(out, src []byte) error {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return corruptErr(nameSnappy, "length header", err)
	}
	if n != len(out) {
		return corrupt(nameSnappy, "block of %d bytes for a %d-byte bitmap", n, len(out))
	}
	got, err := s2.Decode(out, src)
	if err != nil {
		return corruptErr(nameSnappy, "decoding", err)
	}
	if len(got) != len(out) || (len(got) > 0 && &got[0] != &out[0]) {
		return corrupt(nameSnappy, "decoded outside the bitmap")
	}
	return nil
}
