// Package pagerank is distributed PageRank over a sparse allreduce, the
// algorithm and its run driver together.
//
// The algorithm (Run, RunShare) is the PageRank of Kylix §I-A and §VII-D:
// the edges are spread over the ranks by the random edge partition of
// Kylix §II-B, the in- and out-sets of each rank's share of the matrix
// configure the allreduce once (Kylix §III-A), and every iteration is a
// local sparse matrix-vector product followed by one sparse allreduce
// (Kylix §III-B) whose home ranks compute the update in place and whose up
// pass also sums the iteration's L1 change, dangling mass and total rank.
// The allreduce is Kylix's nested butterfly, or for comparison the direct
// or binary network (package allreduce), or the whole vector through the
// dense chunked hypercube of Zhang and Qiu §IV-E (allreduce/hypercube).
// The elastic run (RunElastic, RunElasticJoin) is Zhang and Qiu's failure
// exposure and topology update with iteration numbers (§II, §V-A, §V-B)
// and its ramp-up mode, in which processes join at a later iteration
// (§III, §V-C).
//
// The scores are those of NetworkX's pagerank (Page et al.'s definition
// with NetworkX's conventions): directed edges, duplicates collapsed,
// self-loops kept, the dangling vertices' mass spread uniformly, scores
// that sum to 1, and an iteration that stops when the L1 change falls
// below n·Tol, NetworkX's test for its tol (pagerank.go states the
// formula). A run that reaches MaxIter first keeps its scores and reports
// Converged false, where NetworkX raises PowerIterationFailedConvergence.
//
// The driver (RunRank, RunElasticRank, RunJoined, RunJob) is what one rank
// of a pagerank job runs around the algorithm: take its share of the input
// (Source: an edge list or a Graph500 Kronecker graph), run it, and
// collect the run's Report on rank 0 with the collectives that sum its
// traffic and take its slowest times. A caller describes the job with a
// JobConfig, which checks itself into a Source and a Job; its errors name
// the JobConfig or Config field at fault (fielderr), never a caller's
// option.
//
// References:
//
//   - Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for
//     Commodity Clusters", 43rd International Conference on Parallel
//     Processing (ICPP), IEEE, 2014.
//   - Bingjing Zhang and Judy Qiu, "Efficient, Fault-tolerant and Elastic
//     Allreduce Framework for Iterative Algorithms", Indiana University
//     Bloomington, technical report (undated).
//   - Lawrence Page, Sergey Brin, Rajeev Motwani and Terry Winograd, "The
//     PageRank Citation Ranking: Bringing Order to the Web", Stanford
//     InfoLab technical report, 1999.
//   - NetworkX, networkx.pagerank (the reference semantics and the scores
//     in testdata/ are NetworkX's).
package pagerank
