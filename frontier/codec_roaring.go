package frontier

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/RoaringBitmap/roaring/v2"
)

// Constants of the portable Roaring format (RoaringFormatSpec).
const (
	roaringCookieRuns   = 12347 // low 16 bits; high 16 bits hold size−1
	roaringCookieNoRuns = 12346 // followed by a 32-bit size
	roaringMaxArray     = 4096  // larger containers are bitmaps
	roaringNoOffsets    = 4     // run-format streams with fewer containers omit offsets
	roaringMaxBits      = 1 << 32
)

// roaringCodec sends a Roaring bitmap of the set-bit positions.
type roaringCodec struct {
	rb      roaring.Bitmap
	out     appendWriter
	scratch Bitmap // DecodeOr staging
}

func (*roaringCodec) Name() string { return nameRoaring }

func (c *roaringCodec) Encode(dst []byte, src Bitmap) ([]byte, error) {
	if uint64(len(src))*64 > roaringMaxBits {
		return dst, fmt.Errorf("frontier: %s: %d-bit bitmap exceeds the format's 2^32 positions", nameRoaring, uint64(len(src))*64)
	}
	// Bitmap containers share src's words (copy-on-write); src is not
	// modified and the references are dropped by Clear.
	c.rb.Clear()
	defer c.rb.Clear()
	c.rb.FromDense(src, false)
	c.rb.RunOptimize()
	c.out.b = dst
	defer func() { c.out.b = nil }()
	if _, err := c.rb.WriteTo(&c.out); err != nil {
		return dst, fmt.Errorf("frontier: %s: %w", nameRoaring, err)
	}
	return c.out.b, nil
}

func (c *roaringCodec) Decode(dst Bitmap, src []byte) error {
	if err := c.load(dst, src); err != nil {
		return err
	}
	clear(dst)
	c.rb.WriteDenseTo(dst)
	c.rb.Clear()
	return nil
}

func (c *roaringCodec) DecodeOr(dst Bitmap, src []byte) error {
	if err := c.load(dst, src); err != nil {
		return err
	}
	if cap(c.scratch) < len(dst) {
		c.scratch = make(Bitmap, len(dst))
	}
	s := c.scratch[:len(dst)]
	clear(s)
	c.rb.WriteDenseTo(s)
	c.rb.Clear()
	for i, w := range s {
		dst[i] |= w
	}
	return nil
}

// load validates src for a bitmap of len(dst) words and reads it into c.rb.
func (c *roaringCodec) load(dst Bitmap, src []byte) error {
	if err := checkRoaring(src, uint64(len(dst))*64); err != nil {
		return err
	}
	c.rb.Clear()
	n, err := c.rb.FromBuffer(src)
	if err != nil {
		c.rb.Clear()
		return corruptErr(nameRoaring, "reading", err)
	}
	if n != int64(len(src)) {
		c.rb.Clear()
		return corrupt(nameRoaring, "read %d of %d bytes", n, len(src))
	}
	return nil
}

// checkRoaring validates a serialised Roaring bitmap in one linear pass:
// header, strictly increasing keys, containers well formed (sorted arrays,
// bitmaps whose popcount is their cardinality, sorted disjoint
// non-adjacent runs within their container), every position below nbits,
// and no trailing bytes. It replaces roaring.Bitmap.Validate, whose run
// check is quadratic in the number of runs (a CPU cost an attacker could
// choose).
func checkRoaring(src []byte, nbits uint64) error {
	r := roaringReader{rest: src}
	size, runFlags, err := r.header()
	if err != nil {
		return err
	}
	keycard, ok := r.next(4 * size)
	if !ok {
		return corrupt(nameRoaring, "short container headers")
	}
	if runFlags == nil || size >= roaringNoOffsets {
		if _, ok := r.next(4 * size); !ok {
			return corrupt(nameRoaring, "short offsets")
		}
	}
	prevKey := -1
	for i := range size {
		key := int(binary.LittleEndian.Uint16(keycard[4*i:]))
		card := int(binary.LittleEndian.Uint16(keycard[4*i+2:])) + 1
		if key <= prevKey {
			return corrupt(nameRoaring, "container keys out of order")
		}
		prevKey = key
		var top int // highest position in the container, relative to its base
		switch {
		case runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0:
			top, err = r.runContainer()
		case card > roaringMaxArray:
			top, err = r.bitmapContainer(card)
		default:
			top, err = r.arrayContainer(card)
		}
		if err != nil {
			return err
		}
		if last := uint64(key)<<16 + uint64(top); last >= nbits {
			return corrupt(nameRoaring, "position %d beyond the %d-bit bitmap", last, nbits)
		}
	}
	if len(r.rest) != 0 {
		return corrupt(nameRoaring, "%d trailing bytes", len(r.rest))
	}
	return nil
}

