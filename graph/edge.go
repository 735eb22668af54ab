// Package graph holds graphrun's graph data structures: edge tuples, the
// per-rank compressed sparse row (CSR) matrix built by kernel 1, the
// readers and writers of edge-list files (read.go), the loading of a
// user's input (Input: a file's share per rank, or a stream spread from
// rank 0), its dense relabelling (labels.go), graphrun's binary graph
// .grb (grb.go documents its layout: magic, version, little-endian
// sections, CRC-32C per block) and gapbs's serialized .sg graphs (sg.go).
//
// The CSR follows paper 004 §III-B and §VII: each rank stores the rows of the
// vertices it owns (1D partition), local row ids are uint32 and offsets int64;
// column entries are global vertex ids.
//
// The sources cited here (paper 000 to paper 004 and the other keys) are
// listed in full in REFERENCES.md at the repository root.
package graph

// Edge is one input tuple (an undirected edge of the Graph500 edge list, or a
// directed edge of a read file). Ids are global.
type Edge struct {
	U, V int64
}
