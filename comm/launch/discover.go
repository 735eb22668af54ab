package launch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/graphrun/graphrun/comm/tcp"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// Transport names, as Config.Transport takes them.
const (
	InProc = "inproc"
	TCP    = "tcp"
)

// Environment variables read by Discover besides the launchers'.
const (
	EnvCoordinator = "GRAPHRUN_COORDINATOR"
	EnvToken       = "GRAPHRUN_TOKEN"
	EnvJob         = "GRAPHRUN_JOB"
	EnvSize        = "GRAPHRUN_SIZE"
)

// MinTokenBytes is the shortest job token accepted (after hex decoding).
const MinTokenBytes = 16

// DefaultPeerTimeout is Config.PeerTimeout's default.
const DefaultPeerTimeout = tcp.DefaultPeerTimeout

// Lookup reads an environment variable, like os.LookupEnv.
type Lookup func(key string) (string, bool)

// MapLookup is a Lookup over a map, for tests and for environments built by
// hand.
func MapLookup(env map[string]string) Lookup {
	return func(key string) (string, bool) {
		v, ok := env[key]
		return v, ok
	}
}

// Error is a bad or missing variable of the launch environment: Name is
// the variable to fix ("OMPI_COMM_WORLD_RANK"). A bad Config field is a
// fielderr.Error naming the field instead.
type Error struct {
	Name string
	Err  error
}

