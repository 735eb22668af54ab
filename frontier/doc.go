// Package frontier holds the BFS frontier sets and the codecs that carry
// them between ranks: the Compress and Uncompress steps of Lv et al. §IV
// (Alg. 2 lines 7 and 9) and §V-B (Alg. 3 lines 10 and 14).
//
// Bitmap is the plain frontier of Lv et al. Alg. 1 (§III-B, "BIT"): one bit
// per vertex, 64 vertices per word, little-endian bit order within a word, so
// that the bytes of a bitmap on any little-endian machine are the same as
// its wire form.
//
// A Codec turns a range of a bitmap into bytes and back. New makes one by
// its name: "raw" (the bitmap's bytes), "list" (sorted vertex ids), "wah"
// and "wah32" (word-aligned hybrid in 64- and 32-bit words, package wah,
// after Wu et al.), "zlib-bs", "zlib-df" and "zlib-bc" (zlib at the three
// levels of Lv et al. §VII-B), "snappy" (the snappy block format, from
// klauspost/compress), "roaring" (Lemire et al.) and "auto" (per message,
// the cheapest of list, wah and raw by a density rule). Every decoder treats
// its input as untrusted bytes from the network and is fuzzed (fuzz_test.go,
// crashers in testdata/).
//
// # References
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun. "Compression and
//     Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems". arXiv preprint (Institute of Computing
//     Technology, CAS), 2012. Cited as Lv et al.
//   - Kesheng Wu, Ekow J. Otoo and Arie Shoshani. "Optimizing Bitmap Indices
//     with Efficient Compression". ACM Transactions on Database Systems
//     31(1), 2006. Cited as Wu et al.
//   - Daniel Lemire, Gregory Ssi-Yan-Kai and Owen Kaser. "Consistently
//     Faster and Smaller Compressed Bitmaps with Roaring". Software: Practice
//     and Experience 46(11), 2016. The roaring codec writes its portable
//     serialisation format (RoaringFormatSpec).
//
// REFERENCES.md at the repository root lists every source under the same
// keys.
package frontier
