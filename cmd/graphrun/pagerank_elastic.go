// This file is pagerank --elastic: PageRank that goes on after losing a TCP
// rank other than 0 and takes in processes that join between iterations
// (paper 002 §II failure exposure, §V elastic topology update, §III ramp-up
// mode). spmv.PageRankElastic does the recovery and the growth; this file
// gives it the input's loader (pagerank_input.go: every rank re-reads its
// new share of FILE, or regenerates its share of the Kronecker graph) and
// comm/tcp's Shrink and Grow, opens rank 0's lobby for joining processes,
// and runs a joining process (--join).

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/comm/tcp"
	"github.com/graphrun/graphrun/spmv"
)

// checkElastic rejects --elastic where it cannot work.
func checkElastic(plan jobPlan, f *pagerankFlags) error {
	switch {
	case plan.procs == 0 && !plan.tcp():
		return flagError("elastic", "needs the TCP transport (--procs N, or a TCP job under a launcher)")
	case plan.replicas > 1 || plan.job.Replicas > 1:
		return flagError("elastic", "cannot be combined with --replicas: a replicated job survives losses through its replicas")
	case f.allreduce == spmv.AllreduceDense:
		return flagError("elastic", "runs on the sparse allreduces, not --allreduce %s", spmv.AllreduceDense)
	}
	return nil
}

// pagerankPlan is the transport plan of a pagerank run: f.plan, or for
// --join that of a process joining a running TCP job.
func (f *pagerankFlags) pagerankPlan(cmd *cobra.Command) (jobPlan, error) {
	if !f.join {
		return f.plan(cmd, f.ranks)
	}
	fl := cmd.Flags()
	if !f.elastic {
		return jobPlan{}, flagError("join", "needs --elastic: only an elastic job takes processes in")
	}
	for _, name := range []string{"procs", "rank", "size", "ranks", "replicas"} {
		if fl.Changed(name) {
			return jobPlan{}, flagError(name, "cannot be combined with --join: the running job gives a joining process its rank")
		}
	}
	if fl.Changed("transport") && f.transport != launch.TCP {
		return jobPlan{}, flagError("transport", "--join joins a TCP job, not --transport %s", f.transport)
	}
	if fl.Changed("degrees") && !strings.EqualFold(strings.TrimSpace(f.degrees), "auto") {
		return jobPlan{}, flagError("degrees", "cannot be combined with --join: the degrees are designed anew whenever the job changes size")
	}
	if v, ok := os.LookupEnv(launch.EnvToken); !ok || strings.TrimSpace(v) == "" {
		return jobPlan{}, usageError{fmt.Errorf("%s: not set: --join needs the running job's token", launch.EnvToken)}
	}
	// Discover checks the coordinator, the listen address, the token and
	// the job id; the rank and the size come from the job.
	job, err := launch.Discover(launch.Flags{
		Transport: launch.TCP, Rank: 0, HasRank: true, Size: 1, HasSize: true,
		Coordinator: f.coordinator, Listen: f.listen, PeerTimeout: f.peerTimeout,
	}, os.LookupEnv)
	if err != nil {
		return jobPlan{}, usageError{fmt.Errorf("--join: %w", err)}
	}
	job.Rank = -1 // not rank 0: prints nothing
	job.Source = "--join"
	return jobPlan{job: job}, nil
}

// joinTag identifies what a job computes: a joining process must present
// the job's (comm/tcp's lobby refuses it otherwise, naming both).
func joinTag(in *pagerankInput, cfg spmv.PageRankConfig) string {
	input := in.name
	if in.path != "" {
		input = filepath.Base(in.path)
	}
	return fmt.Sprintf("pagerank %s alpha=%g tol=%g max-iter=%d iterations=%d undirected=%t allreduce=%s partition=%s",
		input, cfg.Alpha, cfg.Tol, cfg.MaxIter, cfg.Iterations, cfg.Undirected, cfg.Allreduce, cfg.Partition)
}

// stderrLogf writes log lines to stderr, one at a time.
func stderrLogf(stderr io.Writer) func(format string, args ...any) {
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "graphrun: "+format+"\n", args...)
	}
}

// asTCP is the TCP Comm under c.
func asTCP(c comm.Comm, what string) (*tcp.Comm, error) {
	tc, ok := c.(*tcp.Comm)
	if !ok {
		return nil, fmt.Errorf("--elastic: cannot %s a %T", what, c)
	}
	return tc, nil
}

// elasticHooks is what spmv.PageRankElastic needs from the CLI: the
// input's loader is the fixed-size run's (pagerank_input.go).
func elasticHooks(in *pagerankInput, logf func(string, ...any)) spmv.Elastic {
	return spmv.Elastic{
		Load: in.load,
		Shrink: func(ctx context.Context, c comm.Comm, cause error, epoch int) (comm.Comm, error) {
			tc, err := asTCP(c, "shrink")
			if err != nil {
				return nil, fmt.Errorf("%w: %w", err, cause)
			}
			return tc.Shrink(ctx, cause, epoch)
		},
		Grow: func(ctx context.Context, c comm.Comm, joiners, epoch int) (comm.Comm, error) {
			tc, err := asTCP(c, "grow")
			if err != nil {
				return nil, err
			}
			return tc.Grow(ctx, joiners, epoch)
		},
		Pending: func(c comm.Comm) int {
			if tc, ok := c.(*tcp.Comm); ok {
				return tc.PendingJoins()
			}
			return 0
		},
		Logf: logf,
	}
}

