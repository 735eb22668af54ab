// Package bench is the measurement library behind graphrun's benchmark
// matrices: the timed collectives, the modelled network link, the BFS
// matrices and the memory runs, so that `go test -bench` and other tools
// reach them; a command line maps its options to these configurations and
// prints.
//
// What each part measures, and the paper it reproduces:
//   - MeasureDense: one dense allreduce per algorithm against the vector
//     length — Li et al. Fig. 4/5 and Zhang and Qiu Fig. 10 (tree,
//     butterfly, hypercube for unsplittable and chunked vectors);
//   - LinkComm: a cluster link per rank modelled on top of a real run
//     (latency plus the larger of the bytes sent and received over the
//     bandwidth), so that per-link volumes and not this machine's cores
//     decide (Kylix §IV's α–β view);
//   - MeasureAlltoallv: the transport's Alltoallv against the message size
//     and the minimum efficient message size — Kylix Fig. 2;
//   - CodecsMatrix, ScalingMatrix: Lv et al.'s BFS algorithms (Table V:
//     BIT, WAH, ZLB-*, DIR-*; graph500.ParseAlgorithm) as exchanges and
//     codecs, and the matrices of runs compared in BENCHMARKS.md;
//   - MeasureMemory: the peak resident memory of whole runs against the
//     memory model of graph500.
//
// Each matrix is here whole: a Spec of its settings, whose Parse names the
// field at fault (internal/fielderr); its Run, which measures, records one
// JSON per run and summary.json through an Output (a folder), and prints
// its Markdown table for a person to paste (DenseSpec, TransportSpec,
// BFSMatrix, MemorySpec, PageRankAllreduceSpec, PageRankSpeedSpec). The
// matrix's key and the command line that regenerates a table are the
// caller's.
//
// Sources: Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for
// Commodity Clusters", ICPP, IEEE, 2014; Zhenyu Li, James A. Davis and
// Stephen A. Jarvis, "An Efficient Task-based All-Reduce for Machine
// Learning Applications", MLHPC'17, ACM, 2017; Bingjing Zhang and Judy
// Qiu, "Efficient, Fault-tolerant and Elastic Allreduce Framework for
// Iterative Algorithms", Indiana University Bloomington, technical report;
// Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun, "Compression and
// Sieve: Reducing Communication in Parallel Breadth First Search on
// Distributed Memory Systems", arXiv preprint, 2012.
//
// The emulated cluster's switch, which adds a one-way latency where the
// kernel has no tc netem, is the sub-package bench/netemu.
package bench
