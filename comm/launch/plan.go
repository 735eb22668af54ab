package launch

// A process's place in a job as a whole: it starts the job's processes on
// this machine (Config.Procs), or it runs in-process ranks, one TCP rank or
// one MPI rank; NewPlan works it out from the Config and the launcher's
// environment, and Plan runs the ranks.

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// MPI is Config.Transport's name for the MPI backend (comm/mpi, in a graphrun
// built with -tags mpi: MPIBuilt).
const MPI = "mpi"

// mpiBuildHint says how to get a graphrun with the MPI backend.
const mpiBuildHint = "build it with: go build -tags mpi ./cmd/graphrun " +
	"(needs an MPI library with its headers and pkg-config, e.g. Debian's libopenmpi-dev and pkg-config)"

// jobField returns the first of Rank, Size, Coordinator and Listen that
// was set, or "".
func (f Config) jobField() string {
	return firstGiven(given{"Rank", f.RankSet}, given{"Size", f.SizeSet},
		given{"Coordinator", f.CoordinatorSet}, given{"Listen", f.ListenSet})
}

// Plan is how this process takes part in a job.
type Plan struct {
	// Procs > 0: this process only starts Procs rank processes and waits.
	Procs int
	// Stdin, with Procs > 0: rank 0's standard input (an input read from -).
	Stdin io.Reader
	// Job is this process's part otherwise: in-process ranks, one TCP rank
	// or one MPI rank (Transport MPI).
	Job Job
	// Ranks is the number of in-process ranks of an in-process job.
	Ranks int
	// Replicas is the replication factor of a Procs launch.
	Replicas int
	// Elastic: a Procs launch survives losing a process other than 0 (an
	// elastic PageRank, Zhang and Qiu §V-B).
	Elastic bool
	// PeerTimeout, with Procs > 0, is the job's peer timeout: a replicated
	// launch waits that long for a stalled replica of rank 0 to write the
	// results before another one does (Local.ReportWait).
	PeerTimeout time.Duration
}

// NewPlan works out the job from the configuration and the environment.
// A bad field is a fielderr.Error naming it ("Procs: ..."), a bad variable
// an *Error naming the variable.
func NewPlan(f Config, env Lookup) (Plan, error) {
	ranksSet := f.RanksSet && f.Ranks > 1
	if f.ProcsSet {
		if f.Procs < 1 {
			return Plan{}, fielderr.New("Procs", "%d is less than 1", f.Procs)
		}
		if ranksSet {
			return Plan{}, fielderr.New("Procs", "cannot be combined with Ranks %d: Procs starts one rank per process, Ranks runs ranks as goroutines of one process", f.Ranks)
		}
		if f.Transport == InProc || f.Transport == MPI {
			return Plan{}, fielderr.New("Procs", "cannot be combined with Transport %s (the processes talk TCP; start MPI ranks with mpirun -np N)", f.Transport)
		}
		if name := f.jobField(); name != "" {
			return Plan{}, fielderr.New(name, "cannot be combined with Procs, which sets it for the processes it starts")
		}
		if l, ok := Detect(env); ok {
			return Plan{}, fielderr.New("Procs", "cannot be used inside a %s job (%s is set): the launcher starts the processes already", l.Name, l.RankVar)
		}
		if f.PeerTimeout <= 0 {
			return Plan{}, fielderr.New("PeerTimeout", "%v is not a positive duration", f.PeerTimeout)
		}
		if f.Replicas < 1 {
			return Plan{}, fielderr.New("Replicas", "%d is less than 1", f.Replicas)
		}
		if f.Replicas > MaxReplicas {
			return Plan{}, fielderr.New("Replicas", "%d is more than %d", f.Replicas, MaxReplicas)
		}
		if f.Procs > MaxLocalProcs/f.Replicas {
			if f.Replicas > 1 {
				return Plan{}, fielderr.New("Procs", "%d ranks of %d replicas are more than the %d processes one machine runs", f.Procs, f.Replicas, MaxLocalProcs)
			}
			return Plan{}, fielderr.New("Procs", "%d is more than the %d processes one machine runs", f.Procs, MaxLocalProcs)
		}
		return Plan{Procs: f.Procs, Replicas: f.Replicas, PeerTimeout: f.PeerTimeout}, nil
	}
	if f.Transport == "" && mpiByDefault(f, env) {
		return planMPI(f, env, ranksSet)
	}
	switch f.Transport {
	case "", InProc, TCP:
	case MPI:
		return planMPI(f, env, ranksSet)
	default:
		return Plan{}, fielderr.New("Transport", "unknown transport %q (want %s, %s or %s)", f.Transport, InProc, TCP, MPI)
	}
	job, err := Discover(f, env)
	if err != nil {
		return Plan{}, err
	}
	// The ranks a Procs launch starts (Local sets EnvLocal) keep the
	// addresses they listen on to themselves unless Verbose: they are all
	// on 127.0.0.1 and the launcher's.
	local, _ := env(EnvLocal)
	job.QuietSetup = !f.Verbose && local == "1"
	if local == "1" && job.Transport == TCP {
		if job.ReportFD, err = reportFDOf(env); err != nil {
			return Plan{}, err
		}
		if job.Launcher, err = launcherOf(env); err != nil {
			return Plan{}, err
		}
	}
	if job.Transport == TCP && ranksSet {
		return Plan{}, fielderr.New("Ranks", "%d in-process ranks cannot be combined with a TCP job of %d processes (%s): each process is one rank", f.Ranks, job.Size, job.Source)
	}
	return Plan{Job: job, Ranks: f.Ranks}, nil
}

