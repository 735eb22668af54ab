// Package sssp is graphrun's distributed single-source shortest paths,
// Graph500's kernel 3, over the 1D row partition or the 2D grid
// (sssp2d.go: the owners' side shared, the phase step expanding along
// processor columns and folding requests along rows) and the exchange
// machinery of package spmv, with the specification's validator beside
// each (validate.go, validate2d.go; as gapbs keeps each kernel's verifier
// with it).
//
// The search is Meyer and Sanders's Δ-stepping (§2–§3 of the paper), run
// bulk-synchronously as the Graph500 reference does: vertices sit in
// buckets of width Δ by tentative distance; the smallest non-empty bucket
// is emptied in light phases, each relaxing the light edges (w ≤ Δ) of the
// vertices removed from it, until no relaxation puts a vertex back into it;
// then one heavy phase relaxes the heavy edges (w > Δ) of every vertex the
// bucket held (§2, Fig. 1). A phase's relaxation requests (target,
// distance, parent) travel to the targets' owners by one Alltoallv
// (spmv.TimedAlltoallv), and one allreduce per phase finds the next
// bucket globally, which is also the termination test (§3's distributed
// version: requests to owners, phases separated by a global
// synchronisation). Within a rank the requests stay in memory: each thread
// owns a range of the rank's vertices and their buckets and applies the
// requests to them, so that no two threads write one vertex and no request
// is serialised. With Config.Compact a phase's requests are combined per
// target and varint-coded before they travel (compact.go). The tree is
// deterministic: a phase's requests are
// combined by (distance, larger parent), so distances and parents are the
// same for any number of ranks and threads.
//
// Δ (Config.Delta) defaults to twice the heaviest weight over the average
// degree of the vertices with an edge (DefaultDelta): Meyer and Sanders §4
// show that for uniform weights in [0, 1] and degree d, Δ = Θ(1/d) keeps
// the phases few while relaxing each edge O(1) times; the factor 2 is
// measured (sssp.go's deltaDegrees). gapbs takes Δ from its
// command line (default 1, for integer weights in [1, 255]).
//
// Validation (validate.go) makes the Graph500 specification's checks of an
// SSSP result: the root has distance 0 and is its own parent; the parents
// form a tree rooted at the root (no cycles; pointer jumping); every tree
// edge is an edge of the graph and d(v) = d(parent) + w within rounding;
// every input edge with both ends reached has |d(u) − d(v)| ≤ w; and the
// tree spans the root's component (no edge joins a reached and an
// unreached vertex). The distances of the remote ends of a rank's edges
// come by one exchange of boundary values, planned once per run: no copy
// of the graph.
//
// # References
//
//   - Ulrich Meyer and Peter Sanders. "Δ-stepping: a parallelizable
//     shortest path algorithm". Journal of Algorithms 49(1), 2003. Cited as
//     Meyer and Sanders.
//   - "Graph500 Benchmark Specification", version 3.0 (kernel 3 and its
//     validation). Cited as the Graph500 spec.
//   - Scott Beamer, Krste Asanović and David Patterson. "The GAP Benchmark
//     Suite". arXiv:1508.03619, 2015 (gapbs's sssp, the shared-memory
//     anchor).
package sssp
