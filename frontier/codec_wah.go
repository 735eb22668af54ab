package frontier

import (
	"fmt"

	"github.com/graphrun/graphrun/wah"
)

// wahCodec sends the word-aligned hybrid encoding of Lv et al. §IV (package
// wah) with 64-bit words ("wah", the faster to encode and decode) or 32-bit
// words ("wah32", Wu et al.'s original width: more groups fall entirely in a
// run of zeros, so sparse frontiers compress better). Either decoder reads
// both widths: the stream's header names its word size.
type wahCodec struct {
	name   string
	encode func(dst []byte, src []uint64) []byte
}

func newWAHCodec(name string) *wahCodec {
	if name == nameWAH32 {
		return &wahCodec{name: name, encode: wah.Encode32}
	}
	return &wahCodec{name: name, encode: wah.Encode} // wah.DefaultWordBits: 64
}

func (c *wahCodec) Name() string { return c.name }

func (c *wahCodec) Encode(dst []byte, src Bitmap) ([]byte, error) {
	return c.encode(dst, src), nil
}

func (c *wahCodec) Decode(dst Bitmap, src []byte) error {
	return decodeWAH(c.name, dst, src, false)
}

func (c *wahCodec) DecodeOr(dst Bitmap, src []byte) error {
	return decodeWAH(c.name, dst, src, true)
}

// decodeWAH decodes (or, when or is set, ORs) the WAH stream src into dst;
// name labels errors.
func decodeWAH(name string, dst Bitmap, src []byte, or bool) error {
	var err error
	if or {
		err = wah.DecodeOr(dst, src)
	} else {
		err = wah.Decode(dst, src)
	}
	if err != nil {
		return fmt.Errorf("frontier: %s: %w: %w", name, ErrCorrupt, err)
	}
	return nil
}
