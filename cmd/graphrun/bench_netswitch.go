package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench"
	"github.com/graphrun/graphrun/bench/netemu"
)

// newBenchNetSwitchCommand is `graphrun bench net-switch`, the latency of
// the emulated cluster (.ci/emulated-cluster.sh): it joins network
// interfaces like a bridge and holds every frame --delay before sending it
// on. It runs until it is interrupted and prints what it did once a
// second, for the script's read-back.
func newBenchNetSwitchCommand() *cobra.Command {
	var s bench.SwitchSpec
	cmd := &cobra.Command{
		Use:   "net-switch",
		Short: "A learning Ethernet switch with a one-way latency, for the emulated cluster (needs root)",
		Long: `Joins the network interfaces of --ports (veth ends in one network namespace)
like a bridge that learns MAC addresses, and sends every frame on --delay after
it arrived: the one-way latency of .ci/emulated-cluster.sh on kernels without
tc netem. It runs until interrupted and prints, every --stats-every, the
frames forwarded and dropped and the shortest, mean and longest time a
frame was held, which the script reads back.`,
		Example: "  sudo graphrun bench net-switch --ports veth0,veth1 --delay 500us",
		Args:    cobra.NoArgs,
		Hidden:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return flagErrors(s.Serve(cmd.Context(), netemu.OpenPacketPort, cmd.OutOrStdout()))
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&s.Delay, "delay", time.Millisecond, "one-way latency added to every frame")
	fl.StringVar(&s.Ports, "ports", "", "the interfaces to join, comma-separated")
	fl.DurationVar(&s.StatsEvery, "stats-every", time.Second, "how often to print the statistics")
	return cmd
}
