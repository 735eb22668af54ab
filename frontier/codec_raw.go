package frontier

// rawCodec sends the bitmap's wire form unchanged (Lv et al.'s BIT, Alg. 1).
type rawCodec struct{}

func (rawCodec) Name() string { return nameRaw }

func (rawCodec) Encode(dst []byte, src Bitmap) ([]byte, error) {
	return src.AppendBytes(dst), nil
}

func (rawCodec) Decode(dst Bitmap, src []byte) error {
	return decodeRaw(nameRaw, dst, src, false)
}

func (rawCodec) DecodeOr(dst Bitmap, src []byte) error {
	return decodeRaw(nameRaw, dst, src, true)
}

// decodeRaw loads (or, when or is set, ORs) the wire form src into dst; name
// labels errors.
func decodeRaw(name string, dst Bitmap, src []byte, or bool) error {
	if len(src) != len(dst)*8 {
		return corrupt(name, "%d bytes for a bitmap of %d words", len(src), len(dst))
	}
	if or {
		orWire(dst, src)
		return nil
	}
	if err := dst.LoadBytes(src); err != nil {
		return corruptErr(name, "loading", err)
	}
	return nil
}
