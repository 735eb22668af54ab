// Package bench is the measurement library behind `graphrun bench`: the
// timed collectives, the modelled network link, the BFS matrices and the
// memory runs, so that `go test -bench` and other tools reach them and
// the CLI only maps flags to these configurations and prints.
//
// What each part measures, and the paper it reproduces:
//   - MeasureDense: one dense allreduce per algorithm against the vector
//     length — paper 001 Fig. 4/5 and paper 002 Fig. 10 (tree, butterfly,
//     hypercube for unsplittable and chunked vectors);
//   - LinkComm: a cluster link per rank modelled on top of a real run
//     (latency plus the larger of the bytes sent and received over the
//     bandwidth), so that per-link volumes and not this machine's cores
//     decide (paper 000 §IV's α–β view);
//   - MeasureAlltoallv: the transport's Alltoallv against the message size
//     and the minimum efficient message size — paper 000 Fig. 2;
//   - ParseAlgorithm, CodecsMatrix, ScalingMatrix: paper 004's BFS
//     algorithms (Table V: BIT, WAH, ZLB-*, DIR-*) as exchanges and codecs,
//     and the matrices of runs compared in BENCHMARKS.md;
//   - MeasureMemory: the peak resident memory of whole runs against the
//     memory model of graph500.
//
// Each matrix of `graphrun bench` is here whole: a Spec of its settings as
// the command line gives them, whose Parse names the flag at fault
// (internal/fielderr); the matrix's marker key and command line; its Run,
// which measures, records one JSON per run and summary.json through an
// Output (--dir), prints its table and regenerates it in a Markdown file
// (--doc) between marker comments (DenseSpec, TransportSpec, BFSMatrix,
// MemorySpec, PageRankAllreduceSpec, PageRankSpeedSpec).
//
// The emulated cluster's switch, which adds a one-way latency where the
// kernel has no tc netem, is the sub-package bench/netemu.
package bench
