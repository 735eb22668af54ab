package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphrun/graphrun/comm/launch"
)

// transportFlags choose how a command's ranks run: as goroutines of this
// process (--ranks), as processes this one starts on this machine
// (--procs), as one rank of a TCP job started by someone else (--rank
// and --size, or a launcher's environment: see package comm/launch), or as
// one rank of an MPI job (under mpirun, mpiexec or srun, in a graphrun
// built with -tags mpi, where it is the default; see mpiByDefault).
// The flags bind to launch.Config, which plan completes with what was
// given and the --ranks value.
type transportFlags struct{ launch.Config }

func (t *transportFlags) register(fl *pflag.FlagSet) {
	fl.IntVar(&t.Procs, "procs", 0, "start this many processes on this machine, one rank each, over TCP on 127.0.0.1")
	fl.StringVar(&t.Transport, "transport", "", "inproc, tcp or mpi (default: from the launcher's environment, else inproc)")
	fl.IntVar(&t.Rank, "rank", 0, "this process's rank in a TCP job (default: from the launcher's environment)")
	fl.IntVar(&t.Size, "size", 0, "number of processes in a TCP job (default: from the launcher's environment)")
	fl.StringVar(&t.Coordinator, "coordinator", "", "host:port where rank 0 meets the other ranks (default $GRAPHRUN_COORDINATOR)")
	fl.StringVar(&t.Listen, "listen", "", "host[:port] for this rank's peer connections (default: toward the coordinator)")
	fl.IntVar(&t.Replicas, "replicas", 1, "run every rank as this many processes holding the same data (Kylix §V)")
	fl.DurationVar(&t.PeerTimeout, "peer-timeout", launch.DefaultPeerTimeout, "a TCP job fails when a peer makes no progress for this long")
	fl.BoolVar(&t.Verbose, "verbose", false, "log the TCP set-up (the addresses the coordinator and every rank listen on)")
}

// jobPlan is how this process takes part in a job (launch.Plan).
type jobPlan = launch.Plan

// config is the job's launch.Config: the flags, with which of them were
// given, and ranks, the --ranks value.
func (t *transportFlags) config(cmd *cobra.Command, ranks int) launch.Config {
	fl := cmd.Flags()
	c := t.Config
	c.RankSet, c.SizeSet, c.ProcsSet = fl.Changed("rank"), fl.Changed("size"), fl.Changed("procs")
	c.CoordinatorSet, c.ListenSet = fl.Changed("coordinator"), fl.Changed("listen")
	c.TransportSet, c.ReplicasSet = fl.Changed("transport"), fl.Changed("replicas")
	c.Ranks, c.RanksSet = ranks, fl.Changed("ranks")
	return c
}

// plan works out the job from the flags and the environment
// (launch.NewPlan). ranks is the --ranks value.
func (t *transportFlags) plan(cmd *cobra.Command, ranks int) (jobPlan, error) {
	p, err := launch.NewPlan(t.config(cmd, ranks), os.LookupEnv)
	if err != nil {
		return jobPlan{}, usageError{launchError(err)}
	}
	return p, nil
}

// checkJoin refuses the transport flags a process joining a running job
// (pagerank --join) cannot take (launch.Config.CheckJoin); ranks is the
// --ranks value.
func (t *transportFlags) checkJoin(cmd *cobra.Command, ranks int) error {
	return t.config(cmd, ranks).CheckJoin()
}

// joinPlan is the plan of a process joining a running TCP job
// (launch.JoinPlan).
func (t *transportFlags) joinPlan() (jobPlan, error) {
	p, err := launch.JoinPlan(t.Config, os.LookupEnv)
	if err != nil {
		return jobPlan{}, usageError{launchError(err)}
	}
	return p, nil
}

// launchLocal runs cmd's command line as p.Procs rank processes of this
// executable and waits for them (launch.Plan.LaunchSelf). extra are flags
// the children get on top of the ones this process was given (minus
// --procs); each child is then told it is a TCP rank, and which
// (childArgs).
func launchLocal(cmd *cobra.Command, p jobPlan, extra ...string) error {
	args := append(forwardedArgs(cmd, "procs", "transport"), extra...)
	if err := p.LaunchSelf(cmd.Context(), childArgs(args), cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
		return fmt.Errorf("--procs %d: %w", p.Procs, err)
	}
	return nil
}

// childArgs is the command line of the rank processes of a --procs
// launch (launch.Local.Args): args, then --transport=tcp, --rank=R and
// --size=P.
func childArgs(args []string) func(rank, size int) []string {
	return func(rank, size int) []string {
		return append(slices.Clip(args), "--transport="+launch.TCP, "--rank="+strconv.Itoa(rank), "--size="+strconv.Itoa(size))
	}
}

// launchFields are the configuration fields comm/launch's messages name
// besides the one at fault: launch.Config's, and the elastic job's Elastic
// and Join, which its checks concern.
var launchFields = []string{"Transport", "Rank", "Size", "Coordinator", "Listen", "PeerTimeout", "Replicas", "Procs", "Ranks", "Verbose", "Threads", "Elastic", "Join"}

// flagWords rewrites the configuration fields a library's message names
// (launchFields, as words: "cannot be combined with Ranks 2") as their
// flags ("cannot be combined with --ranks 2").
func flagWords(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); {
		j := i
		for j < len(msg) && isWordByte(msg[j]) {
			j++
		}
		if j == i {
			b.WriteByte(msg[i])
			i++
			continue
		}
		word := msg[i:j]
		if slices.Contains(launchFields, word) && (i == 0 || msg[i-1] != '-') {
			word = "--" + flagOf(word)
		}
		b.WriteString(word)
		i = j
	}
	return b.String()
}

// isWordByte reports whether c belongs to a word of flagWords: a letter, a
// digit or an underscore (environment variables are words of their own).
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// launchError is a comm/launch error as the command line says it: the
// fields it names as their flags (flagWords). It unwraps to err.
func launchError(err error) error {
	return flagWordsError{err}
}

// flagWordsError is launchError's error.
type flagWordsError struct{ err error }

func (e flagWordsError) Error() string { return flagWords(e.err.Error()) }
func (e flagWordsError) Unwrap() error { return e.err }

// launchRanks runs cmd's command line as the plan's rank processes
// (launchLocal): they are told the threads per rank unless --threads was
// given, rank 0 reads stdin (an input read from -; nil for none), and args
// (the FILE argument) follow the flags.
func launchRanks(cmd *cobra.Command, plan jobPlan, threads int, stdin io.Reader, args []string) error {
	var extra []string
	if !cmd.Flags().Changed("threads") {
		extra = append(extra, fmt.Sprintf("--threads=%d", threads))
	}
	plan.Stdin = stdin
	return launchLocal(cmd, plan, append(extra, args...)...)
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
