// The fast path of the text parsers (read.go, "Speed"): the line "u v\n"
// with its digits converted eight at a time (SWAR).

package edgelist

import (
	"encoding/binary"
	"math/bits"
)

// fastPair parses the most common line, "u v\n" with ids of at most 18
// digits (so below 2^63) separated by spaces or tabs, an optional '\r'
// before the '\n', at b[i:]. ok is false for anything else, which the
// general parser then handles. Digits are converted eight at a time where
// eight bytes remain (the loop body is digitRun's, written out so that the
// per-line path makes no call).
func fastPair(b []byte, i int) (u, v int64, next int, ok bool) {
	const (
		hi   = 0xF0F0F0F0F0F0F0F0
		lo   = 0x0F0F0F0F0F0F0F0F
		zero = 0x3030303030303030
		six  = 0x0606060606060606
	)
	var ids [2]uint64
	j := i
	for f := range 2 {
		if f == 1 {
			if j >= len(b) || b[j] != ' ' && b[j] != '\t' {
				return 0, 0, 0, false
			}
			for j++; j < len(b) && (b[j] == ' ' || b[j] == '\t'); j++ {
			}
		}
		start := j
		var x uint64
		for j+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[j:])
			notDigit := (w&hi ^ zero) | ((w&lo + six) & hi)
			if notDigit == 0 {
				x = x*1e8 + swar8(w)
				j += 8
				continue
			}
			n := bits.TrailingZeros64(notDigit) >> 3
			if n > 0 {
				for k := 0; x != 0 && k < n; k++ { // ids above 8 digits
					x *= 10
				}
				x += swar8(w << (64 - 8*uint(n)))
				j += n
			}
			goto done
		}
		for ; j < len(b); j++ {
			d := b[j] - '0'
			if d > 9 {
				break
			}
			x = x*10 + uint64(d)
		}
	done:
		if j == start || j-start > 18 {
			return 0, 0, 0, false
		}
		ids[f] = x
	}
	if j >= len(b) {
		return 0, 0, 0, false
	}
	if b[j] == '\r' {
		if j++; j >= len(b) {
			return 0, 0, 0, false
		}
	}
	if b[j] != '\n' {
		return 0, 0, 0, false
	}
	return int64(ids[0]), int64(ids[1]), j + 1, true
}

// swar8 returns the value of the eight decimal digits packed in w, the
// first digit in the lowest byte (zero bytes count as 0 digits).
func swar8(w uint64) uint64 {
	w = (w & 0x0F0F0F0F0F0F0F0F) * 2561 >> 8
	w = (w & 0x00FF00FF00FF00FF) * 6553601 >> 16
	return (w & 0x0000FFFF0000FFFF) * 42949672960001 >> 32
}
