package pagerank

// The elastic run (JobConfig.Elastic): PageRank that goes on after losing
// a TCP rank other than 0 and takes in processes that join between
// iterations (Zhang and Qiu §II failure exposure, §V elastic topology update,
// §III ramp-up mode; REFERENCES.md). RunElastic does the recovery
// and the growth; the driver gives it the input's loader and the
// transport's Shrink and Grow, opens rank 0's lobby for joining processes,
// and runs a process that joined.

import (
	"context"
	"fmt"
	"time"

	"github.com/graphrun/graphrun/comm"
)

// elasticComm is the elastic transport under c (comm.Elastic, which TCP
// implements): the one place that asks whether a Comm can shrink, grow and
// take processes in.
func elasticComm(c comm.Comm) (comm.Elastic, error) {
	ec, ok := comm.AsElastic(c)
	if !ok {
		return nil, fmt.Errorf("pagerank: an elastic run needs an elastic transport (TCP), not a %T", c)
	}
	return ec, nil
}

// JoinTag identifies what a job computes: a joining process must present
// the job's (comm/tcp's lobby refuses it otherwise, naming both). input is
// the input's base name; the vectors are named by a digest of their
// entries.
func JoinTag(input string, cfg Config) string {
	tag := fmt.Sprintf("pagerank %s Alpha=%g Tol=%g MaxIter=%d Iterations=%d Undirected=%t Allreduce=%s Partition=%s",
		input, cfg.Alpha, cfg.Tol, cfg.MaxIter, cfg.Iterations, cfg.Undirected, cfg.Allreduce, cfg.Partition)
	for _, v := range []struct {
		name string
		vec  *Vector
	}{{"Personalization", cfg.Personalization}, {"Dangling", cfg.Dangling}, {"NStart", cfg.NStart}} {
		if v.vec != nil {
			tag += fmt.Sprintf(" %s=%016x", v.name, v.vec.digest())
		}
	}
	return tag
}

// elasticHooks is what RunElastic needs from the driver: the
// input's loader is the fixed-size run's.
func elasticHooks(in Input, logf func(string, ...any)) Elastic {
	return Elastic{
		Load:    in.Load,
		Shrink:  comm.Shrink,
		Grow:    comm.Grow,
		Pending: comm.PendingJoins,
		Logf:    logf,
	}
}

// RunElasticRank runs elastic PageRank on one TCP rank and returns the
// report on rank 0 (nil elsewhere). Rank 0 opens the lobby where processes
// ask to join with tag (JoinTag); recoveries and growths are logged.
func RunElasticRank(ctx context.Context, c comm.Comm, in Input, cfg Job, tag string, logf func(string, ...any)) (rep *Report, err error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	tc, err := elasticComm(c)
	if err != nil {
		return nil, err
	}
	if c.Rank() == 0 {
		if err := tc.AcceptJoins(tag); err != nil {
			logf("pagerank: elastic: no process can join this job: %v", err)
		}
	}
	res, err := RunElastic(ctx, c, cfg.Config, elasticHooks(in, logf))
	if err != nil {
		return nil, err
	}
	if res.Comm != c {
		defer closeComm(res.Comm, &err)
	}
	return elasticReport(ctx, res, cfg, in, logf)
}

// closeComm closes a Comm an elastic run went on with; if *err is set it
// first aborts the job with it and lets the abort notices arrive before
// the connections close.
func closeComm(c comm.Comm, err *error) {
	tc, cerr := elasticComm(c)
	if cerr != nil {
		return
	}
	if *err != nil {
		tc.Abort(*err)
		time.Sleep(time.Second)
	}
	_ = tc.Close()
}

// elasticReport logs rank 0's recoveries and growths and collects the
// report (on rank 0; nil elsewhere) over the Comm the result lives on. Its
// collectives follow rank 0's Top and Gather, which every rank learns
// first: a joining process may have been given others.
func elasticReport(ctx context.Context, res *ElasticResult, cfg Job, in Input, logf func(string, ...any)) (*Report, error) {
	c := res.Comm
	if c.Rank() == 0 {
		for i, r := range res.Recoveries {
			logf("pagerank: elastic: recovery %d: went on with %d ranks from iteration %d (epoch %d); recovery took %v",
				i+1, r.Ranks, r.Iteration, r.Epoch, r.Took.Round(time.Millisecond))
		}
		for _, j := range res.Joins {
			if j.Err != nil {
				logf("pagerank: elastic: growth at epoch %d: %d process(es) could not join after iteration %d; went on with %d ranks: %v",
					j.Epoch, j.Joiners, j.Iteration, j.Ranks, j.Err)
				continue
			}
			logf("pagerank: elastic: growth at epoch %d: %d process(es) joined after iteration %d, now %d ranks; the growth took %v",
				j.Epoch, j.Joiners, j.Iteration, j.Ranks, j.Took.Round(time.Millisecond))
		}
	}
	out := []int64{0, 0}
	if c.Rank() == 0 {
		out[0] = int64(cfg.Top)
		if cfg.Gather {
			out[1] = 1
		}
	}
	if err := c.AllreduceInt64(ctx, PhaseReport, out, comm.Sum); err != nil {
		return nil, fmt.Errorf("pagerank: report: %w", err)
	}
	cfg.Top, cfg.Gather = int(out[0]), out[1] != 0
	return reportOf(ctx, c, res.Result, cfg, in)
}

// RunJoined runs a process that the transport has just taken into a
// running elastic job as c (tcp.Join): it goes on in step with the job's
// ranks and takes part in the report, which rank 0 prints. On an error it
// aborts the job and waits up to peerTimeout (at most a second) for the
// abort notices to arrive; it always closes c.
func RunJoined(ctx context.Context, c comm.Comm, in Input, cfg Job, peerTimeout time.Duration, logf func(string, ...any)) error {
	tc, err := elasticComm(c)
	if err != nil {
		return err
	}
	if err = cfg.Check(); err == nil {
		var res *ElasticResult
		res, err = RunElasticJoin(ctx, c, cfg.Config, elasticHooks(in, logf))
		if err == nil {
			if res.Comm != c {
				defer closeComm(res.Comm, new(error))
			}
			_, err = elasticReport(ctx, res, cfg, in, logf)
			if err != nil {
				if nc, nerr := elasticComm(res.Comm); nerr == nil {
					nc.Abort(err)
				}
			}
		}
	}
	if err != nil {
		tc.Abort(err)
		time.Sleep(min(time.Second, peerTimeout)) // let the abort notices arrive before the connections close
		_ = tc.Close()
		return fmt.Errorf("pagerank: joined process: %w", err)
	}
	if err := tc.Close(); err != nil {
		logf("pagerank: joined process: leaving the job: %v", err)
	}
	return nil
}