func (e *Error) Error() string { return e.Name + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// envError is the error of the environment variable name.
func envError(name, format string, args ...any) error {
	return &Error{Name: name, Err: fmt.Errorf(format, args...)}
}

// Launcher is a program that starts the processes of a job and tells each
// its rank through environment variables.
type Launcher struct {
	Name      string // for messages: "Open MPI", "Slurm", ...
	RankVar   string // the variable holding this process's rank
	SizeVar   string // the variable holding the number of processes
	LocalSize string // the variable holding the processes on this machine, if the launcher sets one
}

// Launchers returns the launchers Discover knows, in the order it tries them.
func Launchers() []Launcher {
	return []Launcher{
		{Name: "Open MPI", RankVar: "OMPI_COMM_WORLD_RANK", SizeVar: "OMPI_COMM_WORLD_SIZE", LocalSize: "OMPI_COMM_WORLD_LOCAL_SIZE"},
		{Name: "MPICH/Intel MPI (PMI)", RankVar: "PMI_RANK", SizeVar: "PMI_SIZE", LocalSize: "MPI_LOCALNRANKS"},
		{Name: "Slurm", RankVar: "SLURM_PROCID", SizeVar: "SLURM_NTASKS"},
		{Name: "Kubernetes Indexed Job", RankVar: "JOB_COMPLETION_INDEX", SizeVar: EnvSize},
	}
}

// Detect returns the first launcher of Launchers whose rank or size
// variable is set (to anything, even a bad value), if any.
func Detect(env Lookup) (Launcher, bool) {
	for _, l := range Launchers() {
		if isSet(env, l.RankVar) || (l.SizeVar != EnvSize && isSet(env, l.SizeVar)) {
			return l, true
		}
	}
	return Launcher{}, false
}

func isSet(env Lookup, key string) bool {
	v, ok := env(key)
	return ok && strings.TrimSpace(v) != ""
}

// Config is how a process is told to take part in a job; its fields take
// precedence over the launch environment. Discover reads the job's fields
// (Transport to Replicas); NewPlan reads them all. A field's Set companion
// says that the field was set explicitly, even to its zero value.
type Config struct {
	// Transport is "" (chosen from the rest: see the package
	// documentation), InProc, TCP or MPI (NewPlan only); TransportSet says
	// it was set explicitly.
	Transport    string
	TransportSet bool
	// Rank and Size are this process's rank and the job's number of
	// processes, when RankSet and SizeSet; otherwise the launcher's.
	Rank, Size       int
	RankSet, SizeSet bool
	// Coordinator is rank 0's host:port ("": GRAPHRUN_COORDINATOR);
	// CoordinatorSet says it was set explicitly, even to "".
	Coordinator    string
	CoordinatorSet bool
	// Listen is this rank's data listener, host or host:port ("": the
	// interface that reaches the coordinator); ListenSet as Coordinator's.
	Listen      string
	ListenSet   bool
	PeerTimeout time.Duration
	// Replicas is the number of processes per logical rank (0 or 1: none);
	// ReplicasSet says it was set explicitly.
	Replicas    int
	ReplicasSet bool

	// Procs > 0 with ProcsSet: this process starts Procs rank processes
	// on this machine (times Replicas) and waits for them.
	Procs    int
	ProcsSet bool
	// Ranks is the number of in-process ranks of an in-process job;
	// RanksSet says it was set explicitly.
	Ranks    int
	RanksSet bool
	// Verbose logs the TCP set-up of the rank processes Procs starts,
	// which they keep to themselves otherwise.
	Verbose bool
}

// Job is this process's place in a job.
type Job struct {
	// Transport is InProc (the ranks are goroutines of this process; the
	// other fields but Source are then zero) or TCP.
	Transport string
	// Rank and Size are this process's rank and the number of processes.
	Rank, Size int
	// LocalSize is the number of the job's processes on this machine, as far
	// as the launcher tells (1 if it does not). Threads and memory are
	// shared among them.
	LocalSize int
	// Source says where Rank and Size came from: SourceConfig, a
	// launcher's name, or SourceJoin.
	Source string

	Coordinator string // host:port of rank 0's coordinator
	Listen      string // this rank's data listener; "" for the default
	Token       []byte
	JobID       string
	// JobIDFromToken says that JobID was derived from the token
	// (GRAPHRUN_JOB is not set): ranks with different tokens then also
	// have different job ids.
	JobIDFromToken bool
	PeerTimeout    time.Duration
	// QuietSetup leaves the set-up's progress (the addresses the
	// coordinator and the rank listen on) out of the log: a rank of a
	// Procs launch without Verbose.
	QuietSetup bool
	// Replicas is the replication factor S of a TCP job (1: none). Rank
	// and Size count processes: Size/S logical ranks, process P being
	// replica P / (Size/S) of logical rank P mod (Size/S).
	Replicas int
	// ReportFD, in a replica of rank 0 of a replicated job that Local
	// started, is the descriptor on which it asks for the turn to write
	// the results (Plan.TakeReport); 0 otherwise.
	ReportFD int
	// Launcher, in a rank that Local started, is the launcher's process
	// id (EnvLauncher): a rank whose parent is no longer that process
	// refuses to run (RunTCP), since no one would wait for it. 0: none.
	Launcher int
}

// LogicalRank and LogicalSize are this process's logical rank and the
// number of logical ranks (Rank and Size without replication).
func (job Job) LogicalRank() int { return job.Rank % job.LogicalSize() }

// LogicalSize is the number of logical ranks.
func (job Job) LogicalSize() int { return job.Size / max(job.Replicas, 1) }

// given is a setting and whether this process was given it.
type given struct {
	name string
	set  bool
}

// firstGiven returns the name of the first setting of gs given, or "".
func firstGiven(gs ...given) string {
	for _, g := range gs {
		if g.set {
			return g.name
		}
	}
	return ""
}

// MaxSize is the most processes a TCP or MPI job may have: the
// coordinator and every rank size tables by the job's size, which comes
// from a flag or an environment variable and is checked before they are
// made.
const MaxSize = 1 << 16

// MaxLocalProcs is the most processes a Procs launch starts on this
// machine (Procs times Replicas), and MaxReplicas the largest replication
// factor.
const (
	MaxLocalProcs = 1024
	MaxReplicas   = 16
)

// SourceConfig is Job.Source when Rank and Size come from the Config:
// its fields' names, as errors name fields.
const SourceConfig = "Rank and Size"

// Discover works out this process's place in the job from the
// configuration and the environment (see the package documentation for the
// order). A bad field is a fielderr.Error naming it; a bad variable an
// *Error naming the variable. Messages refer to other fields by their
// names.
func Discover(f Config, env Lookup) (Job, error) {
	switch f.Transport {
	case "", InProc, TCP:
	default:
		return Job{}, fielderr.New("Transport", "unknown transport %q (want %s or %s)", f.Transport, InProc, TCP)
	}
	if f.PeerTimeout <= 0 {
		return Job{}, fielderr.New("PeerTimeout", "%v is not a positive duration", f.PeerTimeout)
	}
	if f.Replicas < 0 {
		return Job{}, fielderr.New("Replicas", "%d is negative", f.Replicas)
	}
	if f.Replicas > MaxReplicas {
		return Job{}, fielderr.New("Replicas", "%d is more than %d", f.Replicas, MaxReplicas)
	}
	if f.Transport == InProc {
		if f.Replicas > 1 {
			return Job{}, fielderr.New("Replicas", "needs a job of processes (Procs N, or Transport %s under a launcher)", TCP)
		}
		if name := firstGiven(given{"Rank", f.RankSet}, given{"Size", f.SizeSet},
			given{"Coordinator", f.Coordinator != ""}, given{"Listen", f.Listen != ""}); name != "" {
			return Job{}, fielderr.New(name, "needs Transport %s (in-process ranks are set with Ranks)", TCP)
		}
		return Job{Transport: InProc, Source: SourceConfig}, nil
	}

	job, found, err := rankAndSize(f, env)
	if err != nil {
		return Job{}, err
	}
	job.Transport = f.Transport
	if job.Transport == "" {
		job.Transport = InProc
		if found && job.Size > 1 {
			job.Transport = TCP
		}
	}
	if job.Transport == InProc {
		if f.Replicas > 1 {
			return Job{}, fielderr.New("Replicas", "needs a job of several processes (Procs N, or Transport %s under a launcher)", TCP)
		}
		if name := firstGiven(given{"Coordinator", f.Coordinator != ""}, given{"Listen", f.Listen != ""}); name != "" {
			return Job{}, fielderr.New(name, "needs a job of several processes (Transport %s with Rank and Size, or a launcher)", TCP)
		}
		return Job{Transport: InProc, Source: job.Source}, nil
	}
	if !found {
		return Job{}, fielderr.New("Transport", "%s needs this process's rank and the job's size: give Rank and Size, "+
			"run under mpirun, mpiexec, srun or a Kubernetes Indexed Job, or use Procs N", TCP)
	}
	job.PeerTimeout = f.PeerTimeout
	job.Replicas = max(f.Replicas, 1)
	if job.Size%job.Replicas != 0 {
		return Job{}, fielderr.New("Replicas", "%d processes (%s) cannot form groups of %d replicas", job.Size, job.Source, job.Replicas)
	}
	if err := job.network(f, env); err != nil {
		return Job{}, err
	}
	return job, nil
}

// rankAndSize finds the rank and size; found is false if neither the
// configuration nor a launcher give any.
func rankAndSize(f Config, env Lookup) (job Job, found bool, err error) {
	l, haveLauncher := Detect(env)
	if !haveLauncher && !f.RankSet && !f.SizeSet {
		return Job{LocalSize: 1, Source: SourceConfig}, false, nil
	}
	job.LocalSize = 1
	switch {
	case f.RankSet && f.SizeSet:
		job.Source = SourceConfig
	case haveLauncher:
		job.Source = l.Name
	case f.RankSet:
		return Job{}, false, fielderr.New("Size", "missing: Rank needs Size (no launcher's variables are set)")
	default:
		return Job{}, false, fielderr.New("Rank", "missing: Size needs Rank (no launcher's variables are set)")
	}

	// Each of rank and size comes from its field or else the launcher's
	// variable; rankFrom and sizeFrom say where, for the errors.
	var rankFrom, sizeFrom setting
	if job.Rank, rankFrom, err = fieldOrVar(f.RankSet, f.Rank, "Rank", env, l.RankVar, l); err != nil {
		return Job{}, false, err
	}
	if job.Size, sizeFrom, err = fieldOrVar(f.SizeSet, f.Size, "Size", env, l.SizeVar, l); err != nil {
		return Job{}, false, err
	}
	if job.Size < 1 {
		return Job{}, false, sizeFrom.errorf("%d is not a job size (need at least 1)", job.Size)
	}
	if job.Size > MaxSize {
		// The coordinator's tables are sized by it: bounded before they are made.
		return Job{}, false, sizeFrom.errorf("%d processes, more than the %d a job may have", job.Size, MaxSize)
	}
	if job.Rank < 0 || job.Rank >= job.Size {
		return Job{}, false, rankFrom.errorf("rank %d is outside [0, %d) (the job size from %s)", job.Rank, job.Size, sizeFrom.name)
	}
	if haveLauncher && l.LocalSize != "" && isSet(env, l.LocalSize) {
		n, err := intVar(env, l.LocalSize, l)
		if err != nil {
			return Job{}, false, err
		}
		if n < 1 || n > job.Size {
			return Job{}, false, envError(l.LocalSize, "%d processes on this machine is outside [1, %d]", n, job.Size)
		}
		job.LocalSize = n
	}
	return job, true, nil
}

// setting is where a value came from: a Config field or an environment
// variable.
type setting struct {
	name  string
	field bool
}

// errorf is the error of the setting: a fielderr.Error of a field, an
// *Error of a variable.
func (s setting) errorf(format string, args ...any) error {
	if s.field {
		return fielderr.New(s.name, format, args...)
	}
	return envError(s.name, format, args...)
}

// wrap is err as the error of the setting.
func (s setting) wrap(err error) error {
	if s.field {
		return fielderr.Wrap(s.name, err)
	}
	return &Error{Name: s.name, Err: err}
}

// fieldOrVar is the value of the field if it was set (set), else the
// launcher's integer variable key, with where it came from.
func fieldOrVar(set bool, value int, field string, env Lookup, key string, l Launcher) (int, setting, error) {
	if set {
		return value, setting{field, true}, nil
	}
	v, err := intVar(env, key, l)
	return v, setting{key, false}, err
}

// intVar parses a launcher's integer variable.
func intVar(env Lookup, key string, l Launcher) (int, error) {
	v, ok := env(key)
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		if key == EnvSize {
			return 0, envError(key, "not set: in a %s (%s is set) it must hold the number of processes (the Job's completions)", l.Name, l.RankVar)
		}
		return 0, envError(key, "not set, but %s sets %s", l.Name, l.RankVar)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, envError(key, "%q is not an integer", v)
	}
	return n, nil
}

