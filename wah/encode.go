package wah

import "math/bits"

// encode appends the header and the WAH words of src to dst. Fills longer
// than maxRun groups are split into several fill words (maxRun is below the
// counter's capacity only in tests, to exercise the split on small bitmaps).
//
// The loop walks the bitmap one G-bit group at a time, G = w−1: a group is
// cut out of at most two 64-bit input words. A group that is all zeros (all
// ones) starts a fill; its end is found by scanning whole input words for the
// next one (zero) bit, so a run costs one comparison per 64 bits, never a loop
// over its groups or bits.
func encode[W word](dst []byte, src []uint64, maxRun uint64) []byte {
	g := groupBits[W]()
	mask := uint64(1)<<g - 1
	nbits := 64 * uint64(len(src))
	dst = appendHeader(dst, wordBytes[W](), nbits)
	limit := nbits - nbits%g // end of the last whole group
	o := uint64(0)           // bit offset of the current group
	for o < limit {
		i, s := o>>6, o&63
		v := src[i] >> s
		if s+g > 64 {
			v |= src[i+1] << (64 - s)
		}
		v &= mask
		if v != 0 && v != mask {
			dst = appendWord[W](dst, v)
			o += g
			continue
		}
		// A run of uniform groups: it ends at the group holding the first
		// bit that differs from v's, or at the end of the whole groups.
		b := v & 1
		var end uint64
		if b == 0 {
			end = nextOne(src, o+g)
		} else {
			end = nextZero(src, o+g)
		}
		n := (min(end, limit) - o) / g
		dst = appendFill[W](dst, b, n, maxRun)
		o += n * g
	}
	if r := nbits - limit; r > 0 {
		// The active word: the last r < G bits, in its low bits.
		i, s := o>>6, o&63
		v := src[i] >> s
		if s+r > 64 {
			v |= src[i+1] << (64 - s)
		}
		dst = appendWord[W](dst, v&(uint64(1)<<r-1))
	}
	return dst
}

// appendFill appends a fill of n ≥ 1 groups of bit b, in words of at most
// maxRun groups each.
func appendFill[W word](dst []byte, b, n, maxRun uint64) []byte {
	g := groupBits[W]()
	f := uint64(1)<<g | b<<(g-1)
	for n > maxRun {
		dst = appendWord[W](dst, f|maxRun)
		n -= maxRun
	}
	return appendWord[W](dst, f|n)
}

// nextOne returns the position of the first set bit at or after p, or
// 64·len(src) if there is none.
func nextOne(src []uint64, p uint64) uint64 {
	i := p >> 6
	if i >= uint64(len(src)) {
		return 64 * uint64(len(src))
	}
	if w := src[i] >> (p & 63); w != 0 {
		return p + uint64(bits.TrailingZeros64(w))
	}
	for i++; i < uint64(len(src)); i++ {
		if w := src[i]; w != 0 {
			return i<<6 + uint64(bits.TrailingZeros64(w))
		}
	}
	return 64 * uint64(len(src))
}

// nextZero returns the position of the first clear bit at or after p, or
// 64·len(src) if there is none.
func nextZero(src []uint64, p uint64) uint64 {
	i := p >> 6
	if i >= uint64(len(src)) {
		return 64 * uint64(len(src))
	}
	if w := ^src[i] >> (p & 63); w != 0 {
		return p + uint64(bits.TrailingZeros64(w))
	}
	for i++; i < uint64(len(src)); i++ {
		if w := ^src[i]; w != 0 {
			return i<<6 + uint64(bits.TrailingZeros64(w))
		}
	}
	return 64 * uint64(len(src))
}
