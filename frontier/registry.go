package frontier

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
)

// ErrCorrupt is wrapped by every decoding error caused by the input bytes
// (truncated, malformed, trailing data, or describing a bitmap of another
// length than the destination).
var ErrCorrupt = errors.New("corrupt frontier encoding")

// Codec names, in the order Names lists them.
const (
	nameRaw     = "raw"
	nameList    = "list"
	nameWAH     = "wah"
	nameWAH32   = "wah32"
	nameZlibBS  = "zlib-bs"
	nameZlibDF  = "zlib-df"
	nameZlibBC  = "zlib-bc"
	nameSnappy  = "snappy"
	nameRoaring = "roaring"
	nameAuto    = "auto"
)

// Names lists the codec names New accepts, in a fixed order: the fixed
// encodings from plainest to most elaborate, then auto.
func Names() []string {
	return []string{nameRaw, nameList, nameWAH, nameWAH32, nameZlibBS, nameZlibDF, nameZlibBC, nameSnappy, nameRoaring, nameAuto}
}

// New returns a fresh instance of the codec called name (see Names). Each
// instance keeps its own reusable state, so every goroutine needs its own.
//
// The encodings (Lv et al. §IV and §VII-B; W = len(bitmap) words):
//
//   - raw: the bitmap's wire form, 8·W little-endian bytes (Lv et al.'s BIT).
//     The decoder requires exactly 8·len(dst) bytes.
//   - list: uvarint W, uvarint count n, then the n set-bit positions in
//     increasing order as uvarint gaps (the first position itself, then
//     position − previous − 1). The decoder requires W = len(dst), positions
//     < 64·len(dst) and nothing after the last gap.
//   - wah, wah32: word-aligned hybrid compression (package wah) of the W
//     words in 64-bit or 32-bit WAH words; the stream must describe exactly
//     len(dst) words (either decoder accepts either width).
//   - zlib-bs, zlib-df, zlib-bc: a zlib stream (RFC 1950) of the raw bytes at
//     best speed, default and best compression (Lv et al.'s ZLB-BS, ZLB-DF,
//     ZLB-BC). The decoder inflates at most 8·len(dst)+1 bytes, checks the
//     Adler-32 checksum and rejects trailing bytes, so a decompression bomb is
//     an error, not an allocation.
//   - snappy: a Snappy block (s2.EncodeSnappy) of the raw bytes. The decoder
//     checks the block's length header against 8·len(dst) before decoding and
//     decodes straight into dst. Snappy blocks have no checksum: a corrupt
//     block may decode to a wrong bitmap of the right length.
//   - roaring: a portable Roaring bitmap (RoaringFormatSpec) of the set-bit
//     positions, run-optimised. The decoder validates the containers, rejects
//     trailing bytes and positions ≥ 64·len(dst) (the format does not record
//     the bitmap length, so a larger dst is accepted). Roaring positions are 32-bit,
//     so Encode fails for bitmaps of more than 2^32 bits. Unlike the others,
//     this codec allocates per message (the library's containers).
//   - auto: one tag byte naming the choice, then that encoding's payload:
//     0 empty (no payload, so any len(dst) accepts it), 1 list, 2 wah, 3 raw.
//     Encode counts the set bits c and the mixed words m (neither all zeros
//     nor all ones) in one pass. c = 0 gives empty. Otherwise the candidates
//     are encoded and the shortest is sent: list when c < 64·W/8 (below that
//     density a list cannot beat raw); wah when at least W/64 words are
//     uniform (else it cannot beat raw), but not after a list of at most 4·m
//     bytes (WAH's least cost); raw always, without encoding. The thresholds
//     and the sizes that back them are on autoListDensity. auto implements
//     Chooser.
//
// Encode fails only when the bitmap is too large for the format (snappy above
// 4 GiB, roaring above 2^32 bits). Decoding errors wrap ErrCorrupt. After a
// failed Decode or DecodeOr the contents of dst are unspecified: the message
// must be discarded.
func New(name string) (Codec, error) {
	switch name {
	case nameRaw:
		return rawCodec{}, nil
	case nameList:
		return &listCodec{}, nil
	case nameWAH, nameWAH32:
		return newWAHCodec(name), nil
	case nameZlibBS:
		return newZlibCodec(nameZlibBS, zlibBestSpeed), nil
	case nameZlibDF:
		return newZlibCodec(nameZlibDF, zlibDefault), nil
	case nameZlibBC:
		return newZlibCodec(nameZlibBC, zlibBestCompression), nil
	case nameSnappy:
		return &snappyCodec{}, nil
	case nameRoaring:
		return &roaringCodec{}, nil
	case nameAuto:
		return &autoCodec{}, nil
	}
	return nil, fmt.Errorf("frontier: unknown codec %q (have %v)", name, Names())
}

// corrupt returns an error naming the codec (or "auto/list"-style path) that
// wraps ErrCorrupt.
func corrupt(codec string, format string, args ...any) error {
	return fmt.Errorf("frontier: %s: %w: %s", codec, ErrCorrupt, fmt.Sprintf(format, args...))
}

// corruptErr is corrupt for an error from a library decoder, which it wraps
// as well.
func corruptErr(codec string, what string, err error) error {
	return fmt.Errorf("frontier: %s: %w: %s: %w", codec, ErrCorrupt, what, err)
}

// appendWriter is an io.Writer appending to b, used to point compressors at
// the caller's dst without an intermediate buffer.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// wireView returns the wire form of b (8·len(b) little-endian bytes): on
// little-endian hosts b's own memory, otherwise b encoded into *scratch.
func wireView(b Bitmap, scratch *[]byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if hostLittleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)*8)
	}
	*scratch = b.AppendBytes((*scratch)[:0])
	return *scratch
}

// decodeTarget returns a buffer of 8·len(dst) bytes to decode the wire form
// of dst into: dst's own memory on little-endian hosts, otherwise *scratch.
// After filling it, call finishDecode.
func decodeTarget(dst Bitmap, scratch *[]byte) []byte {
	if len(dst) == 0 {
		return nil
	}
	if hostLittleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(dst)*8)
	}
	return scratchBytes(scratch, len(dst)*8)
}

// finishDecode moves buf, filled by the caller after decodeTarget, into dst.
func finishDecode(dst Bitmap, buf []byte) {
	if !hostLittleEndian && len(dst) > 0 {
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint64(buf[i*8:])
		}
	}
}

// scratchBytes returns (*s)[:n], growing *s when needed.
func scratchBytes(s *[]byte, n int) []byte {
	if cap(*s) < n {
		*s = make([]byte, n)
	}
	return (*s)[:n]
}

// orWire ORs the wire form in src (exactly 8·len(dst) bytes) into dst.
func orWire(dst Bitmap, src []byte) {
	src = src[:len(dst)*8]
	for i := range dst {
		dst[i] |= binary.LittleEndian.Uint64(src[i*8:])
	}
}
