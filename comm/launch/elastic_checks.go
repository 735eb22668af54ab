package launch

// Which jobs can be elastic and which settings a process joining a running
// elastic job may take (Zhang and Qiu §V). Their errors are
// fielderr.Errors naming the field at fault; their messages name an
// elastic job's own settings Elastic and Join.

import "github.com/graphrun/graphrun/internal/fielderr"

// CheckElastic refuses an elastic job the plan cannot run: one not on TCP
// (a Procs launch or a TCP rank), or a replicated one, which survives
// losses through its replicas instead. Its errors name the field Elastic.
func (p Plan) CheckElastic() error {
	switch {
	case p.Procs == 0 && !p.TCP():
		return fielderr.New("Elastic", "needs the TCP transport (Procs N, or a TCP job under a launcher)")
	case p.Replicas > 1 || p.Job.Replicas > 1:
		return fielderr.New("Elastic", "cannot be combined with Replicas: a replicated job survives losses through its replicas")
	}
	return nil
}

// CheckJoin refuses the configuration of a process joining a running job
// (Join): the running job gives a joining process its rank, size and
// replication, and it is a TCP job, so none of Procs, Rank, Size, Ranks
// and Replicas may be set, nor a Transport other than TCP.
func (f Config) CheckJoin() error {
	for _, s := range []given{{"Procs", f.ProcsSet}, {"Rank", f.RankSet}, {"Size", f.SizeSet}, {"Ranks", f.RanksSet}, {"Replicas", f.ReplicasSet}} {
		if s.set {
			return fielderr.New(s.name, "cannot be combined with Join: the running job gives a joining process its rank")
		}
	}
	if f.TransportSet && f.Transport != TCP {
		return fielderr.New("Transport", "Join joins a TCP job, not Transport %s", f.Transport)
	}
	return nil
}
