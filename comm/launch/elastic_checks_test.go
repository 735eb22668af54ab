package launch

import (
	"testing"

	"github.com/graphrun/graphrun/internal/fielderr"
)

// TestElasticChecks: an elastic job runs on TCP without replicas; a
// joining process takes neither a rank, a size, ranks, replicas nor
// another transport.
func TestElasticChecks(t *testing.T) {
	for _, tc := range []struct {
		plan  Plan
		field string
	}{
		{Plan{Procs: 4}, ""},
		{Plan{Job: Job{Transport: TCP, Size: 2}}, ""},
		{Plan{Ranks: 4}, "elastic"},
		{Plan{Procs: 4, Replicas: 2}, "elastic"},
		{Plan{Job: Job{Transport: TCP, Size: 4, Replicas: 2}}, "elastic"},
	} {
		if got := fielderr.Field(tc.plan.CheckElastic()); got != tc.field {
			t.Errorf("CheckElastic(%+v) names %q, want %q", tc.plan, got, tc.field)
		}
	}
	given := func(flags ...string) func(string) bool {
		return func(f string) bool {
			for _, g := range flags {
				if g == f {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		given     []string
		transport string
		field     string
	}{
		{nil, "", ""}, {[]string{"transport"}, TCP, ""}, {[]string{"rank"}, "", "rank"}, {[]string{"ranks"}, "", "ranks"},
		{[]string{"replicas"}, "", "replicas"}, {[]string{"transport"}, MPI, "transport"},
	} {
		if got := fielderr.Field(CheckJoin(given(tc.given...), tc.transport)); got != tc.field {
			t.Errorf("CheckJoin(%v, %q) names %q, want %q", tc.given, tc.transport, got, tc.field)
		}
	}
}