// network fills in the coordinator, listen address, token and job id.
func (job *Job) network(f Config, env Lookup) error {
	from := setting{"Coordinator", true}
	job.Coordinator = f.Coordinator
	if job.Coordinator == "" {
		from = setting{EnvCoordinator, false}
		job.Coordinator, _ = env(EnvCoordinator)
		job.Coordinator = strings.TrimSpace(job.Coordinator)
	}
	if job.Coordinator == "" {
		return fielderr.New("Coordinator", "missing: a TCP job needs rank 0's host:port (Coordinator or %s)", EnvCoordinator)
	}
	if err := checkHostPort(job.Coordinator, false); err != nil {
		return from.wrap(err)
	}

	if f.Listen != "" {
		job.Listen = f.Listen
		if _, _, err := net.SplitHostPort(f.Listen); err != nil {
			// A bare host: an ephemeral port on it.
			job.Listen = net.JoinHostPort(strings.Trim(f.Listen, "[]"), "0")
		}
		if err := checkHostPort(job.Listen, true); err != nil {
			return fielderr.Wrap("Listen", err)
		}
	}

	raw, ok := env(EnvToken)
	token, err := ParseToken(raw)
	if !ok || strings.TrimSpace(raw) == "" {
		return envError(EnvToken, "not set: a TCP job needs a shared secret in every rank's environment, "+
			"e.g. export %s=$(openssl rand -hex 32) (Procs makes one itself)", EnvToken)
	}
	if err != nil {
		return &Error{Name: EnvToken, Err: err}
	}
	job.Token = token

	job.JobID, job.JobIDFromToken = DefaultJobID(token), true
	if id, ok := env(EnvJob); ok && strings.TrimSpace(id) != "" {
		job.JobID, job.JobIDFromToken = strings.TrimSpace(id), false
	}
	return nil
}

