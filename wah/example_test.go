package wah_test

import (
	"fmt"

	"github.com/graphrun/graphrun/wah"
)

// A sparse frontier of 2^16 vertices with three set bits: the encodings in
// either word size, and what a reader learns from an encoding without
// decoding it.
func ExampleEncode64() {
	f := make([]uint64, 1<<10) // 65536 bits
	for _, v := range []int{3, 40000, 65535} {
		f[v/64] |= 1 << (v % 64)
	}
	for _, enc := range [][]byte{wah.Encode32(nil, f), wah.Encode64(nil, f)} {
		wb, _ := wah.WordBits(enc)
		n, _ := wah.Bits(enc)
		set, _ := wah.Count(enc)
		fmt.Printf("%d-bit words: %d bytes for %d bits (%d raw), %d set\n", wb, len(enc), n, 8*len(f), set)
	}
	// Output:
	// 32-bit words: 25 bytes for 65536 bits (8192 raw), 3 set
	// 64-bit words: 45 bytes for 65536 bits (8192 raw), 3 set
}

// And and Or combine two encodings without decoding them; ForEach lists
// the set bits of an encoding.
func ExampleAnd() {
	a := []uint64{0b1011, 0}
	b := []uint64{0b0110, 1 << 63}
	and, _ := wah.And(nil, wah.Encode(nil, a), wah.Encode(nil, b))
	or, _ := wah.Or(nil, wah.Encode(nil, a), wah.Encode(nil, b))
	for _, enc := range [][]byte{and, or} {
		var set []int64
		_ = wah.ForEach(enc, func(i int64) { set = append(set, i) })
		fmt.Println(set)
	}
	// Output:
	// [1]
	// [0 1 2 3 127]
}
