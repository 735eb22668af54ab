package frontier

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// listCodec sends the set-bit positions: uvarint word count, uvarint
// position count, then uvarint gaps (first position, then position −
// previous − 1).
type listCodec struct{}

func (*listCodec) Name() string { return nameList }

func (*listCodec) Encode(dst []byte, src Bitmap) ([]byte, error) {
	return appendList(dst, src, src.Count()), nil
}

// appendList appends the list encoding of src, which has count set bits.
func appendList(dst []byte, src Bitmap, count int64) []byte {
	dst = slices.Grow(dst, 2*binary.MaxVarintLen64+int(count))
	dst = binary.AppendUvarint(dst, uint64(len(src)))
	dst = binary.AppendUvarint(dst, uint64(count))
	var next uint64 // first position the next gap counts from
	for wi, w := range src {
		base := uint64(wi) << 6
		for w != 0 {
			pos := base | uint64(bits.TrailingZeros64(w))
			w &= w - 1
			gap := pos - next
			if gap < 0x80 {
				dst = append(dst, byte(gap))
			} else {
				dst = binary.AppendUvarint(dst, gap)
			}
			next = pos + 1
		}
	}
	return dst
}

func (*listCodec) Decode(dst Bitmap, src []byte) error {
	clear(dst)
	return decodeList(nameList, dst, src)
}

func (*listCodec) DecodeOr(dst Bitmap, src []byte) error {
	return decodeList(nameList, dst, src)
}

// decodeList sets in dst the positions listed in src; name labels errors.
func decodeList(name string, dst Bitmap, src []byte) error {
	words, n := binary.Uvarint(src)
	if n <= 0 {
		return corrupt(name, "bad length header")
	}
	if words != uint64(len(dst)) {
		return corrupt(name, "list of a %d-word bitmap for %d words", words, len(dst))
	}
	src = src[n:]
	count, n := binary.Uvarint(src)
	if n <= 0 {
		return corrupt(name, "bad count header")
	}
	src = src[n:]
	nbits := uint64(len(dst)) << 6
	// Every gap takes at least one byte and every position is distinct.
	if count > uint64(len(src)) || count > nbits {
		return corrupt(name, "%d positions in %d bytes for %d bits", count, len(src), nbits)
	}
	var next uint64
	for i := uint64(0); i < count; i++ {
		var gap uint64
		if len(src) > 0 && src[0] < 0x80 {
			gap = uint64(src[0])
			src = src[1:]
		} else {
			g, n := binary.Uvarint(src)
			if n <= 0 {
				return corrupt(name, "bad gap %d of %d", i, count)
			}
			gap, src = g, src[n:]
		}
		if gap >= nbits-next {
			return corrupt(name, "position beyond the %d-bit bitmap", nbits)
		}
		pos := next + gap
		dst[pos>>6] |= 1 << (pos & 63)
		next = pos + 1
	}
	if len(src) != 0 {
		return corrupt(name, "%d trailing bytes", len(src))
	}
	return nil
}
