package wah

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unsafe"
)

const (
	magic   = 'W'
	version = 1

	// MaxBits is the largest bitmap length, in bits, an encoding may claim.
	// It keeps every bit offset and count comfortably inside an int64.
	MaxBits = 1 << 62

	// DefaultWordBits is the WAH word width Encode uses (see the package doc
	// for the measurements behind the choice).
	DefaultWordBits = 64

	// maxRun32 and maxRun64 are the largest run lengths, in groups, a fill
	// word's counter holds: w−2 bits.
	maxRun32 = 1<<30 - 1
	maxRun64 = 1<<62 - 1
)

// defaultWord is the word type behind Encode; it must match DefaultWordBits.
type defaultWord = uint64

// Sentinel errors. Every error the package returns wraps one of them, so
// callers can test with errors.Is.
var (
	// ErrCorrupt reports a malformed, truncated or inconsistent encoding.
	ErrCorrupt = errors.New("wah: corrupt encoding")
	// ErrBitCount reports an encoding whose bit count is not the one the
	// destination bitmap holds.
	ErrBitCount = errors.New("wah: bit count mismatch")
	// ErrMismatch reports two operands of And or Or that differ in word
	// width or bit count.
	ErrMismatch = errors.New("wah: operands do not match")
)

// word is the WAH word type: uint32 gives 31-bit groups, uint64 63-bit groups.
// All arithmetic is done in uint64; the type only fixes the constants below,
// which the compiler folds in each instantiation.
type word interface{ ~uint32 | ~uint64 }

// wordBytes is the encoded size of one word.
func wordBytes[W word]() int { return int(unsafe.Sizeof(W(0))) }

// groupBits is G = w−1, the number of bitmap bits in a literal word and in
// one group of a fill.
func groupBits[W word]() uint64 { return uint64(unsafe.Sizeof(W(0)))*8 - 1 }

// wordBits returns G (groupBits) and the masks of a W word's header bits:
// flag, set in a fill word; fillOne, a fill's bit value; runMask, the run
// length below it.
func wordBits[W word]() (g, flag, fillOne, runMask uint64) {
	g = groupBits[W]()
	fillOne = 1 << (g - 1)
	return g, 1 << g, fillOne, fillOne - 1
}

// maxRun is the largest run length a fill word holds: 2^(w−2) − 1 groups.
func maxRun[W word]() uint64 { return 1<<(groupBits[W]()-1) - 1 }

// load returns word i of a word section.
func load[W word](body []byte, i int) uint64 {
	if wordBytes[W]() == 4 {
		return uint64(binary.LittleEndian.Uint32(body[4*i:]))
	}
	return binary.LittleEndian.Uint64(body[8*i:])
}

// store overwrites the word at byte offset off.
func store[W word](b []byte, off int, x uint64) {
	if wordBytes[W]() == 4 {
		binary.LittleEndian.PutUint32(b[off:], uint32(x))
		return
	}
	binary.LittleEndian.PutUint64(b[off:], x)
}

// appendWord appends one encoded word.
func appendWord[W word](dst []byte, x uint64) []byte {
	if wordBytes[W]() == 4 {
		return binary.LittleEndian.AppendUint32(dst, uint32(x))
	}
	return binary.LittleEndian.AppendUint64(dst, x)
}

// header is a parsed encoding header.
type header struct {
	wb    int    // word size in bytes: 4 or 8
	nbits uint64 // bitmap length in bits
	body  []byte // the word section, a whole number of words
}

func appendHeader(dst []byte, wb int, nbits uint64) []byte {
	dst = append(dst, magic, version<<4|byte(wb))
	return binary.AppendUvarint(dst, nbits)
}

func parseHeader(src []byte) (header, error) {
	if len(src) < 2 {
		return header{}, fmt.Errorf("truncated header (%d bytes): %w", len(src), ErrCorrupt)
	}
	if src[0] != magic {
		return header{}, fmt.Errorf("bad magic byte %#02x: %w", src[0], ErrCorrupt)
	}
	if v := src[1] >> 4; v != version {
		return header{}, fmt.Errorf("unsupported version %d: %w", v, ErrCorrupt)
	}
	wb := int(src[1] & 15)
	if wb != 4 && wb != 8 {
		return header{}, fmt.Errorf("unsupported word size %d bytes: %w", wb, ErrCorrupt)
	}
	nbits, n := binary.Uvarint(src[2:])
	if n <= 0 {
		return header{}, fmt.Errorf("bad bit count varint: %w", ErrCorrupt)
	}
	if nbits > MaxBits {
		return header{}, fmt.Errorf("bit count %d exceeds %d: %w", nbits, uint64(MaxBits), ErrCorrupt)
	}
	body := src[2+n:]
	if len(body)%wb != 0 {
		return header{}, fmt.Errorf("word section of %d bytes is not a whole number of %d-byte words: %w", len(body), wb, ErrCorrupt)
	}
	return header{wb: wb, nbits: nbits, body: body}, nil
}

