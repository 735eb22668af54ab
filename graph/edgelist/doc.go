// Package edgelist reads and writes graphrun's input graphs as files: the
// text edge lists (SNAP, .el, weighted .wel, Matrix Market .mtx), the
// binary ones (graphrun's .bel and .grb, gapbs's serialized .sg and .wsg),
// each optionally gzipped; a rank's share of a file streamed in chunks
// (FileShare); a stream that only rank 0 can read (standard input, a pipe,
// a FIFO) spread over the ranks; and the conversions of graphrun's convert
// and generate commands. read.go documents the text grammars, grb.go the
// .grb layout, sg.go gapbs's, edgelist_write.go .el and .bel, weights.go
// the weights a weighted read hands beside the edges (kernel 3's input).
//
// It sits above package graph, not inside it: the formats hand kernel 1
// and PageRank's set-up their edges through graph's small interfaces
// (graph.Edge, graph.EdgeShare, graph.EdgeChunks), and graph's relabelling
// (graph.RelabelShare, graph.Labels) is what a .grb stores. So edgelist
// imports graph and graph imports no file format: the distributed CSR and
// kernel 1 build the same way from a generated graph, a file or memory,
// and a program that only generates Kronecker graphs carries no parser.
//
// The edge-list runs follow Kylix §VII (PageRank over real edge lists given
// as files) and the Graph500 spec's kernel 1 input (a list of edge tuples).
// Sources, cited in full in REFERENCES.md at the repository root:
//
//   - Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for Commodity
//     Clusters", 43rd International Conference on Parallel Processing
//     (ICPP), IEEE, 2014.
//   - "Graph500 Benchmark Specification", version 3.0.
//   - Scott Beamer, Krste Asanović and David Patterson, "The GAP Benchmark
//     Suite", arXiv:1508.03619, 2015 (the .sg and .wsg formats).
package edgelist
