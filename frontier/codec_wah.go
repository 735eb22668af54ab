package frontier

import (
	"fmt"

	"github.com/graphrun/graphrun/wah"
)

// wahCodec sends the word-aligned hybrid encoding of paper 004 §IV (package
// wah, its default word width).
type wahCodec struct{}

func (*wahCodec) Name() string { return nameWAH }

func (*wahCodec) Encode(dst []byte, src Bitmap) ([]byte, error) {
	return wah.Encode(dst, src), nil
}

func (*wahCodec) Decode(dst Bitmap, src []byte) error {
	return decodeWAH(nameWAH, dst, src, false)
}

func (*wahCodec) DecodeOr(dst Bitmap, src []byte) error {
	return decodeWAH(nameWAH, dst, src, true)
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