// Encode appends the WAH encoding of the dense bitmap src (64·len(src) bits,
// bit i in bit i%64 of src[i/64]) to dst, using DefaultWordBits-bit words,
// and returns the extended slice. It allocates only to grow dst.
func Encode(dst []byte, src []uint64) []byte {
	return encode[defaultWord](dst, src, maxRun[defaultWord]())
}

// Encode32 is Encode with 32-bit WAH words (31-bit groups).
func Encode32(dst []byte, src []uint64) []byte {
	return encode[uint32](dst, src, maxRun32)
}

// Encode64 is Encode with 64-bit WAH words (63-bit groups).
func Encode64(dst []byte, src []uint64) []byte {
	return encode[uint64](dst, src, maxRun64)
}

// Decode overwrites dst with the bitmap encoded in src. The encoding must
// describe exactly 64·len(dst) bits. On error the contents of dst are
// unspecified (a prefix may have been written), but nothing outside dst is
// touched and nothing is allocated.
func Decode(dst []uint64, src []byte) error {
	return decodeInto(dst, src, false)
}

// DecodeOr ORs the bitmap encoded in src into dst, with the checks of
// Decode. On error a prefix of the encoding may already have been ORed in.
func DecodeOr(dst []uint64, src []byte) error {
	return decodeInto(dst, src, true)
}

func decodeInto(dst []uint64, src []byte, or bool) error {
	h, err := parseHeader(src)
	if err != nil {
		return err
	}
	if want := 64 * uint64(len(dst)); h.nbits != want {
		return fmt.Errorf("encoding holds %d bits, destination %d: %w", h.nbits, want, ErrBitCount)
	}
	if h.wb == 4 {
		return decode[uint32](dst, h.body, h.nbits, or)
	}
	return decode[uint64](dst, h.body, h.nbits, or)
}

// Bits returns the bitmap length in bits recorded in the header of src. It
// checks the header only; Validate checks the rest.
func Bits(src []byte) (int64, error) {
	h, err := parseHeader(src)
	if err != nil {
		return 0, err
	}
	return int64(h.nbits), nil
}

// WordBits returns the WAH word width (32 or 64) recorded in the header of src.
func WordBits(src []byte) (int, error) {
	h, err := parseHeader(src)
	if err != nil {
		return 0, err
	}
	return 8 * h.wb, nil
}

// Count returns the number of set bits in the bitmap encoded in src, without
// decoding it. It fails on a corrupt encoding.
func Count(src []byte) (int64, error) {
	h, err := parseHeader(src)
	if err != nil {
		return 0, err
	}
	if h.wb == 4 {
		return count[uint32](h.body, h.nbits)
	}
	return count[uint64](h.body, h.nbits)
}

// Validate checks the whole structure of src: header, word section length,
// every fill's run length, the total number of groups against the bit count,
// and the active word. An encoding that validates decodes without error into
// a bitmap of Bits(src) bits (when that is a multiple of 64).
func Validate(src []byte) error {
	_, err := Count(src)
	return err
}

// ForEach calls fn for every set bit of the bitmap encoded in src, in
// increasing order, without decoding into a dense bitmap: literal words are
// scanned, 1-fills expand and 0-fills are skipped. src is validated first, so
// fn is never called for a corrupt encoding.
func ForEach(src []byte, fn func(i int64)) error {
	h, err := parseHeader(src)
	if err != nil {
		return err
	}
	if h.wb == 4 {
		if _, err := count[uint32](h.body, h.nbits); err != nil {
			return err
		}
		forEach[uint32](h.body, h.nbits, fn)
		return nil
	}
	if _, err := count[uint64](h.body, h.nbits); err != nil {
		return err
	}
	forEach[uint64](h.body, h.nbits, fn)
	return nil
}

// And appends to dst the encoding of the bitwise AND of the bitmaps encoded
// in a and b, which must have the same word width and bit count. It merges
// the two run by run without decoding, and the result is canonical: maximal
// fills, no literal that is all zeros or all ones.
func And(dst []byte, a, b []byte) ([]byte, error) {
	return binop(dst, a, b, true)
}

// Or is And for the bitwise OR.
func Or(dst []byte, a, b []byte) ([]byte, error) {
	return binop(dst, a, b, false)
}

func binop(dst []byte, a, b []byte, and bool) ([]byte, error) {
	ha, err := parseHeader(a)
	if err != nil {
		return dst, fmt.Errorf("first operand: %w", err)
	}
	hb, err := parseHeader(b)
	if err != nil {
		return dst, fmt.Errorf("second operand: %w", err)
	}
	if ha.wb != hb.wb {
		return dst, fmt.Errorf("word widths %d and %d bits: %w", 8*ha.wb, 8*hb.wb, ErrMismatch)
	}
	if ha.nbits != hb.nbits {
		return dst, fmt.Errorf("bit counts %d and %d: %w", ha.nbits, hb.nbits, ErrMismatch)
	}
	if ha.wb == 4 {
		return merge[uint32](dst, ha.body, hb.body, ha.nbits, and, maxRun32)
	}
	return merge[uint64](dst, ha.body, hb.body, ha.nbits, and, maxRun64)
}

// tz is the index of the lowest set bit of a non-zero x.
func tz(x uint64) uint64 { return uint64(bits.TrailingZeros64(x)) }
