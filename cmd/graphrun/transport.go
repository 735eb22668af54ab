package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/graph500"
	"github.com/graphrun/graphrun/results"
)

// transportFlags choose how a command's ranks run: as goroutines of this
// process (--ranks), as processes this one starts on this machine
// (--procs), as one rank of a TCP job started by someone else (--rank
// and --size, or a launcher's environment: see package comm/launch), or as
// one rank of an MPI job (under mpirun, mpiexec or srun, in a graphrun
// built with -tags mpi, where it is the default; see mpiByDefault).
type transportFlags struct {
	procs       int
	transport   string
	rank, size  int
	coordinator string
	listen      string
	peerTimeout time.Duration
	replicas    int
	verbose     bool
}

func (t *transportFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&t.procs, "procs", 0, "start this many processes on this machine, one rank each, talking TCP over 127.0.0.1")
	fl.StringVar(&t.transport, "transport", "", "inproc, tcp or mpi (default: mpi under mpirun, mpiexec or srun in a graphrun built with -tags mpi; "+
		"tcp when a launcher (mpirun, srun, Kubernetes) starts several processes otherwise, or with --rank/--size/--coordinator; else inproc)")
	fl.IntVar(&t.rank, "rank", 0, "this process's rank in a TCP job (default: from the launcher's environment)")
	fl.IntVar(&t.size, "size", 0, "number of processes in a TCP job (default: from the launcher's environment)")
	fl.StringVar(&t.coordinator, "coordinator", "", "host:port where rank 0 meets the other ranks (default $GRAPHRUN_COORDINATOR)")
	fl.StringVar(&t.listen, "listen", "", "host[:port] for this rank's peer connections (default: the interface that reaches the coordinator)")
	fl.IntVar(&t.replicas, "replicas", 1, "run every rank as this many processes holding the same data; the job survives while every rank keeps one (paper 000 §V); with --procs N it starts N·S processes")
	fl.DurationVar(&t.peerTimeout, "peer-timeout", launch.DefaultPeerTimeout, "a TCP job fails when a peer makes no progress for this long")
	fl.BoolVar(&t.verbose, "verbose", false, "log the TCP set-up (the addresses the coordinator and every rank listen on), which a --procs launch leaves out by default")
}

// checkRanks checks an in-process rank count of the flag --ranks: from 1 to
// inproc.MaxRanks.
func checkRanks(ranks int) error {
	switch {
	case ranks < 1:
		return flagError("ranks", "%d is less than 1", ranks)
	case ranks > inproc.MaxRanks:
		return flagError("ranks", "%d is above the ceiling of %d in-process ranks (they share one process's memory, which grows "+
			"with the square of the ranks); run more ranks as processes: --procs N, or under mpirun or srun", ranks, inproc.MaxRanks)
	}
	return nil
}

// transportMPI is --transport's name for the MPI backend (comm/mpi).
const transportMPI = "mpi"

// mpiBuildHint says how to get a graphrun with the MPI backend.
const mpiBuildHint = "build it with: go build -tags mpi ./cmd/graphrun " +
	"(needs an MPI library with its headers and pkg-config, e.g. Debian's libopenmpi-dev and pkg-config)"

// jobPlan is how this process takes part in a job.
type jobPlan struct {
	// procs > 0: this process only starts procs rank processes and waits.
	procs int
	// stdin, with procs > 0: rank 0's standard input (pagerank -).
	stdin io.Reader
	// job is this process's part otherwise: in-process ranks, one TCP rank
	// or one MPI rank (Transport transportMPI).
	job launch.Job
	// ranks is the number of in-process ranks of an in-process job.
	ranks int
	// replicas is the replication factor of a --procs launch.
	replicas int
	// elastic: a --procs launch survives losing a process other than 0
	// (pagerank --elastic).
	elastic bool
}

