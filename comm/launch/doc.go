// Package launch turns a process's command line and environment into its
// place in a multi-process graphrun job, and starts such jobs on one machine.
//
// # Rank discovery
//
// Discover is a pure function of the command-line settings (Flags) and an
// environment lookup, so that it is tested without processes. It takes the
// rank and the job size from, in this order:
//
//  1. the --rank and --size flags;
//  2. OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE (Open MPI's mpirun);
//  3. PMI_RANK and PMI_SIZE (MPICH's and Intel MPI's mpiexec);
//  4. SLURM_PROCID and SLURM_NTASKS (srun);
//  5. JOB_COMPLETION_INDEX with GRAPHRUN_SIZE (a Kubernetes Indexed Job,
//     whose pods only know their index: GRAPHRUN_SIZE must repeat the Job's
//     completions).
//
// The first launcher whose variables are present is used; a flag overrides
// the launcher's value. The transport is --transport if given; otherwise
// tcp when the job has more than one process, in-process otherwise (so that
// `srun -n1 graphrun bfs --ranks 4` runs four in-process ranks).
//
// A TCP job also needs the coordinator's host:port (--coordinator or
// GRAPHRUN_COORDINATOR: rank 0 listens there, every rank registers there),
// the job's shared secret (GRAPHRUN_TOKEN: hex, or raw bytes if it is not
// hex; at least MinTokenBytes bytes) and the job id (GRAPHRUN_JOB; by
// default derived from the token, so that jobs with different tokens never
// mix). The token is read from the environment only, never from a flag,
// because command lines are visible to every user of a machine.
//
// Every bad or missing value is reported as an *Error naming the flag or the
// variable to fix.
//
// # Local launcher
//
// Local starts the ranks of a job as child processes on the loopback
// interface, with a fresh random token, forwards their output (rank 0's
// standard output as is, every rank's standard error line by line behind a
// "rank N: " prefix) and reports the rank at fault: a rank it started
// whose job failed because of another rank exits with ExitBlamed (see
// EnvLocal), so the first rank that failed on its own is named first and
// gives the job its exit status.
package launch
