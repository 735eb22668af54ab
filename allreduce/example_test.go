package allreduce_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// Four ranks, three tasks on each: every task commits its vector to the
// shared variable "gradient" without waiting, and reads the sum over all
// twelve tasks with Get (paper 001 §3.2).
func Example() {
	const ranks, tasks = 4, 3
	err := inproc.Run(context.Background(), ranks, func(ctx context.Context, c comm.Comm) error {
		m, err := allreduce.NewManager(ctx, c, allreduce.ManagerOptions{Algorithm: allreduce.AlgChunked})
		if err != nil {
			return err
		}
		defer m.Close()
		grad, err := allreduce.Init(m, "gradient", tasks, allreduce.Sum[float64])
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
		d, err := allreduce.NewDense[int64](ctx, c, allreduce.AlgChunked, allreduce.DenseOptions{})
		if err != nil {
			return err
		}
		vec := []int64{int64(c.Rank()), -int64(c.Rank()), 7}
		if err := d.Allreduce(ctx, vec, allreduce.Max[int64]); err != nil {
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
