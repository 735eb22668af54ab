package bench

// bench net-switch: the emulated cluster's switch (bench/netemu), which
// adds a one-way latency where the kernel has no tc netem, run until
// interrupted and printing what it did at a fixed interval for
// .ci/emulated-cluster.sh's read-back.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/graphrun/graphrun/bench/netemu"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// SwitchSpec configures the emulated switch; Serve checks it, naming the
// field at fault.
type SwitchSpec struct {
	Delay      time.Duration // one-way latency added to every frame
	Ports      string        // the interfaces to join, comma-separated
	StatsEvery time.Duration // how often to print the statistics
}

// Serve checks the settings, opens every port with open (e.g.
// netemu.OpenPacketPort) and forwards frames until ctx ends, printing the
// statistics on out every s.StatsEvery. It returns nil when ctx ended; its
// errors about the settings are fielderr.Errors.
func (s SwitchSpec) Serve(ctx context.Context, open func(name string) (netemu.Port, error), out io.Writer) error {
	if s.Delay < 0 {
		return fielderr.New("Delay", "%v is negative", s.Delay)
	}
	if s.StatsEvery <= 0 {
		return fielderr.New("StatsEvery", "%v is not a positive duration", s.StatsEvery)
	}
	names := strings.Split(s.Ports, ",")
	if len(names) < 2 {
		return fielderr.New("Ports", "%q: want at least two interfaces, comma-separated", s.Ports)
	}
	var ports []netemu.Port
	for _, name := range names {
		p, err := open(strings.TrimSpace(name))
		if err != nil {
			return fielderr.Wrap("Ports", err)
		}
		ports = append(ports, p)
	}
	sw, err := netemu.New(s.Delay, netemu.PacketHeader, ports)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- sw.Run(ctx) }()
	tick := time.NewTicker(s.StatsEvery)
	defer tick.Stop()
	fmt.Fprintf(out, "net-switch: %d ports, delay %v\n", len(ports), s.Delay)
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
}
