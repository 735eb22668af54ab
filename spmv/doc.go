// Package spmv is graphrun's distributed level-synchronous engine: breadth-first
// search as repeated sparse matrix-vector products over the (select, max)
// semiring, on a 1D row-block or a 2D grid partition, its Graph500 validation,
// and PageRank over the Kylix sparse allreduce.
//
// BFS follows paper 004 (Lv et al., "Compression and Sieve"), §III: with a 1D
// row-block partition, rank i owns rows A_i of the adjacency matrix. One level
// computes t_i = A_i ⊗ f masked by the visited set π_i, then exchanges the new
// frontier. Because the semiring selects the largest frontier neighbour, the
// parent of every vertex is deterministic: results are identical for any
// number of ranks, threads, partitions and exchange modes.
//
// The exchanges (bfs.go, publish.go):
//
//   - allgather ("BIT", paper 004 Alg. 1; with a codec, Alg. 2): each rank
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
// Direction optimisation (Beamer et al.) switches per level between top-down
// push records and bottom-up scans of the exchanged bitmap. Each level ends
// with an allreduce of the counts (the "reducing" phase of paper 004 Fig. 7).
// Every phase is timed and every byte counted per level. bfs2d.go is the same
// search on the 2D grid (expand along processor columns, fold along rows).
//
// Validation (validate.go, validate_rows.go, validate_ghosts.go,
// validate2d.go) checks a result against the Graph500 specification's five
// rules with the claimed levels as the certificate: one exchange of the
// levels of the boundary vertices (the cross directory says which), one
// threaded pass over the rows or blocks, two small allreduces. A Validator
// (Validator2D) is made once per run and reused for every search.
//
// PageRank (pagerank.go, pagerank_matrix.go) pulls over a per-rank matrix of
// local uint32 ids and sums partial vectors with package allreduce (paper 000),
// whose up pass also carries the iteration's L1 change, dangling mass and
// total rank.
//
// The sources cited here (paper 000 to paper 004 and the other keys) are
// listed in full in REFERENCES.md at the repository root.
package spmv
