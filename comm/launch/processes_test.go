package launch

import "testing"

// TestPlanProcesses: a Procs launch and a TCP rank are jobs of
// processes, counted on this machine as their local ranks; in-process
// ranks are not, and count no processes.
func TestPlanProcesses(t *testing.T) {
	f := planConfig()
	f.Procs, f.ProcsSet, f.Replicas = 3, true, 2
	procs, err := NewPlan(f, MapLookup(nil))
	if err != nil || !procs.OfProcesses() || procs.LocalProcesses() != 6 {
		t.Fatalf("Procs 3, Replicas 2: %+v, %v: of processes %v, %d local", procs, err, procs.OfProcesses(), procs.LocalProcesses())
	}
	f = planConfig()
	f.Ranks, f.RanksSet = 4, true
	inproc, err := NewPlan(f, MapLookup(nil))
	if err != nil || inproc.OfProcesses() || inproc.LocalProcesses() != 0 || inproc.LocalRanks() != 4 {
		t.Fatalf("Ranks 4: %+v, %v: of processes %v, %d local", inproc, err, inproc.OfProcesses(), inproc.LocalProcesses())
	}
	rank, err := JoinPlan(config(), MapLookup(tcpEnv(nil)))
	if err != nil || !rank.OfProcesses() || rank.LocalProcesses() != rank.LocalRanks() {
		t.Fatalf("a TCP rank: %+v, %v: of processes %v, %d local", rank, err, rank.OfProcesses(), rank.LocalProcesses())
	}
}
