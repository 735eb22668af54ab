// Package hypercube is graphrun's dense allreduce: every rank holds a
// vector of the same length and ends with the element-wise reduction over
// all ranks, with sum, min, max or a user operator.
//
// It implements the allreduce framework of Zhang and Qiu: the hypercube
// topology for any number of processes, with pairing, sending and receiving
// links and freed ids (Zhang and Qiu §IV-A–D, topology.go), and its two
// allreduces, unsplittable objects exchanged whole along each dimension and
// chunked arrays by reduce-scatter then allgather (§IV-E, schedule.go). The
// tree reduce + broadcast and the binary butterfly of Li et al. §2.2 (Fig. 1)
// are compiled into the same schedules and run on the same executor
// (dense.go), which cuts vectors into chunks that workers encode, decode and
// reduce while the transport carries others (Li et al. §3.3). A call that
// fails returns an error on every rank, never a partial result as if it
// were the sum (the failure exposure of Zhang and Qiu §II); the topology
// update after a failure or a join is the elastic transport's (§V; see
// topology.go).
//
// On top of it, shared.go is the shared-variable API of Li et al. §3: many
// tasks in one process Commit vectors to a variable (Init), the process
// reduces them locally, and one dense allreduce across processes gives every
// task the global result (Get). It lives here because that one allreduce is
// this package's.
//
// PageRank uses the chunked hypercube when asked for the dense allreduce;
// the sparse Kylix allreduce is the parent package allreduce.
//
// References:
//
//   - Bingjing Zhang and Judy Qiu, "Efficient, Fault-tolerant and Elastic
//     Allreduce Framework for Iterative Algorithms", Indiana University
//     Bloomington, technical report (undated).
//   - Zhenyu Li, James A. Davis and Stephen A. Jarvis, "An Efficient
//     Task-based All-Reduce for Machine Learning Applications", Machine
//     Learning on HPC Environments workshop (MLHPC'17), ACM, 2017.
package hypercube
