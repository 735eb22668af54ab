package frontier

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"
)

// Bitmap is a set of vertex ids in [0, 64·len(b)).
type Bitmap []uint64

// WordsFor returns the number of words a bitmap of n bits needs.
func WordsFor(n int64) int { return int((n + 63) >> 6) }

// NewBitmap returns an empty bitmap able to hold ids in [0, n).
func NewBitmap(n int64) Bitmap { return make(Bitmap, WordsFor(n)) }

// Set adds i.
func (b Bitmap) Set(i int64) { b[i>>6] |= 1 << (uint64(i) & 63) }

// Unset removes i.
func (b Bitmap) Unset(i int64) { b[i>>6] &^= 1 << (uint64(i) & 63) }

// Test reports whether i is in the set.
func (b Bitmap) Test(i int64) bool { return b[i>>6]&(1<<(uint64(i)&63)) != 0 }

// Clear empties the set.
func (b Bitmap) Clear() { clear(b) }

// Count returns the number of ids in the set.
func (b Bitmap) Count() int64 {
	var n int
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return int64(n)
}

// ForEach calls fn for every id in increasing order.
func (b Bitmap) ForEach(fn func(i int64)) {
	for wi, w := range b {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			fn(int64(wi)<<6 | int64(t))
			w &= w - 1
		}
	}
}

// hostLittleEndian is true on the machines graphrun targets (amd64, arm64, ...);
// on a big-endian host Bytes falls back to an explicit encoding.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// AppendBytes appends the wire form of b (8 little-endian bytes per word) to dst.
func (b Bitmap) AppendBytes(dst []byte) []byte {
	if len(b) == 0 {
		return dst
	}
	if hostLittleEndian {
		return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)*8)...)
	}
	for _, w := range b {
		dst = binary.LittleEndian.AppendUint64(dst, w)
	}
	return dst
}

// LoadBytes overwrites b with the wire form in src, which must be exactly
// 8·len(b) bytes.
func (b Bitmap) LoadBytes(src []byte) error {
	if len(src) != len(b)*8 {
		return fmt.Errorf("frontier: bitmap of %d words needs %d bytes, got %d", len(b), len(b)*8, len(src))
	}
	if len(b) == 0 {
		return nil
	}
	if hostLittleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)*8), src)
		return nil
	}
	for i := range b {
		b[i] = binary.LittleEndian.Uint64(src[i*8:])
	}
	return nil
}