// checkHostPort checks a host:port address; port 0 only if zeroPort.
func checkHostPort(addr string, zeroPort bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port: %w", addr, err)
	}
	if host == "" && !zeroPort {
		return fmt.Errorf("%q has no host (other ranks must be able to reach it)", addr)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 || (p == 0 && !zeroPort) {
		return fmt.Errorf("%q: port %q is not in 1..65535", addr, port)
	}
	return nil
}

// ParseToken decodes a job token: hex if the value is an even number of hex
// digits, its raw bytes otherwise; surrounding white space is ignored. It
// needs at least MinTokenBytes bytes.
func ParseToken(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	token := []byte(s)
	if b, err := hex.DecodeString(s); err == nil {
		token = b
	}
	if len(token) < MinTokenBytes {
		return nil, fmt.Errorf("a token of %d bytes is too short: need at least %d (e.g. 32 random bytes in hex: openssl rand -hex 32)", len(token), MinTokenBytes)
	}
	return token, nil
}

// DefaultJobID is the job id of a job whose GRAPHRUN_JOB is not set: a hash
// of the token, so that every rank derives the same id and jobs with
// different tokens have different ids. It reveals nothing of the token.
func DefaultJobID(token []byte) string {
	h := sha256.Sum256(append([]byte("graphrun job id\x00"), token...))
	return "job-" + hex.EncodeToString(h[:8])
}

// TCPConfig is the comm/tcp configuration of a TCP job's rank. logf may be
// nil.
func (job Job) TCPConfig(logf func(format string, args ...any)) (tcp.Config, error) {
	if job.Transport != TCP {
		return tcp.Config{}, errors.New("launch: not a TCP job")
	}
	return tcp.Config{
		Rank: job.Rank, Size: job.Size,
		Coordinator: job.Coordinator, Listen: job.Listen,
		Token: job.Token, JobID: job.JobID,
		PeerTimeout: job.PeerTimeout,
		Replicas:    max(job.Replicas, 1),
		Logf:        logf,
		Tracef:      job.tracef(logf),
	}, nil
}

// tracef is the TCP configuration's Tracef: logf, or nothing with
// QuietSetup.
func (job Job) tracef(logf func(format string, args ...any)) func(format string, args ...any) {
	if job.QuietSetup {
		return func(string, ...any) {}
	}
	return logf
}
