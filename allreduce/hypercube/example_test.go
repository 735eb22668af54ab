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
		<-grad.Done() // closed: every Get has returned

		for t := range tasks {
			if errs[t] != nil {
				return errs[t]
			}
		}
		if c.Rank() == 0 {
			fmt.Println(grad.Key(), "tasks:", ranks*tasks, "sum:", sums[0])
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: gradient tasks: 12 sum: [12 18 12]
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
			fmt.Println(d.String(), vec)
			fmt.Println(d.Algorithm(), "in", d.Rounds(), "rounds:", d.Phases())
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// hypercube-chunked on 5 ranks (3 dims) [4 0 7]
	// hypercube-chunked in 6 rounds: [dense.chunked.rs.0 dense.chunked.rs.1 dense.chunked.rs.2 dense.chunked.ag.2 dense.chunked.ag.1 dense.chunked.ag.0]
}

// The element-wise minimum over 3 ranks with the tree reduce + broadcast
// of Li et al. Fig. 1a.
func ExampleMin() {
	err := inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		d, err := hypercube.New[int32](ctx, c, hypercube.AlgTree, hypercube.Options{})
		if err != nil {
			return err
		}
		vec := []int32{int32(c.Rank()), 10 - int32(c.Rank())}
		if err := d.Allreduce(ctx, vec, hypercube.Min[int32]); err != nil {
			return err
		}
		if c.Rank() == 0 {
			fmt.Println(vec)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: [0 8]
}

// The phases of the butterfly's rounds on 6 ranks (not a power of two:
// ranks 4 and 5 fold into ranks 0 and 1 first), for reading the per-round
// counters from comm.Stats.
func ExamplePhaseNames() {
	names, err := hypercube.PhaseNames(hypercube.AlgButterfly, 6, nil, "")
	fmt.Println(names, err)
	// Output: [dense.butterfly.fold dense.butterfly.0 dense.butterfly.1 dense.butterfly.unfold] <nil>
}

// Zhang and Qiu Fig. 8: nodes 0–5 without node 3. Node 2 sends to node 5
// on dimension 0, nodes 1 and 5 have no link on dimension 1 (−2: the freed
// id 3 may come back).
func ExampleTopologyOf() {
	topo, err := hypercube.TopologyOf([]int{0, 1, 2, 4, 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("members", topo.Members(), "freed", topo.Freed(), "dims", topo.Dims())
	fmt.Println("node 2, dimension 0:", topo.Link(2, 0))
	fmt.Print(topo)
	// Output:
	// members [0 1 2 4 5] freed [3] dims 3
	// node 2, dimension 0: send 5
	// 0: pair 1 | pair 2 | pair 4
	// 1: pair 0 | -2 | pair 5
	// 2: send 5 | pair 0 recv 4 | -1
	// 4: pair 5 | send 2 | pair 0
	// 5: pair 4 recv 2 | -2 | pair 1
}