// pagerankElasticRank runs elastic PageRank on one TCP rank and collects
// the report on rank 0 (nil elsewhere). Rank 0 opens the lobby where
// processes ask to join; recoveries and growths are logged to stderr.
func pagerankElasticRank(ctx context.Context, c comm.Comm, in *pagerankInput,
	cfg spmv.PageRankConfig, f *pagerankFlags, stderr io.Writer) (rep *pagerankReport, err error) {
	tc, ok := c.(*tcp.Comm)
	if !ok {
		return nil, errors.New("--elastic: needs the TCP transport")
	}
	logf := stderrLogf(stderr)
	if c.Rank() == 0 {
		if err := tc.AcceptJoins(joinTag(in, cfg)); err != nil {
			logf("pagerank: elastic: no process can join this job: %v", err)
		}
	}
	res, err := spmv.PageRankElastic(ctx, c, cfg, elasticHooks(in, logf))
	if err != nil {
		return nil, err
	}
	if res.Comm != c {
		nc := res.Comm.(*tcp.Comm)
		defer func() {
			if err != nil {
				nc.Abort(err)
				time.Sleep(time.Second) // let the abort notices arrive before the connections close
			}
			_ = nc.Close()
		}()
	}
	return elasticReport(ctx, res, cfg, f, in.idOffset, logf)
}

// elasticReport logs rank 0's recoveries and growths and collects the
// report (on rank 0; nil elsewhere) over the Comm the result lives on. Its
// collectives follow rank 0's output flags, which every rank learns first:
// a joining process may have been given others.
func elasticReport(ctx context.Context, res *spmv.ElasticResult, cfg spmv.PageRankConfig, f *pagerankFlags, idOffset int64, logf func(string, ...any)) (*pagerankReport, error) {
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
		out[0] = int64(f.top)
		if f.out != "" {
			out[1] = 1
		}
	}
	if err := c.AllreduceInt64(ctx, spmv.PhasePageRankReport, out, comm.Sum); err != nil {
		return nil, fmt.Errorf("pagerank: report: %w", err)
	}
	ff := *f
	ff.top = int(out[0])
	if out[1] == 0 {
		ff.out = ""
	} else if ff.out == "" {
		ff.out = "-" // takes part in gathering the scores; only rank 0 writes them
	}
	return pagerankReportOf(ctx, c, res.PageRankResult, cfg, &ff, idOffset)
}

// pagerankJoin runs a process that joins a running elastic pagerank job
// (--join): it waits in rank 0's lobby until the job takes it in between
// two iterations, then goes on in step with the job's ranks. It prints
// nothing but log lines: rank 0 reports. A job that ends before it takes
// the process in is not an error.
func pagerankJoin(ctx context.Context, plan jobPlan, in *pagerankInput, cfg spmv.PageRankConfig, f *pagerankFlags, stderr io.Writer) error {
	logf := stderrLogf(stderr)
	tcfg, err := plan.job.TCPConfig(logf)
	if err != nil {
		return err
	}
	coordinator := plan.job.Coordinator
	logf("pagerank --join: asking the job at %s to take this process in (%s)", coordinator, in.name)
	tc, err := tcp.Join(ctx, tcfg, joinTag(in, cfg))
	if errors.Is(err, tcp.ErrJobEnded) {
		logf("pagerank --join: the job at %s ended before it took this process in: nothing to do", coordinator)
		return nil
	}
	if err != nil {
		err = fmt.Errorf("--join: %w", err)
		if errors.Is(err, tcp.ErrForeignLobby) {
			if plan.job.JobIDFromToken {
				err = fmt.Errorf("%w: wrong token? The job id is derived from %s when %s is not set", err, launch.EnvToken, launch.EnvJob)
			} else {
				err = fmt.Errorf("%w: wrong %s?", err, launch.EnvJob)
			}
		}
		return err
	}
	logf("pagerank --join: joined as rank %d of %d (epoch %d)", tc.Rank(), tc.Size(), tc.Epoch())
	res, err := spmv.PageRankJoin(ctx, tc, cfg, elasticHooks(in, logf))
	if err == nil {
		if res.Comm != comm.Comm(tc) {
			defer res.Comm.(*tcp.Comm).Close()
		}
		_, err = elasticReport(ctx, res, cfg, f, in.idOffset, logf)
		if err != nil {
			res.Comm.(*tcp.Comm).Abort(err)
		}
	}
	if err != nil {
		tc.Abort(err)
		time.Sleep(min(time.Second, plan.job.PeerTimeout)) // let the abort notices arrive before the connections close
		_ = tc.Close()
		return fmt.Errorf("pagerank --join: %w", err)
	}
	if err := tc.Close(); err != nil {
		logf("pagerank --join: leaving the job: %v", err)
	}
	return nil
}
