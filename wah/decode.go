package wah

import (
	"fmt"
	"math/bits"
)

// layout returns, for a word section of body holding nbits bits, the number
// of regular (literal or fill) words, the number of groups they must cover
// and the bit count r of the active word (0: no active word).
func layout[W word](body []byte, nbits uint64) (nreg int, groups, r uint64, err error) {
	g := groupBits[W]()
	groups, r = nbits/g, nbits%g
	nreg = len(body) / wordBytes[W]()
	if r > 0 {
		if nreg == 0 {
			return 0, 0, 0, fmt.Errorf("missing active word of %d bits: %w", r, ErrCorrupt)
		}
		nreg--
	}
	return nreg, groups, r, nil
}

// errRun describes a fill word whose run length is zero or runs past the end
// of the bitmap.
func errRun(i int, n, left uint64) error {
	if n == 0 {
		return fmt.Errorf("word %d: fill of zero groups: %w", i, ErrCorrupt)
	}
	return fmt.Errorf("word %d: fill of %d groups overruns the %d groups left: %w", i, n, left, ErrCorrupt)
}

func errShort(i int, left uint64) error {
	return fmt.Errorf("word section ends after %d words with %d groups missing: %w", i, left, ErrCorrupt)
}

func errLong(i, nreg int) error {
	return fmt.Errorf("%d words left over after the last group (word %d of %d): %w", nreg-i, i, nreg, ErrCorrupt)
}

func errActive(x, r uint64) error {
	return fmt.Errorf("active word %#x has bits above its %d: %w", x, r, ErrCorrupt)
}

// decode writes (or ORs, if or) the bitmap of nbits = 64·len(dst) bits
// encoded in body into dst. The output goes through a 64-bit accumulator, so
// each destination word is written exactly once, in order; a 0-fill in OR
// mode just skips words.
func decode[W word](dst []uint64, body []byte, nbits uint64, or bool) error {
	g, flag, fillOne, runMask := wordBits[W]()
	nreg, left, r, err := layout[W](body, nbits)
	if err != nil {
		return err
	}
	var acc, nacc uint64 // pending bits, acc holds nacc < 64 of them
	wi := 0              // next destination word
	i := 0
	for ; left > 0; i++ {
		if i >= nreg {
			return errShort(i, left)
		}
		x := load[W](body, i)
		if x&flag == 0 {
			acc |= x << nacc
			if nacc+g >= 64 {
				put(dst, wi, acc, or)
				wi++
				acc = x >> (64 - nacc)
				nacc += g - 64
			} else {
				nacc += g
			}
			left--
			continue
		}
		n := x & runMask
		if n == 0 || n > left {
			return errRun(i, n, left)
		}
		left -= n
		one := x&fillOne != 0
		if one {
			acc |= ^uint64(0) << nacc
		}
		total := nacc + n*g
		if total < 64 {
			if one {
				acc &= uint64(1)<<total - 1
			}
			nacc = total
			continue
		}
		put(dst, wi, acc, or)
		wi++
		total -= 64
		k := int(total >> 6)
		switch run := dst[wi : wi+k]; {
		case one:
			for j := range run {
				run[j] = ^uint64(0)
			}
		case !or:
			clear(run)
		}
		wi += k
		nacc = total & 63
		acc = 0
		if one {
			acc = uint64(1)<<nacc - 1
		}
	}
	if i != nreg {
		return errLong(i, nreg)
	}
	if r > 0 {
		x := load[W](body, nreg)
		if x>>r != 0 {
			return errActive(x, r)
		}
		acc |= x << nacc
		nacc += r
		if nacc >= 64 {
			put(dst, wi, acc, or)
			wi++
			nacc -= 64
			acc = x >> (r - nacc)
		}
	}
	if nacc != 0 {
		// Unreachable while nbits is a multiple of 64; kept so that a
		// broken invariant shows as an error rather than lost bits.
		return fmt.Errorf("%d bits left over after decoding: %w", nacc, ErrCorrupt)
	}
	return nil
}

// count walks the word section once, checking its structure, and returns the
// number of set bits.
func count[W word](body []byte, nbits uint64) (int64, error) {
	g, flag, fillOne, runMask := wordBits[W]()
	nreg, left, r, err := layout[W](body, nbits)
	if err != nil {
		return 0, err
	}
	var c uint64
	i := 0
	for ; left > 0; i++ {
		if i >= nreg {
			return 0, errShort(i, left)
		}
		x := load[W](body, i)
		if x&flag == 0 {
			c += uint64(bits.OnesCount64(x))
			left--
			continue
		}
		n := x & runMask
		if n == 0 || n > left {
			return 0, errRun(i, n, left)
		}
		left -= n
		if x&fillOne != 0 {
			c += n * g
		}
	}
	if i != nreg {
		return 0, errLong(i, nreg)
	}
	if r > 0 {
		x := load[W](body, nreg)
		if x>>r != 0 {
			return 0, errActive(x, r)
		}
		c += uint64(bits.OnesCount64(x))
	}
	return int64(c), nil
}

// forEach calls fn for each set bit of a word section that count accepted.
func forEach[W word](body []byte, nbits uint64, fn func(int64)) {
	g, flag, fillOne, runMask := wordBits[W]()
	nreg, _, r, _ := layout[W](body, nbits)
	o := uint64(0) // bit offset of the current word's first group
	for i := range nreg {
		x := load[W](body, i)
		if x&flag == 0 {
			for ; x != 0; x &= x - 1 {
				fn(int64(o + tz(x)))
			}
			o += g
			continue
		}
		end := o + (x&runMask)*g
		if x&fillOne != 0 {
			for p := o; p < end; p++ {
				fn(int64(p))
			}
		}
		o = end
	}
	if r > 0 {
		for x := load[W](body, nreg); x != 0; x &= x - 1 {
			fn(int64(o + tz(x)))
		}
	}
}

// put stores the finished word w at dst[i], or ORs it in (DecodeOr). Small
// enough to be inlined into the decoding loop.
func put(dst []uint64, i int, w uint64, or bool) {
	if or {
		dst[i] |= w
	} else {
		dst[i] = w
	}
}
