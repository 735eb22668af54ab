package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
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
// (--procs), or as one rank of a TCP job started by someone else (--rank
// and --size, or a launcher's environment: see package comm/launch).
type transportFlags struct {
	procs       int
	transport   string
	rank, size  int
	coordinator string
	listen      string
	peerTimeout time.Duration
}

func (t *transportFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&t.procs, "procs", 0, "start this many processes on this machine, one rank each, talking TCP over 127.0.0.1")
	fl.StringVar(&t.transport, "transport", "", "inproc or tcp (default: tcp when a launcher (mpirun, srun, Kubernetes) starts several processes, else inproc)")
	fl.IntVar(&t.rank, "rank", 0, "this process's rank in a TCP job (default: from the launcher's environment)")
	fl.IntVar(&t.size, "size", 0, "number of processes in a TCP job (default: from the launcher's environment)")
	fl.StringVar(&t.coordinator, "coordinator", "", "host:port where rank 0 meets the other ranks (default $GRAPHRUN_COORDINATOR)")
	fl.StringVar(&t.listen, "listen", "", "host[:port] for this rank's peer connections (default: the interface that reaches the coordinator)")
	fl.DurationVar(&t.peerTimeout, "peer-timeout", launch.DefaultPeerTimeout, "a TCP job fails when a peer makes no progress for this long")
}

// jobPlan is how this process takes part in a job.
type jobPlan struct {
	// procs > 0: this process only starts procs rank processes and waits.
	procs int
	// job is this process's part otherwise: in-process ranks, or one TCP rank.
	job launch.Job
	// ranks is the number of in-process ranks of an in-process job.
	ranks int
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
		if t.transport == launch.InProc {
			return jobPlan{}, flagError("procs", "cannot be combined with --transport %s (the processes talk TCP)", launch.InProc)
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
		return jobPlan{procs: t.procs}, nil
	}
	job, err := launch.Discover(launch.Flags{
		Transport: t.transport,
		Rank:      t.rank, HasRank: fl.Changed("rank"),
		Size: t.size, HasSize: fl.Changed("size"),
		Coordinator: t.coordinator, Listen: t.listen, PeerTimeout: t.peerTimeout,
	}, os.LookupEnv)
	if err != nil {
		return jobPlan{}, usageError{err}
	}
	if job.Transport == launch.TCP && ranksSet {
		return jobPlan{}, flagError("ranks", "%d in-process ranks cannot be combined with a TCP job of %d processes (%s): each process is one rank", ranks, job.Size, job.Source)
	}
	return jobPlan{job: job, ranks: ranks}, nil
}

// tcp reports whether this process is one rank of a TCP job.
func (p jobPlan) tcp() bool { return p.procs == 0 && p.job.Transport == launch.TCP }

// rank is this process's rank (0 for the launcher and in-process jobs,
// whose rank 0 reports).
func (p jobPlan) rank() int {
	if p.tcp() {
		return p.job.Rank
	}
	return 0
}

// totalRanks is the number of ranks of the whole job.
func (p jobPlan) totalRanks() int {
	switch {
	case p.procs > 0:
		return p.procs
	case p.tcp():
		return p.job.Size
	}
	return p.ranks
}

// localRanks is the number of the job's ranks on this machine, which share
// its threads and memory.
func (p jobPlan) localRanks() int {
	switch {
	case p.procs > 0:
		return p.procs
	case p.tcp():
		return p.job.LocalSize
	}
	return p.ranks
}

// interruptContext is cancelled by SIGINT or SIGTERM, so that a rank fails
// cleanly (and tells its peers) when it is stopped.
func interruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
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
	ctx, stop := interruptContext()
	defer stop()
	l := launch.Local{Procs: p.procs, Path: exe, Args: args, Env: os.Environ(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
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
// process's rank of a TCP job. Log lines of the TCP transport go to stderr.
func (p jobPlan) runRanks(ctx context.Context, stderr io.Writer, fn func(ctx context.Context, c comm.Comm) error) error {
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
// report, or nil on a TCP rank other than 0.
func (p jobPlan) runGraph500(ctx context.Context, cfg graph500.Config, stderr io.Writer) (*results.Graph500Run, error) {
	if !p.tcp() {
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

// launchExitCode returns the exit status carried by err, if it is a local
// job's failure: the status of the rank that failed first.
func launchExitCode(err error) (int, bool) {
	var xe *launch.ExitError
	if errors.As(err, &xe) {
		return xe.ExitCode(), true
	}
	return 0, false
}
