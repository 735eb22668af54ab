package launch

// A process that joins a running elastic TCP job between two iterations
// (Zhang and Qiu §V-C, a new task taken in): its plan and the join through
// rank 0's lobby (comm/tcp.Join).

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/tcp"
)

// ErrJobEnded is Join's error when the job ended before it took the
// process in: nothing is left to do.
var ErrJobEnded = tcp.ErrJobEnded

// ErrNoJob is Join's error when nothing listens at the coordinator
// address: no job runs there (it ended, or never ran there).
var ErrNoJob = tcp.ErrNoLobby

// SourceJoin is Job.Source in a JoinPlan: the joining setting's name, as
// errors name settings.
const SourceJoin = "Join"

// JoinPlan is the plan of a process joining a running TCP job (Join): f's
// coordinator, listen address and peer timeout, and the environment's
// token and job id, checked by Discover; the rank and the size come from
// the job when it takes the process in. The plan's rank is -1, so that
// the process reports nothing: rank 0 does. Its errors say "Join: ".
func JoinPlan(f Config, env Lookup) (Plan, error) {
	if v, ok := env(EnvToken); !ok || strings.TrimSpace(v) == "" {
		return Plan{}, envError(EnvToken, "not set: %s needs the running job's token", SourceJoin)
	}
	job, err := Discover(Config{
		Transport: TCP, Rank: 0, RankSet: true, Size: 1, SizeSet: true,
		Coordinator: f.Coordinator, Listen: f.Listen, PeerTimeout: f.PeerTimeout,
	}, env)
	if err != nil {
		return Plan{}, fmt.Errorf("%s: %w", SourceJoin, err)
	}
	job.Rank = -1
	job.Source = SourceJoin
	return Plan{Job: job}, nil
}

// Join waits in the lobby of the job at the plan's coordinator until the
// job takes this process in between two iterations, presenting tag (what
// the job computes), and returns the process's elastic Comm in the grown
// job. A job that ends first gives ErrJobEnded. logf receives comm/tcp's
// log lines. A lobby that answers for another job is explained: a wrong
// token, or a wrong GRAPHRUN_JOB.
func (p Plan) Join(ctx context.Context, tag string, logf func(format string, args ...any)) (comm.Elastic, error) {
	tcfg, err := p.Job.TCPConfig(logf)
	if err != nil {
		return nil, err
	}
	tc, err := tcp.Join(ctx, tcfg, tag)
	if errors.Is(err, tcp.ErrJobEnded) {
		return nil, ErrJobEnded
	}
	if err != nil {
		if errors.Is(err, tcp.ErrForeignLobby) {
			if p.Job.JobIDFromToken {
				err = fmt.Errorf("%w: wrong token? The job id is derived from %s when %s is not set", err, EnvToken, EnvJob)
			} else {
				err = fmt.Errorf("%w: wrong %s?", err, EnvJob)
			}
		}
		return nil, err
	}
	return tc, nil
}
