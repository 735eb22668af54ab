// This file is pagerank --elastic: PageRank that goes on after losing a TCP
// rank other than 0 (paper 002 §II failure exposure, §V elastic topology
// update). spmv.PageRankElastic does the recovery; this file gives it the
// input reader (every survivor re-reads its new share of FILE, or
// regenerates its share of the Kronecker graph) and comm/tcp's Shrink.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/tcp"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
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

// pagerankElasticRank runs elastic PageRank on one TCP rank and collects
// the report on rank 0 (nil elsewhere). Recoveries are logged to stderr.
func pagerankElasticRank(ctx context.Context, c comm.Comm, path string, format graph.EdgeFormat, kp kronecker.Params,
	cfg spmv.PageRankConfig, f *pagerankFlags, idOffset int64, stderr io.Writer) (rep *pagerankReport, err error) {
	if _, ok := c.(*tcp.Comm); !ok {
		return nil, errors.New("--elastic: needs the TCP transport")
	}
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "graphrun: "+format+"\n", args...)
	}
	el := spmv.Elastic{
		Load: func(_ context.Context, rank, size int) ([]graph.Edge, error) {
			if path != "" {
				return graph.ReadEdgesRange(path, format, rank, size)
			}
			first, count := kp.RankRange(rank, size)
			edges := make([]graph.Edge, count)
			kp.GenerateParallel(first, edges, cfg.Threads)
			return edges, nil
		},
		Shrink: func(ctx context.Context, c comm.Comm, cause error, epoch int) (comm.Comm, error) {
			tc, ok := c.(*tcp.Comm)
			if !ok {
				return nil, fmt.Errorf("--elastic: cannot shrink a %T: %w", c, cause)
			}
			return tc.Shrink(ctx, cause, epoch)
		},
		Logf: logf,
	}
	res, err := spmv.PageRankElastic(ctx, c, cfg, el)
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
	if res.Comm.Rank() == 0 {
		for _, r := range res.Recoveries {
			logf("pagerank: elastic: recovery %d: went on with %d ranks from iteration %d; recovery took %v",
				r.Epoch, r.Ranks, r.Iteration, r.Took.Round(time.Millisecond))
		}
	}
	return pagerankReportOf(ctx, res.Comm, res.PageRankResult, cfg, f, idOffset)
}