// plan works out the job from the flags and the environment. ranks is the
// --ranks value.
func (t *transportFlags) plan(cmd *cobra.Command, ranks int) (jobPlan, error) {
	fl := cmd.Flags()
	ranksSet := fl.Changed("ranks") && ranks > 1
	if fl.Changed("procs") {
		if t.procs < 1 {
			return jobPlan{}, flagError("procs", "%d is less than 1", t.procs)
		}
		if ranksSet {
			return jobPlan{}, flagError("procs", "cannot be combined with --ranks %d: --procs starts one rank per process, --ranks runs ranks as goroutines of one process", ranks)
		}
		if t.transport == launch.InProc || t.transport == transportMPI {
			return jobPlan{}, flagError("procs", "cannot be combined with --transport %s (the processes talk TCP; start MPI ranks with mpirun -np N)", t.transport)
		}
		for _, name := range []string{"rank", "size", "coordinator", "listen"} {
			if fl.Changed(name) {
				return jobPlan{}, flagError(name, "cannot be combined with --procs, which sets it for the processes it starts")
			}
		}
		if l, ok := launch.Detect(os.LookupEnv); ok {
			return jobPlan{}, flagError("procs", "cannot be used inside a %s job (%s is set): the launcher starts the processes already", l.Name, l.RankVar)
		}
		if t.peerTimeout <= 0 {
			return jobPlan{}, flagError("peer-timeout", "%v is not a positive duration", t.peerTimeout)
		}
		if t.replicas < 1 {
			return jobPlan{}, flagError("replicas", "%d is less than 1", t.replicas)
		}
		return jobPlan{procs: t.procs, replicas: t.replicas}, nil
	}
	if t.transport == "" && t.mpiByDefault(cmd) {
		return t.planMPI(cmd, ranksSet, ranks)
	}
	switch t.transport {
	case "", launch.InProc, launch.TCP:
	case transportMPI:
		return t.planMPI(cmd, ranksSet, ranks)
	default:
		return jobPlan{}, flagError("transport", "unknown transport %q (want %s, %s or %s)", t.transport, launch.InProc, launch.TCP, transportMPI)
	}
	job, err := launch.Discover(launch.Flags{
		Transport: t.transport,
		Rank:      t.rank, HasRank: fl.Changed("rank"),
		Size: t.size, HasSize: fl.Changed("size"),
		Coordinator: t.coordinator, Listen: t.listen, PeerTimeout: t.peerTimeout,
		Replicas: t.replicas,
	}, os.LookupEnv)
	if err != nil {
		return jobPlan{}, usageError{err}
	}
	// The ranks --procs starts (launch.Local sets EnvLocal) keep the
	// addresses they listen on to themselves unless --verbose: they are all
	// on 127.0.0.1 and the launcher's.
	job.QuietSetup = !t.verbose && os.Getenv(launch.EnvLocal) == "1"
	if job.Transport == launch.TCP && ranksSet {
		return jobPlan{}, flagError("ranks", "%d in-process ranks cannot be combined with a TCP job of %d processes (%s): each process is one rank", ranks, job.Size, job.Source)
	}
	return jobPlan{job: job, ranks: ranks}, nil
}

// mpiByDefault reports whether a command line without --transport runs
// as one rank of an MPI job: in a graphrun built with -tags mpi, started by
// an MPI launcher (mpirun, mpiexec, srun: OMPI_COMM_WORLD_*, PMI_*, SLURM_*
// set; not a Kubernetes Indexed Job, which starts no MPI processes), with
// none of the TCP job's flags (--rank, --size, --coordinator, --listen),
// which ask for TCP.
func (t *transportFlags) mpiByDefault(cmd *cobra.Command) bool {
	if !mpiBuilt {
		return false
	}
	for _, name := range []string{"rank", "size", "coordinator", "listen"} {
		if cmd.Flags().Changed(name) {
			return false
		}
	}
	l, ok := launch.Detect(os.LookupEnv)
	return ok && l.SizeVar != launch.EnvSize
}

