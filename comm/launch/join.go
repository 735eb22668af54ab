package launch

// A process that joins a running elastic TCP job between two iterations
// (pagerank --join; Zhang and Qiu §V-C, a new task taken in):
// its plan and the join through rank 0's lobby (comm/tcp.Join).

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

// JoinPlan is the plan of a process joining a running TCP job: f's
// coordinator, listen address and peer timeout, and the environment's
// token and job id, checked by Discover; the rank and the size come from
// the job when it takes the process in. The plan's rank is -1, so that
// the process reports nothing: rank 0 does.
func JoinPlan(f Flags, env Lookup) (Plan, error) {
	if v, ok := env(EnvToken); !ok || strings.TrimSpace(v) == "" {
		return Plan{}, fmt.Errorf("%s: not set: --join needs the running job's token", EnvToken)
	}
	job, err := Discover(Flags{
		Transport: TCP, Rank: 0, HasRank: true, Size: 1, HasSize: true,
		Coordinator: f.Coordinator, Listen: f.Listen, PeerTimeout: f.PeerTimeout,
	}, env)
	if err != nil {
		return Plan{}, fmt.Errorf("--join: %w", err)
	}
	job.Rank = -1
	job.Source = "--join"
	return Plan{Job: job}, nil
}

// Join waits in the lobby of the job at the plan's coordinator until the
// job takes this process in between two iterations, presenting tag (what
// the job computes), and returns the process's elastic Comm in the grown
// job. A job that ends first gives ErrJobEnded. logf receives comm/tcp's
// log lines.
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
		err = fmt.Errorf("--join: %w", err)
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
