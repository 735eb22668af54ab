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
)

// Transport names, as --transport takes them.
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

// DefaultPeerTimeout is --peer-timeout's default.
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

// Error is a bad or missing setting. Name is the flag ("--rank") or the
// environment variable ("OMPI_COMM_WORLD_RANK") to fix.
type Error struct {
	Name string
	Err  error
}

func (e *Error) Error() string { return e.Name + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func settingError(name, format string, args ...any) error {
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

// Flags are the command-line settings of a job; they take precedence over
// the environment.
type Flags struct {
	Transport        string // "", InProc or TCP
	Rank, Size       int
	HasRank, HasSize bool   // whether --rank and --size were given
	Coordinator      string // "" if not given
	Listen           string // "" if not given
	PeerTimeout      time.Duration
	// Replicas is --replicas: processes per logical rank (0 or 1: none).
	Replicas int
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
	// Source says where Rank and Size came from: "flags" or a launcher's name.
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
	// --procs launch without --verbose.
	QuietSetup bool
	// Replicas is the replication factor S of a TCP job (1: none). Rank
	// and Size count processes: Size/S logical ranks, process P being
	// replica P / (Size/S) of logical rank P mod (Size/S).
	Replicas int
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

// Discover works out this process's place in the job from the flags and the
// environment (see the package documentation for the order). Every error
// is an *Error naming the flag or variable at fault.
func Discover(f Flags, env Lookup) (Job, error) {
	switch f.Transport {
	case "", InProc, TCP:
	default:
		return Job{}, settingError("--transport", "unknown transport %q (want %s or %s)", f.Transport, InProc, TCP)
	}
	if f.PeerTimeout <= 0 {
		return Job{}, settingError("--peer-timeout", "%v is not a positive duration", f.PeerTimeout)
	}
	if f.Replicas < 0 {
		return Job{}, settingError("--replicas", "%d is negative", f.Replicas)
	}
	if f.Transport == InProc {
		if f.Replicas > 1 {
			return Job{}, settingError("--replicas", "needs a job of processes (--procs N, or --transport %s under a launcher)", TCP)
		}
		if name := firstGiven(given{"--rank", f.HasRank}, given{"--size", f.HasSize},
			given{"--coordinator", f.Coordinator != ""}, given{"--listen", f.Listen != ""}); name != "" {
			return Job{}, settingError(name, "needs --transport %s (in-process ranks are set with --ranks)", TCP)
		}
		return Job{Transport: InProc, Source: "flags"}, nil
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
			return Job{}, settingError("--replicas", "needs a job of several processes (--procs N, or --transport %s under a launcher)", TCP)
		}
		if name := firstGiven(given{"--coordinator", f.Coordinator != ""}, given{"--listen", f.Listen != ""}); name != "" {
			return Job{}, settingError(name, "needs a job of several processes (--transport %s with --rank and --size, or a launcher)", TCP)
		}
		return Job{Transport: InProc, Source: job.Source}, nil
	}
	if !found {
		return Job{}, settingError("--transport", "%s needs this process's rank and the job's size: give --rank and --size, "+
			"run under mpirun, mpiexec, srun or a Kubernetes Indexed Job, or use --procs N", TCP)
	}
	job.PeerTimeout = f.PeerTimeout
	job.Replicas = max(f.Replicas, 1)
	if job.Size%job.Replicas != 0 {
		return Job{}, settingError("--replicas", "%d processes (%s) cannot form groups of %d replicas", job.Size, job.Source, job.Replicas)
	}
	if err := job.network(f, env); err != nil {
		return Job{}, err
	}
	return job, nil
}

// rankAndSize finds the rank and size; found is false if neither the flags
// nor a launcher give any.
func rankAndSize(f Flags, env Lookup) (job Job, found bool, err error) {
	l, haveLauncher := Detect(env)
	if !haveLauncher && !f.HasRank && !f.HasSize {
		return Job{LocalSize: 1, Source: "flags"}, false, nil
	}
	job.LocalSize = 1
	switch {
	case f.HasRank && f.HasSize:
		job.Source = "flags"
	case haveLauncher:
		job.Source = l.Name
	case f.HasRank:
		return Job{}, false, settingError("--size", "missing: --rank needs --size (no launcher's variables are set)")
	default:
		return Job{}, false, settingError("--rank", "missing: --size needs --rank (no launcher's variables are set)")
	}

	// Each of rank and size comes from its flag or else the launcher's
	// variable; rankName and sizeName are where, for the errors.
	var rankName, sizeName string
	if job.Rank, rankName, err = flagOrVar(f.HasRank, f.Rank, "--rank", env, l.RankVar, l); err != nil {
		return Job{}, false, err
	}
	if job.Size, sizeName, err = flagOrVar(f.HasSize, f.Size, "--size", env, l.SizeVar, l); err != nil {
		return Job{}, false, err
	}
	if job.Size < 1 {
		return Job{}, false, settingError(sizeName, "%d is not a job size (need at least 1)", job.Size)
	}
	if job.Rank < 0 || job.Rank >= job.Size {
		return Job{}, false, settingError(rankName, "rank %d is outside [0, %d) (the job size from %s)", job.Rank, job.Size, sizeName)
	}
	if haveLauncher && l.LocalSize != "" && isSet(env, l.LocalSize) {
		n, err := intVar(env, l.LocalSize, l)
		if err != nil {
			return Job{}, false, err
		}
		if n < 1 || n > job.Size {
			return Job{}, false, settingError(l.LocalSize, "%d processes on this machine is outside [1, %d]", n, job.Size)
		}
		job.LocalSize = n
	}
	return job, true, nil
}

// flagOrVar is the value of flag if it was given (has), else the
// launcher's integer variable key, with the name of where it came from.
func flagOrVar(has bool, value int, flag string, env Lookup, key string, l Launcher) (int, string, error) {
	if has {
		return value, flag, nil
	}
	v, err := intVar(env, key, l)
	return v, key, err
}

// intVar parses a launcher's integer variable.
func intVar(env Lookup, key string, l Launcher) (int, error) {
	v, ok := env(key)
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		if key == EnvSize {
			return 0, settingError(key, "not set: in a %s (%s is set) it must hold the number of processes (the Job's completions)", l.Name, l.RankVar)
		}
		return 0, settingError(key, "not set, but %s sets %s", l.Name, l.RankVar)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, settingError(key, "%q is not an integer", v)
	}
	return n, nil
}

// network fills in the coordinator, listen address, token and job id.
func (job *Job) network(f Flags, env Lookup) error {
	name := "--coordinator"
	job.Coordinator = f.Coordinator
	if job.Coordinator == "" {
		name = EnvCoordinator
		job.Coordinator, _ = env(EnvCoordinator)
		job.Coordinator = strings.TrimSpace(job.Coordinator)
	}
	if job.Coordinator == "" {
		return settingError("--coordinator", "missing: a TCP job needs rank 0's host:port (--coordinator or %s)", EnvCoordinator)
	}
	if err := checkHostPort(job.Coordinator, false); err != nil {
		return &Error{Name: name, Err: err}
	}

	if f.Listen != "" {
		job.Listen = f.Listen
		if _, _, err := net.SplitHostPort(f.Listen); err != nil {
			// A bare host: an ephemeral port on it.
			job.Listen = net.JoinHostPort(strings.Trim(f.Listen, "[]"), "0")
		}
		if err := checkHostPort(job.Listen, true); err != nil {
			return &Error{Name: "--listen", Err: err}
		}
	}

	raw, ok := env(EnvToken)
	token, err := ParseToken(raw)
	if !ok || strings.TrimSpace(raw) == "" {
		return settingError(EnvToken, "not set: a TCP job needs a shared secret in every rank's environment, "+
			"e.g. export %s=$(openssl rand -hex 32) (--procs makes one itself)", EnvToken)
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