// planMPI is plan for --transport mpi. The rank, the size and the number of
// ranks on this machine come from the MPI launcher's variables, so that bad
// flags fail before MPI starts; MPI confirms rank and size when the ranks
// run (runMPI).
func (t *transportFlags) planMPI(cmd *cobra.Command, ranksSet bool, ranks int) (jobPlan, error) {
	if !mpiBuilt {
		return jobPlan{}, flagError("transport", "%s: this graphrun was built without the MPI backend; %s", transportMPI, mpiBuildHint)
	}
	for _, name := range []string{"rank", "size", "coordinator", "listen"} {
		if cmd.Flags().Changed(name) {
			return jobPlan{}, flagError(name, "cannot be combined with --transport %s (MPI gives every process its rank; start graphrun with mpirun, mpiexec or srun)", transportMPI)
		}
	}
	if t.peerTimeout <= 0 {
		return jobPlan{}, flagError("peer-timeout", "%v is not a positive duration", t.peerTimeout)
	}
	l, ok := launch.Detect(os.LookupEnv)
	if !ok || l.SizeVar == launch.EnvSize { // a Kubernetes Indexed Job starts no MPI processes
		return jobPlan{}, flagError("transport", "%s needs an MPI launcher: start graphrun with mpirun -np N, mpiexec -n N or srun -n N "+
			"(none of OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID is set)", transportMPI)
	}
	job := launch.Job{Transport: transportMPI, LocalSize: 1, Source: l.Name, PeerTimeout: t.peerTimeout}
	var err error
	if job.Rank, err = envInt(l.RankVar); err != nil {
		return jobPlan{}, err
	}
	if job.Size, err = envInt(l.SizeVar); err != nil {
		return jobPlan{}, err
	}
	if job.Size < 1 || job.Rank < 0 || job.Rank >= job.Size {
		return jobPlan{}, usageError{fmt.Errorf("%s: rank %d is outside [0, %d) (the job size from %s)", l.RankVar, job.Rank, job.Size, l.SizeVar)}
	}
	if v, ok := os.LookupEnv(l.LocalSize); ok && l.LocalSize != "" && strings.TrimSpace(v) != "" {
		if job.LocalSize, err = envInt(l.LocalSize); err != nil {
			return jobPlan{}, err
		}
		if job.LocalSize < 1 || job.LocalSize > job.Size {
			return jobPlan{}, usageError{fmt.Errorf("%s: %d processes on this machine is outside [1, %d]", l.LocalSize, job.LocalSize, job.Size)}
		}
	}
	if ranksSet {
		return jobPlan{}, flagError("ranks", "%d in-process ranks cannot be combined with an MPI job of %d processes (%s): each process is one rank", ranks, job.Size, job.Source)
	}
	return jobPlan{job: job, ranks: ranks}, nil
}

// envInt reads an integer variable of the launcher's environment.
func envInt(name string) (int, error) {
	v := strings.TrimSpace(os.Getenv(name))
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, usageError{fmt.Errorf("%s: %q is not an integer", name, v)}
	}
	return n, nil
}

// tcp reports whether this process is one rank of a TCP job.
func (p jobPlan) tcp() bool { return p.procs == 0 && p.job.Transport == launch.TCP }

// mpi reports whether this process is one rank of an MPI job.
func (p jobPlan) mpi() bool { return p.procs == 0 && p.job.Transport == transportMPI }

// multiProcess reports whether this process is one rank of a job of
// processes (TCP or MPI).
func (p jobPlan) multiProcess() bool { return p.tcp() || p.mpi() }

// rank is this process's rank (0 for the launcher and in-process jobs,
// whose rank 0 reports).
func (p jobPlan) rank() int {
	if p.multiProcess() {
		return p.job.Rank
	}
	return 0
}

// reports reports whether this process prints and writes the job's
// results: in-process jobs and the --procs launcher (which checks the
// outputs before starting the ranks), and process 0 of a multi-process
// job — the first replica of rank 0, not its other replicas.
func (p jobPlan) reports() bool { return p.rank() == 0 }

// replication is the replication factor S of the job (1: none): the
// processes of a multi-process job are S per logical rank.
func (p jobPlan) replication() int {
	if p.multiProcess() {
		return max(p.job.Replicas, 1)
	}
	return max(p.replicas, 1)
}

// totalRanks is the number of ranks of the whole job.
func (p jobPlan) totalRanks() int {
	switch {
	case p.procs > 0:
		return p.procs
	case p.multiProcess():
		return p.job.LogicalSize()
	}
	return p.ranks
}

// localRanks is the number of the job's ranks on this machine, which share
// its threads and memory.
func (p jobPlan) localRanks() int {
	switch {
	case p.procs > 0:
		return p.procs * max(p.replicas, 1)
	case p.multiProcess():
		return p.job.LocalSize
	}
	return p.ranks
}

