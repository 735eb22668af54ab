package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/internal/units"
)

func newBenchCommand() *cobra.Command {
	bench := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark matrices: BFS codecs and scaling, PageRank, allreduce, transport, memory",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				var names []string
				for _, sub := range cmd.Commands() {
					names = append(names, sub.Name())
				}
				return usageError{fmt.Errorf("unknown benchmark %q for \"graphrun bench\" (want one of: %s)", args[0], strings.Join(names, ", "))}
			}
			return cmd.Help()
		},
	}
	bench.AddCommand(newBenchTransportCommand(), newBenchNetSwitchCommand())
	return bench
}

type benchTransportFlags struct {
	benchJobFlags
	spec bench.TransportSpec
	out  bench.Output
}

func newBenchTransportCommand() *cobra.Command {
	var f benchTransportFlags
	cmd := newMatrixCommand("transport", "Measure Alltoallv bandwidth and latency against message size",
		func(cmd *cobra.Command) error { return runBenchTransport(cmd, &f) })
	cmd.Long = `Measures the transport's Alltoallv — every rank sends one message of the same
size to every other rank — for each message size of --sizes, on in-process
ranks (--ranks, the default), TCP processes (--procs N, or under a launcher
like graphrun bfs) or MPI processes (--transport mpi under mpirun, in a
graphrun built with -tags mpi), and prints per size the calls made, the latency of one
call, and the bandwidth (bytes a rank sends to the others per second; it
receives as many). Kylix (Zhao and Canny) Fig. 2 plots the same curve.

The minimum efficient message size is the smallest measured size whose
bandwidth reaches 50% of the peak (the largest measured bandwidth): below it,
per-message costs dominate and batching messages pays.

Like every matrix of graphrun bench, it prints its table and, only when
asked, writes one JSON per message size and summary.json into --dir and
regenerates its table in --doc (e.g. BENCHMARKS.md) between marker
comments named after its parameters (ranks or procs, transport, sizes,
min-time), so that each configuration keeps a table of its own. In a job of
several processes rank 0 writes them.`
	f.benchJobFlags.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&f.spec.Ranks, "ranks", 2, "in-process ranks")
	fl.StringVar(&f.spec.Sizes, "sizes", bench.DefaultTransportSizes, "message sizes, bytes from one rank to one other rank per call, at most 1Gi ("+units.Help+")")
	fl.DurationVar(&f.spec.MinTime, "min-time", 250*time.Millisecond, "time spent measuring each size (at least 2 calls)")
	registerBenchOutput(fl, &f.out)
	return cmd
}

func runBenchTransport(cmd *cobra.Command, f *benchTransportFlags) error {
	f.spec.Replicas = f.Replicas
	m, err := f.spec.Parse()
	if err != nil {
		return usage(err)
	}
	plan, err := f.plan(cmd, f.spec.Ranks)
	if err != nil {
		return err
	}
	if plan.TotalRanks() < 2 {
		flag := "ranks"
		if plan.Procs > 0 {
			flag = "procs"
		}
		return flagError(flag, "an Alltoallv benchmark needs at least 2 ranks, the job has %d", plan.TotalRanks())
	}
	job, err := f.job(cmd, plan, &f.out, nil)
	if err != nil {
		return err
	}
	if plan.Procs > 0 {
		return launchLocal(cmd, plan, "--"+fromProcsFlag)
	}
	if plan.Reports() {
		key, command, title := transportKey(m, plan, f.fromProcs)
		f.out.Title = title
		f.out.Start("transport", key, command)
	}
	return m.Run(cmd.Context(), job)
}

// transportKey returns the marker key of m's table, the command line that
// regenerates it and the heading of its section: the ranks (in-process, or
// the processes of a TCP or MPI job), the message sizes and the minimum
// time.
func transportKey(m *bench.TransportMatrix, plan launch.Plan, fromProcs bool) (key, command, title string) {
	keys, flags, suffix, multi := jobSpec(plan, fromProcs)
	if !multi {
		p := plan.TotalRanks()
		keys = append(keys, fmt.Sprintf("ranks=%d", p))
		flags = append(flags, fmt.Sprintf("--ranks %d", p))
	}
	var ss []string
	for _, n := range m.Sizes {
		ss = append(ss, units.FormatBytes(int64(n)))
	}
	minTime := m.Spec.MinTime.String()
	keys = append(keys, "sizes="+strings.Join(ss, ","), "min-time="+minTime)
	flags = append(flags, "--sizes "+strings.Join(ss, ","), "--min-time "+minTime)
	if plan.MultiProcess() && m.Spec.Replicas > 1 {
		keys = append(keys, fmt.Sprintf("replicas=%d", m.Spec.Replicas))
		flags = append(flags, fmt.Sprintf("--replicas %d", m.Spec.Replicas))
	}
	key = "transport " + strings.Join(keys, " ")
	command = "graphrun bench transport " + strings.Join(flags, " ")
	return key, command, "### `" + command + "`" + suffix
}
