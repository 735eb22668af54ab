// Package graph holds graphrun's distributed graph and kernel 1 of the
// Graph500 spec: edge tuples (Edge), the sources kernel 1 reads them from
// (TupleSource, EdgeShare), the per-rank compressed sparse row matrix of
// the 1D partition (CSR, BuildUndirected), its rows compressed as Ligra+
// does (compressed.go, BuildPackedFrom), the blocks of the 2D grid
// (Block2D, BuildUndirected2D), the routing of tuples to their owners in
// compressed segments (route.go), and the dense relabelling of sparse
// vertex ids (labels.go: Relabel, RelabelShare, Labels), and the weights
// kernel 3 gives the CSR's entries (weights.go: WeightSource,
// BuildWeights).
//
// The CSR follows Lv et al. §III-B and §VII: each rank stores the rows of
// the vertices it owns (1D partition), local row ids are uint32 and offsets
// int64; column entries are global vertex ids. The 2D blocks are the 2D
// partitioning Lv et al. §VIII–IX name as the step after compression and
// sieve. The relabelling serves the edge-list inputs of Kylix §VII, whose
// ids are sparse.
//
// The file formats are package graph/edgelist, which imports this one for
// Edge and EdgeShare; graph knows no format, so kernel 1 builds the same
// way whatever the edges came from.
//
// Sources, cited in full in REFERENCES.md at the repository root:
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun, "Compression
//     and Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems", arXiv preprint (Institute of Computing
//     Technology, CAS), 2012.
//   - Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for Commodity
//     Clusters", 43rd International Conference on Parallel Processing
//     (ICPP), IEEE, 2014.
//   - Julian Shun, Laxman Dhulipala and Guy E. Blelloch, "Smaller and
//     Faster: Parallel Processing of Compressed Graphs with Ligra+", Data
//     Compression Conference (DCC), IEEE, 2015.
//   - "Graph500 Benchmark Specification", version 3.0.
//   - Robert F. Rice, "Some Practical Universal Noiseless Coding
//     Techniques", JPL Publication 79-22, 1979 (the routed row gaps).
package graph

// Edge is one input tuple (an undirected edge of the Graph500 edge list, or a
// directed edge of a read file). Ids are global.
type Edge struct {
	U, V int64
}