// launchLocal runs cmd's command line as p.procs rank processes of this
// executable and waits for them. extra are flags the children get on top of
// the ones this process was given (minus --procs).
func (p jobPlan) launchLocal(cmd *cobra.Command, extra ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--procs: finding graphrun's executable: %w", err)
	}
	args := append(forwardedArgs(cmd, "procs", "transport"), "--transport="+launch.TCP)
	args = append(args, extra...)
	ctx := cmd.Context()
	l := launch.Local{Procs: p.procs * max(p.replicas, 1), Replicas: p.replicas, Elastic: p.elastic, Path: exe, Args: args, Env: os.Environ(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Stdin: p.stdin}
	if err := l.Run(ctx); err != nil {
		return fmt.Errorf("--procs %d: %w", p.procs, err)
	}
	return nil
}

// forwardedArgs rebuilds cmd's command line for a child process: the
// command's path below the root and every flag that was given, as
// --name=value, except those named in skip.
func forwardedArgs(cmd *cobra.Command, skip ...string) []string {
	var args []string
	for c := cmd; c.HasParent(); c = c.Parent() {
		args = append([]string{c.Name()}, args...)
	}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "help" || slices.Contains(skip, f.Name) {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	return args
}

// runRanks runs fn on this process's ranks: every in-process rank, or this
// process's rank of a TCP or MPI job. Log lines of the TCP transport go to
// stderr.
func (p jobPlan) runRanks(ctx context.Context, stderr io.Writer, fn func(ctx context.Context, c comm.Comm) error) error {
	if p.mpi() {
		return runMPI(ctx, p.job, stderr, fn)
	}
	if !p.tcp() {
		return inproc.Run(ctx, p.ranks, fn)
	}
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "graphrun: "+format+"\n", args...)
	}
	return launch.RunTCP(ctx, p.job, logf, fn)
}

// runGraph500 runs the benchmark on this process's ranks and returns the
// report, or nil on a TCP or MPI rank other than 0.
func (p jobPlan) runGraph500(ctx context.Context, cfg graph500.Config, stderr io.Writer) (*results.Graph500Run, error) {
	if !p.multiProcess() {
		return graph500.Run(ctx, cfg)
	}
	cfg.Ranks = p.job.Size
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	var run *results.Graph500Run
	err := p.runRanks(ctx, stderr, func(ctx context.Context, c comm.Comm) error {
		r, err := graph500.RunRank(ctx, c, cfg)
		run = r
		return err
	})
	if err != nil {
		return nil, err
	}
	return run, nil
}

// The frontier exchange bfs uses by default in a job of processes (--procs,
// TCP, MPI), where the bytes on the network cost most: the packed sieve
// with the codec chosen per level (BENCHMARKS.md, "The exchange over a
// network": over 4 processes with 20 Mbit/s links at scale 20 it searches
// 3.0–4.2× faster than allgather on a quarter of the bytes). In-process
// ranks keep --exchange's
// default, allgather, whose bytes cost only memory bandwidth.
const (
	networkExchange = "packed"
	networkCodec    = "auto"
)

// defaultExchange gives bfs's exchange its default for the job when neither
// --exchange nor --algo chose one: in a job of processes networkExchange
// with networkCodec (unless --codec is given), else --exchange's own
// default. It reports whether the exchange was defaulted; the process that
// reports a job of processes says the choice on stderr, in one line.
func (p jobPlan) defaultExchange(cmd *cobra.Command, exchange, codec *string) bool {
	fl := cmd.Flags()
	if fl.Changed("exchange") || fl.Changed("algo") {
		return false
	}
	if p.procs == 0 && !p.multiProcess() {
		return true
	}
	*exchange = networkExchange
	if !fl.Changed("codec") {
		*codec = networkCodec
	}
	if p.procs == 0 && p.reports() {
		fmt.Fprintf(cmd.ErrOrStderr(), "graphrun: exchange: %s, codec %s (the default for a job of processes; --exchange allgather for the in-process default)\n", *exchange, *codec)
	}
	return true
}

// launchExitCode returns the exit status carried by err, if it is a local
// job's failure: the status of the rank that failed first.
func launchExitCode(err error) (int, bool) {
	var xe *launch.ExitError
	if errors.As(err, &xe) {
		return xe.ExitCode(), true
	}
	return 0, false
}
