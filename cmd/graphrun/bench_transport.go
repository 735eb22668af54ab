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

func newBenchCommand(g *globalFlags) *cobra.Command {
	bench := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark matrices: BFS codecs and scaling, PageRank, allreduce, transport, memory",
		Long: `Runs a benchmark matrix and prints its Markdown table on standard output, for a person
to paste into a document; --dir keeps the JSON of every run and summary.json.`,
		Example: `  graphrun bench bfs-scaling -s 16 --ranks 4
  graphrun bench pagerank --inputs testdata/soc-Slashdot0902.txt.gz --scales "" --ranks 2`,
		Args: cobra.ArbitraryArgs,
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
	bench.AddCommand(newBenchTransportCommand(g), newBenchNetSwitchCommand())
	return bench
}

type benchTransportFlags struct {
	benchJobFlags
	spec bench.TransportSpec
	out  bench.Output
}

func newBenchTransportCommand(g *globalFlags) *cobra.Command {
	f := benchTransportFlags{benchJobFlags: benchJobFlags{globalFlags: g}}
	cmd := newMatrixCommand("transport", "Measure Alltoallv bandwidth and latency against message size",
		func(cmd *cobra.Command) error { return runBenchTransport(cmd, &f) })
	cmd.Long = `Measures the transport's Alltoallv (every rank sends one message of the same size to
every other rank) for each size of --sizes, on --ranks in-process ranks (default 2), TCP processes
(--procs N, or under a launcher) or MPI processes (--transport mpi under mpirun, in a
graphrun built with -tags mpi). Prints per size the calls made, the latency of one call and
the bandwidth a rank sends (Kylix Fig. 2), and the minimum efficient message size: the
smallest whose bandwidth reaches 50% of the peak. --dir keeps the JSON of every size.`
	cmd.Example = `  graphrun bench transport --ranks 4
  graphrun bench transport --procs 2 --sizes 1Ki,1Mi --min-time 100ms`
	f.benchJobFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.spec.Sizes, "sizes", bench.DefaultTransportSizes, "message sizes in bytes, from one rank to another per call, at most 1Gi")
	fl.DurationVar(&f.spec.MinTime, "min-time", 250*time.Millisecond, "time spent measuring each size (at least 2 calls)")
	registerBenchOutput(fl, &f.out)
	return cmd
}

func runBenchTransport(cmd *cobra.Command, f *benchTransportFlags) error {
	f.spec.Replicas, f.spec.Ranks = f.Replicas, f.ranksOr(cmd, 2)
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
		key, command := transportKey(m, plan, f.fromProcs)
		f.out.Start("transport", key, command)
	}
	return m.Run(cmd.Context(), job)
}

// transportKey returns the key of m (summary.json) and the command line
// that regenerates its table: the ranks (in-process, or
// the processes of a TCP or MPI job), the message sizes and the minimum
// time.
func transportKey(m *bench.TransportMatrix, plan launch.Plan, fromProcs bool) (key, command string) {
	keys, flags, multi := jobSpec(plan, fromProcs)
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
	return key, command
}
