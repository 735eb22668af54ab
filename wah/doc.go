// Package wah implements Word-Aligned Hybrid (WAH) compressed bitmaps, the
// Compress and Uncompress steps of distributed BFS with compression (paper
// 004, §IV, Algorithm 2 and Table III), after K. Wu, E. J. Otoo and
// A. Shoshani, "Optimizing bitmap indices with efficient compression", ACM
// TODS 31(1), 2006 (reference [13] of paper 004).
//
// The dense side is a plain []uint64 laid out like frontier.Bitmap: bit i of
// the set is bit i%64 of word i/64, so a bitmap of n words has 64·n bits.
// Encodings are byte strings meant to travel in messages, and every reader
// treats them as untrusted: a corrupt, truncated or inconsistent encoding
// gives an error wrapping ErrCorrupt (or ErrBitCount, ErrMismatch), never a
// panic, a write outside the destination, or an allocation sized by a
// claimed length.
//
// # WAH
//
// With w-bit words (w = 32 or 64) the bitmap is cut into groups of G = w−1
// bits. A group with both zeros and ones is stored as a literal word; a run
// of n groups that are all zeros (or all ones) is stored as one fill word
// holding the fill bit and n. The last nbits mod G bits, too few for a group,
// go into a final "active word". As §IV notes, a sparse bitmap becomes pairs
// of a 0-fill and a literal.
//
// # Format
//
// An encoding is a header followed by a word section:
//
//	byte 0      magic 'W' (0x57)
//	byte 1      version << 4 | word size in bytes: 0x14 (32-bit words) or
//	            0x18 (64-bit words); the version is 1
//	bytes 2...  nbits, the bitmap length in bits, as a uvarint (≤ MaxBits)
//	then        the words, w/8 bytes each, little-endian; their number is
//	            the length of the rest of the input, which must be a whole
//	            number of words
//
// A word x of w bits is one of:
//
//	literal  bit w−1 = 0; bits 0..w−2 are the G bits of one group, bit j
//	         being bitmap bit g·G + j for the group's index g
//	fill     bit w−1 = 1; bit w−2 is the fill bit; bits 0..w−3 are the run
//	         length n in groups, 1 ≤ n ≤ 2^(w−2)−1 (2^30−1 or 2^62−1); the
//	         fill stands for n·G copies of the fill bit
//
// The regular (literal and fill) words cover exactly ⌊nbits/G⌋ groups. If
// r = nbits mod G is not zero, exactly one more word follows, the active
// word, holding the last r bits in its low r bits; its other bits are zero.
// Nothing may follow. For example, 128 bits with only bit 0 set encode with
// 32-bit words as 57 14 80 01 | 01000000 | 03000080 | 00000000: a literal
// (bits 0–30), a 0-fill of 3 groups (bits 31–123) and the active word
// (bits 124–127) — Table III of paper 004 with 32-bit instead of 4-bit
// words. (Table III prints each group most significant bit first; here bit j
// of a word is bit j of its group, as in frontier.Bitmap.)
//
// Encode, And and Or write canonical encodings: fills are maximal (a run
// longer than the counter takes several fill words, full ones first) and no
// literal is all zeros or all ones, so a bitmap has exactly one canonical
// encoding per word size. Readers also accept non-canonical encodings
// (adjacent fills of the same bit, uniform literals).
//
// # Word size
//
// Both widths share the code (generic over uint32 and uint64 words, with the
// group size folded to a constant in each instantiation) and the byte API:
// every reader takes the width from the header; Encode32 and Encode64 choose
// it when encoding. Encode uses 64-bit words (DefaultWordBits), the faster of
// the two: a 64-bit word carries 63 bits, so it takes half the loop
// iterations per bitmap word that 31-bit groups need. On this package's
// benchmarks (wah_bench_test.go; GB/s of dense bitmap, Intel Xeon, 2 shared
// cores, medians of 3 runs):
//
//	bits  density  Encode w32  Encode w64  Decode w32  Decode w64
//	2^20  1e-4        @E20a32     @E20a64     @D20a32     @D20a64
//	2^20  1e-2        @E20b32     @E20b64     @D20b32     @D20b64
//	2^20  0.1         @E20c32     @E20c64     @D20c32     @D20c64
//	2^20  0.5         @E20d32     @E20d64     @D20d32     @D20d64
//	2^24  1e-4        @E24a32     @E24a64     @D24a32     @D24a64
//	2^24  1e-2        @E24b32     @E24b64     @D24b32     @D24b64
//	2^24  0.1         @E24c32     @E24c64     @D24c32     @D24c64
//	2^24  0.5         @E24d32     @E24d64     @D24d32     @D24d64
//
// The price is size: 32-bit words compress sparse and mid-density bitmaps
// better (encoded/raw size at density 1e-4: @R4_32 vs @R4_64; at 1e-2:
// @R2_32 vs @R2_64), because a lone set bit costs a fill and a literal either
// way, and a 31-bit group is more often all zeros. Callers that pay more for
// bytes than for CPU time can use Encode32; everything else reads both.
package wah
