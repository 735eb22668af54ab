package wire

import (
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
)

// TestPhaseHash: the phase hash is 64-bit FNV-1a, which both backends'
// frames carry: changing it changes the wire format.
func TestPhaseHash(t *testing.T) {
	for phase, want := range map[string]uint64{"": 0xcbf29ce484222325, "a": 0xaf63dc4c8601ec8c, "foobar": 0x85944171f73967e8} {
		if got := PhaseHash(phase); got != want {
			t.Errorf("PhaseHash(%q) = %#x, want %#x", phase, got, want)
		}
	}
	if ci := NewCall(comm.CollectiveBarrier, "foobar", 0); ci.Hash != 0x85944171f73967e8 {
		t.Errorf("NewCall's hash %#x", ci.Hash)
	}
}

// TestCallDescribesItself: a call names its collective, phase and
// arguments; Mismatch says how another rank's call differs.
func TestCallDescribesItself(t *testing.T) {
	ci := NewCall(comm.CollectiveAllreduceInt64, "bfs.done", AllreduceArg(2, comm.Sum))
	if got, want := ci.String(), `AllreduceInt64("bfs.done", len=2, op=sum)`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	if got, want := NewCall(comm.CollectiveBcast, "x", 3).String(), `Bcast("x", root=3)`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	if err := ci.Mismatch(7, 1, ci.Kind, ci.Hash, ci.Arg); err != nil {
		t.Errorf("the same call mismatches: %v", err)
	}
	cases := []struct {
		kind      comm.Collective
		hash, arg uint64
		want      string
	}{
		{comm.CollectiveBarrier, ci.Hash, 0, "rank 1 called Barrier"},
		{ci.Kind, PhaseHash("other"), ci.Arg, "rank 1 called AllreduceInt64 with another phase name"},
		{ci.Kind, ci.Hash, AllreduceArg(3, comm.Max), "rank 1 called AllreduceInt64(…, len=3, op=max)"},
	}
	for _, tc := range cases {
		err := ci.Mismatch(7, 1, tc.kind, tc.hash, tc.arg)
		if err == nil || !strings.Contains(err.Error(), "collective mismatch in call #7: this rank called "+ci.String()+" but "+tc.want) {
			t.Errorf("Mismatch(%v, %#x, %#x) = %v, want %q", tc.kind, tc.hash, tc.arg, err, tc.want)
		}
	}
}

// TestCheckLength: barriers and non-root broadcasts carry nothing,
// allreduces exactly their values, the rest any length.
func TestCheckLength(t *testing.T) {
	reduce := NewCall(comm.CollectiveAllreduceFloat64, "r", AllreduceArg(3, comm.Sum))
	bcast := NewCall(comm.CollectiveBcast, "b", 2)
	barrier := NewCall(comm.CollectiveBarrier, "z", 0)
	gather := NewCall(comm.CollectiveAllgatherv, "g", 0)
	cases := []struct {
		ci      *Call
		src, n  int
		wantErr string
	}{
		{reduce, 1, 24, ""},
		{reduce, 1, 16, "protocol error: 16 bytes for 3 values in AllreduceFloat64"},
		{reduce, 1, 32, "protocol error: 32 bytes for 3 values"},
		{bcast, 2, 1 << 20, ""},
		{bcast, 1, 0, ""},
		{bcast, 1, 1, "protocol error: 1 bytes from a rank that is not the root of Bcast"},
		{barrier, 0, 0, ""},
		{barrier, 0, 5, "protocol error: 5 bytes in Barrier"},
		{gather, 3, 1 << 30, ""},
	}
	for _, tc := range cases {
		err := CheckLength(tc.ci, tc.src, tc.n)
		if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("CheckLength(%s, src %d, %d bytes) = %v, want %q", tc.ci, tc.src, tc.n, err, tc.wantErr)
		}
	}
	if limit, ok := Limit(comm.CollectiveAllreduceInt64, AllreduceArg(5, comm.Min), 0); !ok || limit != 40 {
		t.Errorf("Limit of a 5-value allreduce: %d, %v", limit, ok)
	}
	if _, ok := Limit(comm.CollectiveAlltoallv, 0, 0); ok {
		t.Error("Alltoallv has a limit")
	}
}