// roaringReader reads a serialised Roaring bitmap front to back for
// checkRoaring.
type roaringReader struct{ rest []byte }

// next consumes and returns the next n bytes; ok is false when fewer are
// left (or n < 0).
func (r *roaringReader) next(n int) (b []byte, ok bool) {
	if n < 0 || len(r.rest) < n {
		return nil, false
	}
	b, r.rest = r.rest[:n], r.rest[n:]
	return b, true
}

// header reads the cookie and returns the number of containers and, for
// the format with run containers, the bitset marking which are runs (nil
// otherwise).
func (r *roaringReader) header() (size int, runFlags []byte, err error) {
	head, ok := r.next(4)
	if !ok {
		return 0, nil, corrupt(nameRoaring, "short header")
	}
	cookie := binary.LittleEndian.Uint32(head)
	switch {
	case cookie&0xffff == roaringCookieRuns:
		size = int(cookie>>16) + 1
		if runFlags, ok = r.next((size + 7) / 8); !ok {
			return 0, nil, corrupt(nameRoaring, "short run flags")
		}
		return size, runFlags, nil
	case cookie == roaringCookieNoRuns:
		b, ok := r.next(4)
		if !ok {
			return 0, nil, corrupt(nameRoaring, "short header")
		}
		s := binary.LittleEndian.Uint32(b)
		if s > 1<<16 {
			return 0, nil, corrupt(nameRoaring, "%d containers", s)
		}
		return int(s), nil, nil
	default:
		return 0, nil, corrupt(nameRoaring, "bad cookie %#x", cookie)
	}
}

// runContainer checks a run container (sorted, disjoint, non-adjacent runs
// inside the container's 2^16 positions) and returns its highest position.
func (r *roaringReader) runContainer() (top int, err error) {
	b, ok := r.next(2)
	if !ok {
		return 0, corrupt(nameRoaring, "short run container")
	}
	nr := int(binary.LittleEndian.Uint16(b))
	runs, ok := r.next(4 * nr)
	if !ok || nr == 0 {
		return 0, corrupt(nameRoaring, "bad run container")
	}
	end := -2 // last value of the previous run
	for j := range nr {
		start := int(binary.LittleEndian.Uint16(runs[4*j:]))
		length := int(binary.LittleEndian.Uint16(runs[4*j+2:]))
		if start <= end+1 || start+length > 0xffff {
			return 0, corrupt(nameRoaring, "bad run %d", j)
		}
		end = start + length
	}
	return end, nil
}

// bitmapContainer checks a bitmap container whose header claims card set
// bits (its popcount must be card) and returns its highest position.
func (r *roaringReader) bitmapContainer(card int) (top int, err error) {
	b, ok := r.next(8 << 10)
	if !ok {
		return 0, corrupt(nameRoaring, "short bitmap container")
	}
	n := 0
	top = -1
	for j := 0; j < len(b); j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		if w != 0 {
			n += bits.OnesCount64(w)
			top = j*8 + 63 - bits.LeadingZeros64(w)
		}
	}
	if n != card {
		return 0, corrupt(nameRoaring, "bitmap container of %d bits claims %d", n, card)
	}
	return top, nil
}

// arrayContainer checks an array container of card strictly increasing
// values and returns its highest position.
func (r *roaringReader) arrayContainer(card int) (top int, err error) {
	b, ok := r.next(2 * card)
	if !ok {
		return 0, corrupt(nameRoaring, "short array container")
	}
	prev := -1
	for j := 0; j < len(b); j += 2 {
		v := int(binary.LittleEndian.Uint16(b[j:]))
		if v <= prev {
			return 0, corrupt(nameRoaring, "array container out of order")
		}
		prev = v
	}
	return prev, nil
}
