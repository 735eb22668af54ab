package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/bench/netemu"
)

// newBenchNetSwitchCommand is `graphrun bench net-switch`, the latency of
// the emulated cluster (.ci/emulated-cluster.sh): it joins network
// interfaces like a bridge and holds every frame --delay before sending it
// on. It runs until it is interrupted and prints what it did once a
// second, for the script's read-back.
func newBenchNetSwitchCommand() *cobra.Command {
	var delay time.Duration
	var ports string
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "net-switch",
		Short: "A learning Ethernet switch with a one-way latency, for the emulated cluster (needs root)",
		Long: `Joins the network interfaces of --ports (veth ends in one network namespace)
like a bridge that learns MAC addresses, and sends every frame on --delay after
it arrived: the one-way latency of .ci/emulated-cluster.sh on kernels without
tc netem. It runs until interrupted and prints, every --stats-every, the
frames forwarded and dropped and the shortest, mean and longest time a
frame was held, which the script reads back.`,
		Args:   cobra.NoArgs,
		Hidden: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if delay < 0 {
				return flagError("delay", "%v is negative", delay)
			}
			if every <= 0 {
				return flagError("stats-every", "%v is not a positive duration", every)
			}
			names := strings.Split(ports, ",")
			if len(names) < 2 {
				return flagError("ports", "%q: want at least two interfaces, comma-separated", ports)
			}
			var list []netemu.Port
			for _, name := range names {
				p, err := netemu.OpenPacketPort(strings.TrimSpace(name))
				if err != nil {
					return flagError("ports", "%v", err)
				}
				list = append(list, p)
			}
			sw, err := netemu.New(delay, netemu.PacketHeader, list)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			done := make(chan error, 1)
			go func() { done <- sw.Run(ctx) }()
			tick := time.NewTicker(every)
			defer tick.Stop()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "net-switch: %d ports, delay %v\n", len(list), delay)
			for {
				select {
				case err := <-done:
					if err == nil {
						err = ctx.Err()
					}
					if errors.Is(err, ctx.Err()) {
						return nil
					}
					return fmt.Errorf("bench net-switch: %w", err)
				case <-tick.C:
					st := sw.Stats()
					fmt.Fprintf(out, "frames %d dropped %d min_hold_us %d mean_hold_us %d max_hold_us %d\n", st.Frames, st.Dropped,
						st.MinHold.Microseconds(), st.MeanHold.Microseconds(), st.MaxHold.Microseconds())
				}
			}
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&delay, "delay", time.Millisecond, "one-way latency added to every frame")
	fl.StringVar(&ports, "ports", "", "the interfaces to join, comma-separated")
	fl.DurationVar(&every, "stats-every", time.Second, "how often to print the statistics")
	return cmd
}
