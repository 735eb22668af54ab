package main

// The global flags: how a command's ranks run (--ranks, --threads, the
// transport and launch flags, --elastic and --join), registered once as
// persistent flags of the root command. Each command says which groups of
// them it uses (jobFlagGroups); a command given a global flag it does not
// use refuses it with a usage error naming the flag.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// globalFlags are the root command's job flags, shared by every command
// through a pointer: the transport and launch flags (transportFlags), the
// in-process ranks, the threads per rank, and PageRank's elastic job.
type globalFlags struct {
	transportFlags
	ranks, threads int
	elastic, join  bool
}

// The groups of global flags a command may use (jobFlagsAnnotation).
const (
	groupRanks     = "ranks"     // --ranks
	groupThreads   = "threads"   // --threads
	groupTransport = "transport" // the launch flags (launchFlagNames)
	groupElastic   = "elastic"   // --elastic, --join
)

// jobFlagsAnnotation is the cobra annotation of a command listing, comma
// separated, the groups of global flags it uses; a command without it
// uses none.
const jobFlagsAnnotation = "graphrun-job-flags"

// launchFlagNames are the flags of the transport group.
var launchFlagNames = []string{"transport", "procs", "replicas", "rank", "size", "coordinator", "listen", "peer-timeout", "verbose"}

func (g *globalFlags) register(fl *pflag.FlagSet) {
	fl.IntVar(&g.ranks, "ranks", 1, "in-process ranks (bench: the largest of a 1, 2, 4, … sweep; each bench has its default)")
	fl.IntVar(&g.threads, "threads", 0, "goroutines per rank (default: CPUs / ranks, at least 1); generate: in all")
	g.transportFlags.register(fl)
	fl.BoolVar(&g.elastic, "elastic", false, "pagerank over TCP: survive losing ranks other than 0 and take in --join processes")
	fl.BoolVar(&g.join, "join", false, "pagerank with --elastic: join the running job at --coordinator between iterations")
}

// jobFlags sets the groups of global flags cmd uses.
func jobFlags(cmd *cobra.Command, groups ...string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[jobFlagsAnnotation] = strings.Join(groups, ",")
}

// flagGroup is the group of the global flag name ("" for a flag of no
// group: --cpuprofile, --memprofile, --help, --version).
func flagGroup(name string) string {
	switch {
	case name == "ranks":
		return groupRanks
	case name == "threads":
		return groupThreads
	case name == "elastic" || name == "join":
		return groupElastic
	case slices.Contains(launchFlagNames, name):
		return groupTransport
	}
	return ""
}

// checkJobFlags refuses a global flag given to cmd that cmd does not use.
func checkJobFlags(cmd *cobra.Command) error {
	uses := strings.Split(cmd.Annotations[jobFlagsAnnotation], ",")
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		group := flagGroup(f.Name)
		if err != nil || group == "" || slices.Contains(uses, group) {
			return
		}
		what := "runs no ranks"
		if slices.Contains(uses, groupRanks) {
			what = "does not take it"
		}
		if group == groupElastic {
			what = "does not take it (pagerank only)"
		}
		err = flagError(f.Name, "%s %s", cmd.CommandPath(), what)
	})
	return err
}

// ranksOr is --ranks when it was given to cmd, else def: the default of
// a bench, whose sweep goes up to it.
func (g *globalFlags) ranksOr(cmd *cobra.Command, def int) int {
	if cmd.Flags().Changed("ranks") {
		return g.ranks
	}
	return def
}

// rankSweep is 1, 2, 4, … doubling up to at most n, from first (1 or 2),
// as a comma-separated list: the rank counts of a bench sweep.
func rankSweep(first, n int) string {
	var rs []string
	for r := first; r <= n; r *= 2 {
		rs = append(rs, strconv.Itoa(r))
	}
	if len(rs) == 0 {
		rs = append(rs, strconv.Itoa(n))
	}
	return strings.Join(rs, ",")
}