// mpiByDefault reports whether a configuration without a Transport runs as
// one rank of an MPI job: in a graphrun built with -tags mpi, started by an
// MPI launcher (mpirun, mpiexec, srun: OMPI_COMM_WORLD_*, PMI_*, SLURM_*
// set; not a Kubernetes Indexed Job, which starts no MPI processes), with
// none of the TCP job's fields set (Rank, Size, Coordinator, Listen),
// which ask for TCP.
func mpiByDefault(f Config, env Lookup) bool {
	if !MPIBuilt || f.jobField() != "" {
		return false
	}
	l, ok := Detect(env)
	return ok && l.SizeVar != EnvSize
}

// planMPI is NewPlan for Transport MPI. The rank, the size and the number
// of ranks on this machine come from the MPI launcher's variables, so that
// a bad configuration fails before MPI starts; MPI confirms rank and size
// when the ranks run (runMPI).
func planMPI(f Config, env Lookup, ranksSet bool) (Plan, error) {
	if !MPIBuilt {
		return Plan{}, fielderr.New("Transport", "%s: this graphrun was built without the MPI backend; %s", MPI, mpiBuildHint)
	}
	if name := f.jobField(); name != "" {
		return Plan{}, fielderr.New(name, "cannot be combined with Transport %s (MPI gives every process its rank; start graphrun with mpirun, mpiexec or srun)", MPI)
	}
	if f.PeerTimeout <= 0 {
		return Plan{}, fielderr.New("PeerTimeout", "%v is not a positive duration", f.PeerTimeout)
	}
	l, ok := Detect(env)
	if !ok || l.SizeVar == EnvSize { // a Kubernetes Indexed Job starts no MPI processes
		return Plan{}, fielderr.New("Transport", "%s needs an MPI launcher: start graphrun with mpirun -np N, mpiexec -n N or srun -n N "+
			"(none of OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID is set)", MPI)
	}
	job := Job{Transport: MPI, LocalSize: 1, Source: l.Name, PeerTimeout: f.PeerTimeout}
	var err error
	if job.Rank, err = envInt(env, l.RankVar); err != nil {
		return Plan{}, err
	}
	if job.Size, err = envInt(env, l.SizeVar); err != nil {
		return Plan{}, err
	}
	if job.Size > MaxSize {
		return Plan{}, fmt.Errorf("%s: %d processes, more than the %d a job may have", l.SizeVar, job.Size, MaxSize)
	}
	if job.Size < 1 || job.Rank < 0 || job.Rank >= job.Size {
		return Plan{}, fmt.Errorf("%s: rank %d is outside [0, %d) (the job size from %s)", l.RankVar, job.Rank, job.Size, l.SizeVar)
	}
	if v, ok := env(l.LocalSize); ok && l.LocalSize != "" && strings.TrimSpace(v) != "" {
		if job.LocalSize, err = envInt(env, l.LocalSize); err != nil {
			return Plan{}, err
		}
		if job.LocalSize < 1 || job.LocalSize > job.Size {
			return Plan{}, fmt.Errorf("%s: %d processes on this machine is outside [1, %d]", l.LocalSize, job.LocalSize, job.Size)
		}
	}
	if ranksSet {
		return Plan{}, fielderr.New("Ranks", "%d in-process ranks cannot be combined with an MPI job of %d processes (%s): each process is one rank", f.Ranks, job.Size, job.Source)
	}
	return Plan{Job: job, Ranks: f.Ranks}, nil
}

