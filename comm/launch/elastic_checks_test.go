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
		{Plan{Ranks: 4}, "Elastic"},
		{Plan{Procs: 4, Replicas: 2}, "Elastic"},
		{Plan{Job: Job{Transport: TCP, Size: 4, Replicas: 2}}, "Elastic"},
	} {
		if got := fielderr.Field(tc.plan.CheckElastic()); got != tc.field {
			t.Errorf("CheckElastic(%+v) names %q, want %q", tc.plan, got, tc.field)
		}
	}
	for _, tc := range []struct {
		cfg   Config
		field string
	}{
		{Config{}, ""}, {Config{Transport: TCP, TransportSet: true}, ""}, {Config{Rank: 1, RankSet: true}, "Rank"},
		{Config{Ranks: 2, RanksSet: true}, "Ranks"}, {Config{Procs: 2, ProcsSet: true}, "Procs"}, {Config{SizeSet: true}, "Size"},
		{Config{Replicas: 1, ReplicasSet: true}, "Replicas"}, {Config{Transport: MPI, TransportSet: true}, "Transport"},
	} {
		if got := fielderr.Field(tc.cfg.CheckJoin()); got != tc.field {
			t.Errorf("CheckJoin of %+v names %q, want %q", tc.cfg, got, tc.field)
		}
	}
}
