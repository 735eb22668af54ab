package pagerank

// A pagerank run on one process's ranks of a job of any transport (the
// in-process ranks, or this process's rank of a job of processes), started
// by the caller's runner (comm/launch's Plan.RunRanks).

import (
	"context"
	"sync"

	"github.com/graphrun/graphrun/comm"
)

// Runner runs fn on this process's ranks of a job.
type Runner func(ctx context.Context, fn func(ctx context.Context, c comm.Comm) error) error

// RunJob runs PageRank on the ranks run runs: RunRank on each, or, when
// elasticTag is not "", RunElasticRank with that join tag and logf. It
// returns rank 0's report, nil if rank 0 is not among them.
func RunJob(ctx context.Context, run Runner, in Input, cfg Job, elasticTag string, logf func(string, ...any)) (*Report, error) {
	var (
		mu     sync.Mutex
		report *Report
	)
	err := run(ctx, func(ctx context.Context, c comm.Comm) error {
		var rep *Report
		var err error
		if elasticTag != "" {
			rep, err = RunElasticRank(ctx, c, in, cfg, elasticTag, logf)
		} else {
			rep, err = RunRank(ctx, c, in, cfg)
		}
		if rep != nil {
			mu.Lock()
			report = rep
			mu.Unlock()
		}
		return err
	})
	return report, err
}
