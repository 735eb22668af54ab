package launch

// Which jobs can be elastic and which settings a process joining a running
// elastic job may take (Zhang and Qiu §V). Their errors are
// fielderr.Errors naming the flag at fault.

import "github.com/graphrun/graphrun/internal/fielderr"

// CheckElastic refuses an elastic job the plan cannot run: one not on TCP
// (a --procs launch or a TCP rank), or a replicated one, which survives
// losses through its replicas instead.
func (p Plan) CheckElastic() error {
	switch {
	case p.Procs == 0 && !p.TCP():
		return fielderr.New("elastic", "needs the TCP transport (--procs N, or a TCP job under a launcher)")
	case p.Replicas > 1 || p.Job.Replicas > 1:
		return fielderr.New("elastic", "cannot be combined with --replicas: a replicated job survives losses through its replicas")
	}
	return nil
}

// CheckJoin refuses the settings a process joining a running job cannot
// take: given reports whether a flag was given; transport is --transport.
// The running job gives a joining process its rank, size and replication,
// and it is a TCP job.
func CheckJoin(given func(flag string) bool, transport string) error {
	for _, name := range []string{"procs", "rank", "size", "ranks", "replicas"} {
		if given(name) {
			return fielderr.New(name, "cannot be combined with --join: the running job gives a joining process its rank")
		}
	}
	if given("transport") && transport != TCP {
		return fielderr.New("transport", "--join joins a TCP job, not --transport %s", transport)
	}
	return nil
}