// envInt reads an integer variable of the launcher's environment.
func envInt(env Lookup, name string) (int, error) {
	v, _ := env(name)
	v = strings.TrimSpace(v)
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not an integer", name, v)
	}
	return n, nil
}

// TCP reports whether this process is one rank of a TCP job.
func (p Plan) TCP() bool { return p.Procs == 0 && p.Job.Transport == TCP }

// MPI reports whether this process is one rank of an MPI job.
func (p Plan) MPI() bool { return p.Procs == 0 && p.Job.Transport == MPI }

// MultiProcess reports whether this process is one rank of a job of
// processes (TCP or MPI).
func (p Plan) MultiProcess() bool { return p.TCP() || p.MPI() }

// Rank is this process's rank (0 for the launcher and in-process jobs,
// whose rank 0 reports).
func (p Plan) Rank() int {
	if p.MultiProcess() {
		return p.Job.Rank
	}
	return 0
}

// Reports reports whether this process prints and writes the job's
// results: in-process jobs and the Procs launcher (which checks the
// outputs before starting the ranks), and process 0 of a multi-process
// job — the first replica of rank 0, not its other replicas.
func (p Plan) Reports() bool { return p.Rank() == 0 }

// Replication is the replication factor S of the job (1: none): the
// processes of a multi-process job are S per logical rank.
func (p Plan) Replication() int {
	if p.MultiProcess() {
		return max(p.Job.Replicas, 1)
	}
	return max(p.Replicas, 1)
}

// TotalRanks is the number of ranks of the whole job.
func (p Plan) TotalRanks() int {
	switch {
	case p.Procs > 0:
		return p.Procs
	case p.MultiProcess():
		return p.Job.LogicalSize()
	}
	return p.Ranks
}

// LocalRanks is the number of the job's ranks on this machine, which share
// its threads and memory.
func (p Plan) LocalRanks() int {
	switch {
	case p.Procs > 0:
		return p.Procs * max(p.Replicas, 1)
	case p.MultiProcess():
		return p.Job.LocalSize
	}
	return p.Ranks
}

// LaunchLocal runs the job's Procs rank processes (times Replicas) of the
// program path and waits for them (Local.Run). args gives each process's
// arguments (Local.Args), which must make it a TCP rank; env is their
// environment, usually os.Environ().
func (p Plan) LaunchLocal(ctx context.Context, path string, args func(rank, size int) []string, env []string, stdout, stderr io.Writer) error {
	l := Local{Procs: p.Procs * max(p.Replicas, 1), Replicas: p.Replicas, Elastic: p.Elastic, Path: path, Args: args, Env: env,
		Stdout: stdout, Stderr: stderr, Stdin: p.Stdin, ReportWait: p.PeerTimeout}
	return l.Run(ctx)
}

// RunRanks runs fn on this process's ranks: every in-process rank, or this
// process's rank of a TCP or MPI job. Log lines of the TCP transport go to
// stderr.
func (p Plan) RunRanks(ctx context.Context, stderr io.Writer, fn func(ctx context.Context, c comm.Comm) error) error {
	if p.MPI() {
		return runMPI(ctx, p.Job, stderr, fn)
	}
	if !p.TCP() {
		return inproc.Run(ctx, p.Ranks, fn)
	}
	return RunTCP(ctx, p.Job, StderrLogf(stderr), fn)
}

// StderrLogf writes log lines behind "graphrun: " to stderr, one at a
// time.
func StderrLogf(stderr io.Writer) func(format string, args ...any) {
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "graphrun: "+format+"\n", args...)
	}
}
