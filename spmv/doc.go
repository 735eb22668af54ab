// Package spmv is graphrun's distributed level-synchronous engine: breadth-first
// search as repeated sparse matrix-vector products over the (select, max)
// semiring, its Graph500 validation, and (later) PageRank.
//
// BFS follows paper 004 (Lv et al., "Compression and Sieve"), §III: with a 1D
// row-block partition, rank i owns rows A_i of the adjacency matrix. One level
// computes t_i = A_i ⊗ f masked by the visited set π_i, then exchanges the new
// frontier. Because the semiring selects the largest frontier neighbour, the
// parent of every vertex is deterministic: results are identical for any
// number of ranks, threads and exchange modes.
//
// Two exchanges are built in:
//
//   - allgather ("BIT", paper 004 Alg. 1): each rank scans its unvisited owned
//     vertices for a frontier neighbour (rows are sorted in descending order,
//     so the first hit is the max), and the ranks' new-frontier bitmaps are
//     concatenated by Allgatherv into the global frontier f.
//   - push: the top-down scheme of the Graph500 reference code: each rank
//     expands its owned frontier vertices and sends (vertex, parent) pairs to
//     the vertices' owners by Alltoallv; owners keep the largest parent among
//     the candidates of a level.
//
// Each level ends with an allreduce of the number of newly discovered vertices
// (the "reducing" phase of paper 004 Fig. 7) to decide termination. Every
// phase is timed and every byte counted per level.
package spmv
