// Package wah implements Word-Aligned Hybrid (WAH) compressed bitmaps, the
// Compress and Uncompress steps of distributed BFS with compression (Lv et
// al. §IV, Alg. 2 lines 7 and 9, Table III), after Wu, Otoo and Shoshani's
// code (reference [13] of Lv et al.). Both are cited in full under
// References below.
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
// go into a final "active word". As Lv et al. §IV note, a sparse bitmap
// becomes pairs of a 0-fill and a literal.
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
// (bits 124–127) — Lv et al.'s Table III with 32-bit instead of 4-bit
// words. (In Table III the first bit of a group is the literal's highest
// payload bit; here it is bit 0, so that groups read like frontier.Bitmap.)
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
// it when encoding. Encode uses 64-bit words (DefaultWordBits) because they
// are the faster of the two: a 64-bit word carries 63 bitmap bits against
// 31, so encoding and decoding take half the per-group steps (cutting a
// group out of the input, testing it, writing or reading one word) for the
// same bitmap. The benchmarks in wah_bench_test.go, in GB/s of dense bitmap
// (medians of 3 runs of go test -bench 'Encode$|Decode$' -count=3; an Intel
// Xeon with 2 cores shared with other jobs, so expect ±30%):
//
//	bits  density  Encode w32  Encode w64  Decode w32  Decode w64
//	2^20  1e-4          11.8         9.7        23.4        24.3
//	2^20  1e-2          0.48        0.83        0.49        1.02
//	2^20  0.1           0.85        1.56        0.90        1.29
//	2^20  0.5           1.10        2.02        0.64        1.58
//	2^24  1e-4           8.7         9.6        17.5        19.9
//	2^24  1e-2          0.44        0.49        0.51        0.65
//	2^24  0.1           0.57        1.01        0.84        1.17
//	2^24  0.5           0.74        1.31        0.92        1.65
//
// At density 1e-4 both widths spend their time skipping 0-fills a 64-bit
// word at a time and tie; from 1e-2 up, 64-bit words are 1.1–2.5× faster.
// The price is size: 32-bit words compress sparse and mid-density bitmaps
// better (encoded/raw size over 2^20 bits: 0.56% against 1.1% at density
// 1e-4, 49% against 74% at 1e-2), because a lone set bit costs a fill and a
// literal either way and a 31-bit group is more often all zeros; on dense
// random bitmaps, where every group is a literal, the overhead is 1/31 for
// 32-bit words and 1/63 for 64-bit ones. Callers that pay more for bytes than
// for CPU time can use Encode32; every reader handles both.
//
// # References
//
//   - Kesheng Wu, Ekow J. Otoo and Arie Shoshani. "Optimizing Bitmap Indices
//     with Efficient Compression". ACM Transactions on Database Systems
//     31(1), 2006. Cited as Wu et al.
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun. "Compression and
//     Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems". arXiv preprint (Institute of Computing
//     Technology, CAS), 2012. Cited as Lv et al.
//
// REFERENCES.md at the repository root lists every source under the same
// keys.
package wah
