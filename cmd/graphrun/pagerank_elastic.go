// pagerank --elastic and --join: the checks of the flags; the plan of a
// process joining a running TCP job and the join are launch.JoinPlan and
// launch.Plan.Join, the elastic run the driver's (pagerank.RunElasticRank,
// pagerank.RunJoined; paper 002 §II, §III, §V, REFERENCES.md).

package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/pagerank"
	"github.com/graphrun/graphrun/spmv"
)

// checkElastic rejects --elastic where it cannot work: where the plan
// cannot run an elastic job (launch.Plan.CheckElastic), and with the dense
// allreduce.
func checkElastic(plan jobPlan, f *pagerankFlags) error {
	if err := plan.CheckElastic(); err != nil {
		return usage(err)
	}
	if f.allreduce == spmv.AllreduceDense.String() {
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
	if err := launch.CheckJoin(fl.Changed, f.Transport); err != nil {
		return jobPlan{}, usage(err)
	}
	if fl.Changed("degrees") && !strings.EqualFold(strings.TrimSpace(f.degrees), "auto") {
		return jobPlan{}, flagError("degrees", "cannot be combined with --join: the degrees are designed anew whenever the job changes size")
	}
	plan, err := launch.JoinPlan(launch.Flags{Coordinator: f.Coordinator, Listen: f.Listen, PeerTimeout: f.PeerTimeout}, os.LookupEnv)
	if err != nil {
		return jobPlan{}, usageError{err}
	}
	return plan, nil
}

// pagerankJoin runs a process that joins a running elastic pagerank job
// (--join): it waits in rank 0's lobby until the job takes it in between
// two iterations, then goes on in step with the job's ranks
// (pagerank.RunJoined). It prints nothing but log lines: rank 0 reports. A
// job that ends before it takes the process in is not an error.
func pagerankJoin(ctx context.Context, plan jobPlan, in *pagerank.Source, cfg pagerank.Config, stderr io.Writer) error {
	logf := launch.StderrLogf(stderr)
	coordinator := plan.Job.Coordinator
	logf("pagerank --join: asking the job at %s to take this process in (%s)", coordinator, in.Name())
	tc, err := plan.Join(ctx, in.JoinTag(cfg.PageRankConfig), logf)
	if errors.Is(err, launch.ErrJobEnded) {
		logf("pagerank --join: the job at %s ended before it took this process in: nothing to do", coordinator)
		return nil
	}
	if err != nil {
		return err
	}
	logf("pagerank --join: joined as rank %d of %d (epoch %d)", tc.Rank(), tc.Size(), tc.Epoch())
	return pagerank.RunJoined(ctx, tc, in.Input(), cfg, plan.Job.PeerTimeout, logf)
}
