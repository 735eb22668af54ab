// Package report makes charts, tables and an HTML report from graphrun's
// run records (package results): it is the only package of graphrun that
// draws, and the only importer of gonum's plot, so that the benchmark
// drivers, which write the records, do not carry the plotting, font and
// image stack.
//
// [Chart] builders draw the papers' figures from the runs: frontier and
// bytes per BFS level (Lv et al. Fig. 3, Table II), the time breakdown of
// the levels into traversing, reducing, communication and compression &
// sieve (Lv et al. Fig. 7 and 10), TEPS per search and per run (Lv et al.
// §VII, after the Graph500 spec's figure of merit), the per-layer volume of
// the sparse allreduce (Kylix Fig. 5), allreduce time against vector length
// (Kylix Fig. 2 and 8) and PageRank's convergence and time per iteration.
// Runs compared are named by what differs between them ([RunLabels]); a
// chart says what it cannot draw. [WriteHTML] puts runs, their charts and
// the comparison of the BFS runs into one self-contained HTML file;
// [WriteCharts] writes each chart as SVG, PDF and PNG into a folder.
//
// The bench matrices' Markdown tables ([BFSMatrixTable]) and the load
// average their provenance line reports ([LoadAverage]) are here too: they
// are report output of the bench harness, which draws its charts with this
// package.
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
//   - "Graph500 Benchmark Specification", version 3.0.
package report
