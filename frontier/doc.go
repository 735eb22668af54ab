// Package frontier holds the BFS frontier sets and the codecs that carry
// them between ranks: the Compression and Uncompression steps of paper 004
// (REFERENCES.md; §IV, Alg. 2 and Alg. 3).
//
// Bitmap is the plain frontier of Algorithm 1 (paper 004 §III-B, "BIT"): one
// bit per vertex, 64 vertices per word, little-endian bit order within a word,
// so that the bytes of a bitmap on any little-endian machine are the same as
// its wire form.
//
// A Codec turns a range of a bitmap into bytes and back. New makes one by its
// flag name: "raw" (the bitmap's bytes), "list" (sorted vertex ids), "wah" and
// "wah32" (word-aligned hybrid in 64- and 32-bit words, package wah; [WAH] in
// REFERENCES.md), "zlib-bs", "zlib-df" and "zlib-bc" (zlib at the three levels
// of paper 004 §VII), "snappy" (the snappy block format, from
// klauspost/compress), "roaring" ([Roaring]) and "auto" (per message, the
// cheapest of list, wah and raw by a density rule). Every decoder treats its
// input as untrusted bytes from the network and is fuzzed (fuzz_test.go,
// crashers in testdata/).
package frontier
