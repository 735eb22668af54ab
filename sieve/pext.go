package sieve

import "math/bits"

// Software PEXT and PDEP (the x86 BMI2 bit gather and scatter) by bytes: a
// 64 KiB table per operation, indexed by a mask byte and a value byte, so a
// word costs at most 8 lookups instead of a loop over its set bits. The
// tables are computed once when the package loads and never written again.

// pextByte[m<<8|x] is the bits of x at the set positions of m, packed low.
// pdepByte[m<<8|x] is the low popcount(m) bits of x placed at m's set positions.
var pextByte, pdepByte = byteTables()

func byteTables() (pext, pdep *[1 << 16]uint8) {
	pext, pdep = new([1 << 16]uint8), new([1 << 16]uint8)
	for m := 0; m < 256; m++ {
		for x := 0; x < 256; x++ {
			var e, d uint8
			k := 0
			for b := 0; b < 8; b++ {
				if m&(1<<b) == 0 {
					continue
				}
				if x&(1<<b) != 0 {
					e |= 1 << k
				}
				if x&(1<<k) != 0 {
					d |= 1 << b
				}
				k++
			}
			pext[m<<8|x], pdep[m<<8|x] = e, d
		}
	}
	return pext, pdep
}

// pext64 gathers the bits of x at the set positions of m into the low
// popcount(m) bits of the result, in order.
func pext64(x, m uint64) uint64 {
	var r uint64
	shift := 0
	for ; m != 0; m, x = m>>8, x>>8 {
		mb := m & 0xff
		if mb == 0 {
			continue
		}
		r |= uint64(pextByte[mb<<8|x&0xff]) << shift
		shift += bits.OnesCount8(uint8(mb))
	}
	return r
}

// pdep64 scatters the low popcount(m) bits of x, in order, to the set
// positions of m.
func pdep64(x, m uint64) uint64 {
	var r uint64
	for i := 0; m != 0; i, m = i+8, m>>8 {
		mb := m & 0xff
		if mb == 0 {
			continue
		}
		r |= uint64(pdepByte[mb<<8|x&0xff]) << i
		x >>= bits.OnesCount8(uint8(mb))
	}
	return r
}
