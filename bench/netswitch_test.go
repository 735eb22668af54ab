package bench

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/bench/netemu"
	"github.com/graphrun/graphrun/internal/fielderr"
)

// idlePort is a port nothing arrives at; broken fails its reads.
type idlePort struct{ broken bool }

func (p idlePort) Read([]byte) (int, error) {
	if p.broken {
		return 0, errors.New("link down")
	}
	time.Sleep(time.Millisecond)
	return 0, netemu.ErrTimeout
}

func (idlePort) Write([]byte) error { return nil }

// TestSwitchSpec: bad settings name their field; a switch whose context
// ends returns nil after its header line; a failing port is the switch's
// error.
func TestSwitchSpec(t *testing.T) {
	open := func(broken bool) func(string) (netemu.Port, error) {
		return func(name string) (netemu.Port, error) {
			if name == "missing" {
				return nil, errors.New("no such interface")
			}
			return idlePort{broken}, nil
		}
	}
	ok := SwitchSpec{Delay: time.Millisecond, Ports: "a, b", StatsEvery: time.Hour}
	for _, tc := range []struct {
		change func(*SwitchSpec)
		field  string
	}{
		{func(s *SwitchSpec) { s.Delay = -time.Second }, "Delay"},
		{func(s *SwitchSpec) { s.StatsEvery = 0 }, "StatsEvery"},
		{func(s *SwitchSpec) { s.Ports = "a" }, "Ports"},
		{func(s *SwitchSpec) { s.Ports = "a,missing" }, "Ports"},
	} {
		s := ok
		tc.change(&s)
		if got := fielderr.Field(s.Serve(context.Background(), open(false), &bytes.Buffer{})); got != tc.field {
			t.Errorf("%+v: error names %q, want %q", s, got, tc.field)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	if err := ok.Serve(ctx, open(false), &out); err != nil || out.String() != "net-switch: 2 ports, delay 1ms\n" {
		t.Fatalf("cancelled: %v, output %q", err, out.String())
	}
	if err := ok.Serve(context.Background(), open(true), &out); err == nil || !strings.Contains(err.Error(), "bench net-switch: ") {
		t.Fatalf("broken port: %v", err)
	}
}
