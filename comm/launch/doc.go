// Package launch turns a process's job configuration and its launch
// environment into its place in a multi-process graphrun job, and starts
// such jobs on one machine. It is the plumbing under the transports
// (comm/inproc, comm/tcp, comm/mpi): it decides which one a process runs,
// with which rank, and how a job of processes reports its failures;
// elastic jobs (Zhang and Qiu §V) and replicated ones (Kylix §V) are
// planned here too.
//
// # Rank discovery
//
// Discover is a pure function of the job's Config and an environment
// lookup, so that it is tested without processes. It takes the rank and
// the job size from, in this order:
//
//  1. Config.Rank and Config.Size, when set (RankSet, SizeSet);
//  2. OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE (Open MPI's mpirun);
//  3. PMI_RANK and PMI_SIZE (MPICH's and Intel MPI's mpiexec);
//  4. SLURM_PROCID and SLURM_NTASKS (srun);
//  5. JOB_COMPLETION_INDEX with GRAPHRUN_SIZE (a Kubernetes Indexed Job,
//     whose pods only know their index: GRAPHRUN_SIZE must repeat the Job's
//     completions).
//
// The first launcher whose variables are present is used; a field that is
// set overrides the launcher's value. The transport is Config.Transport if
// set; otherwise tcp when the job has more than one process, in-process
// otherwise (so that a single process under srun still runs Config.Ranks
// in-process ranks).
//
// A TCP job also needs the coordinator's host:port (Config.Coordinator or
// GRAPHRUN_COORDINATOR: rank 0 listens there, every rank registers there),
// the job's shared secret (GRAPHRUN_TOKEN: hex, or raw bytes if it is not
// hex; at least MinTokenBytes bytes) and the job id (GRAPHRUN_JOB; by
// default derived from the token, so that jobs with different tokens never
// mix). The token is read from the environment only, never from the
// configuration, because command lines are visible to every user of a
// machine.
//
// A bad field is reported as a fielderr.Error naming the Config field
// ("Procs"), whose message names any other field it concerns by its name
// too ("cannot be combined with Ranks 2"); a bad or missing variable as an
// *Error naming the variable.
//
// # Local launcher
//
// Local starts the ranks of a job as child processes on the loopback
// interface, with a fresh random token, forwards their output (rank 0's
// standard output as is, every rank's standard error line by line behind a
// "rank N: " prefix) and reports the rank at fault: a rank it started
// whose job failed because of another rank exits with ExitBlamed (see
// EnvLocal), so the first rank that failed on its own is named first and
// gives the job its exit status. The children's arguments are the
// caller's (Local.Args): only the program knows how to tell a copy of
// itself that it is rank R of P of a TCP job.
//
// References:
//
//   - Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for
//     Commodity Clusters", 43rd International Conference on Parallel
//     Processing (ICPP), IEEE, 2014.
//   - Bingjing Zhang and Judy Qiu, "Efficient, Fault-tolerant and Elastic
//     Allreduce Framework for Iterative Algorithms", Indiana University
//     Bloomington, technical report (undated).
package launch
