package hypercube_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/graphrun/graphrun/allreduce/hypercube"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// Four ranks, three tasks on each: every task commits its vector to the
// shared variable "gradient" without waiting, and reads the sum over all
// twelve tasks with Get (Li et al. §3.2).
func Example() {
	const ranks, tasks = 4, 3
	err := inproc.Run(context.Background(), ranks, func(ctx context.Context, c comm.Comm) error {
		m, err := hypercube.NewManager(ctx, c, hypercube.ManagerOptions{Algorithm: hypercube.AlgChunked})
		if err != nil {
			return err
		}
		defer m.Close()
		grad, err := hypercube.Init(m, "gradient", tasks, hypercube.Sum[float64])
		if err != nil {
			return err
		}
		var wg sync.WaitGroup
		sums := make([][]float64, tasks)
		errs := make([]error, tasks)
		for t := range tasks {
			wg.Go(func() {
				if errs[t] = grad.Commit([]float64{1, float64(c.Rank()), float64(t)}); errs[t] == nil {
					sums[t], errs[t] = grad.Get(ctx)
				}
			})
		}
		wg.Wait()
		for t := range tasks {
			if errs[t] != nil {
				return errs[t]
			}
		}
		if c.Rank() == 0 {
			fmt.Println("tasks:", ranks*tasks, "sum:", sums[0])
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: tasks: 12 sum: [12 18 12]
}

// A dense allreduce called directly by every rank: the chunked hypercube
// on 5 ranks (not a power of two), taking the maximum.
func ExampleDense() {
	err := inproc.Run(context.Background(), 5, func(ctx context.Context, c comm.Comm) error {
		d, err := hypercube.New[int64](ctx, c, hypercube.AlgChunked, hypercube.Options{})
		if err != nil {
			return err
		}
		vec := []int64{int64(c.Rank()), -int64(c.Rank()), 7}
		if err := d.Allreduce(ctx, vec, hypercube.Max[int64]); err != nil {
			return err
		}
		if c.Rank() == 3 {
			fmt.Println(d, vec)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: hypercube-chunked on 5 ranks (3 dims) [4 0 7]
}
