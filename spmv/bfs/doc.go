// Package bfs is graphrun's distributed breadth-first search, Graph500's
// kernel 2, over the level loop of package spmv, with the Graph500
// validator beside it (as gapbs keeps each kernel's verifier with it).
//
// The search follows Lv et al. §III: with a 1D row-block partition rank i
// owns rows A_i of the adjacency matrix, and one level computes
// t_i = A_i ⊗ f masked by the visited set π_i, then exchanges the new
// frontier. Because the (select, max) semiring picks the largest frontier
// neighbour as parent, the tree is deterministic: identical for any number
// of ranks, threads, partitions and exchanges.
//
// The exchanges (bfs.go, publish.go; spmv.Exchange):
//
//   - allgather ("BIT", Lv et al. Alg. 1; with a codec, Alg. 2): each rank
//     scans its unvisited owned vertices for a frontier neighbour (rows are
//     sorted in descending order, so the first hit is the max), and the
//     ranks' new-frontier bitmaps are concatenated by Allgatherv.
//   - sieve (Alg. 3): each rank sends every peer only the frontier vertices
//     with an edge into that peer's rows (the cross directory, package
//     sieve), encoded, by Alltoallv.
//   - packed: the sieve without the positions both ends know are clear
//     (sieve.Packer), graphrun's step past the paper.
//   - push: the top-down scheme of the Graph500 reference code: (vertex,
//     parent) records to the vertices' owners by Alltoallv; owners keep the
//     largest parent among the candidates of a level.
//
// Direction optimisation (Beamer et al.) switches per level between
// top-down push records and bottom-up scans of the exchanged bitmap. Each
// level ends with an allreduce of the counts (the "reducing" phase of Lv et
// al. Fig. 7). Every phase is timed and every byte counted per level
// (spmv.LevelStats). BFS2D (bfs2d*.go) is the same search on the 2D grid
// that Lv et al. §VIII–IX name as the next step: expand along processor
// columns, fold along rows. Directed (directed.go) searches out-edges only,
// top-down. Over a CSR in the compressed layout (graph.CSR.Packed) the 1D
// loops decode each row as they scan it (bfs_packed.go, after Ligra+).
//
// Validation (validate*.go) checks a result against the five rules of the
// Graph500 spec with the claimed levels as the certificate: one exchange of
// the levels of the boundary vertices (the cross directory says which), one
// threaded pass over the rows or blocks, two small allreduces. A Validator
// (Validator2D) is made once per run and reused for every search.
// ComponentEdges (nedge.go) counts the input tuples of the searched
// component, the edge count of TEPS.
//
// # References
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun. "Compression and
//     Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems". arXiv preprint (Institute of Computing
//     Technology, CAS), 2012. Cited as Lv et al.
//   - Scott Beamer, Krste Asanović and David Patterson. "Direction-Optimizing
//     Breadth-First Search". SC'12, 2012. Cited as Beamer et al.
//   - "Graph500 Benchmark Specification", version 3.0. Cited as the
//     Graph500 spec.
//   - Julian Shun, Laxman Dhulipala and Guy E. Blelloch. "Smaller and
//     Faster: Parallel Processing of Compressed Graphs with Ligra+". DCC,
//     IEEE, 2015. Cited as Ligra+.
package bfs
