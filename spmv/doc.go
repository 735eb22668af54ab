// Package spmv is graphrun's level-synchronous engine core: what every
// kernel that advances a frontier level by level over the rows of a
// distributed adjacency matrix shares, as GeminiGraph's toolkits share its
// core. Each kernel is a subpackage over it: spmv/bfs (breadth-first search,
// 1D and 2D, with its Graph500 validator) and spmv/pagerank.
//
// One level is one sparse matrix-vector product t = A ⊗ f ⊙ ¬π over a
// semiring (Lv et al. §III), then a reduction of the level's counts and the
// exchange of the next frontier. The package holds:
//
//   - Levels and Engine (levels.go): the level loop. Levels.Run calls the
//     engine once per search or per level (Start, Traverse, Settle), never
//     per vertex or edge, so a kernel's hot loops stay its own concrete
//     code; Levels times and counts every step (LevelStats).
//   - The direction rule of Beamer et al. (nextDirection, DirectionAuto with
//     DefaultAlpha and DefaultBeta), which switches per level between
//     top-down expansion and bottom-up scans from the reduced counts.
//   - The frontier exchanges a kernel may choose (Exchange: Lv et al.'s
//     Allgatherv of the bitmap, Alg. 1–2, and its sieve, Alg. 3, graphrun's
//     packed sieve, and the top-down records of the Graph500 reference
//     code), TimedAlltoallv, and the compact (vertex, parent) record codec
//     (records.go) that top-down steps use with a codec.
//
// What stays out: anything one kernel alone needs. The BFS result, its
// configuration (codec, threads, vertex order), its 1D and 2D traversals and
// their publish steps live in spmv/bfs, whose engines plug into Levels.Run
// through small adapters. A second level-synchronous kernel (SSSP) would
// reuse Levels, Engine, the direction rule, the exchanges and the record
// codec; that is the test applied to every type here.
//
// # References
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun. "Compression and
//     Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems". arXiv preprint (Institute of Computing
//     Technology, CAS), 2012. Cited as Lv et al.
//   - Scott Beamer, Krste Asanović and David Patterson. "Direction-Optimizing
//     Breadth-First Search". SC'12, 2012. Cited as Beamer et al.
package spmv
