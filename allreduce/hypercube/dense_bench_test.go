package hypercube

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// BenchmarkDense times one allreduce of float64 sums on in-process ranks
// for every algorithm: 8 ranks and 10^5 and 10^6 elements by default;
// GRAPHRUN_DENSE_N (e.g. "10000000") and GRAPHRUN_DENSE_P (e.g. "16") pick
// another length or rank count. bytes/op is what all ranks send to others
// per allreduce. Compare algorithms within one run: the machine is shared.
func BenchmarkDense(b *testing.B) {
	sizes := []int{100_000, 1_000_000}
	if s := os.Getenv("GRAPHRUN_DENSE_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("GRAPHRUN_DENSE_N=%q: want a positive length", s)
		}
		sizes = []int{n}
	}
	p := 8
	if s := os.Getenv("GRAPHRUN_DENSE_P"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("GRAPHRUN_DENSE_P=%q: want a positive rank count", s)
		}
		p = v
	}
	for _, n := range sizes {
		for _, alg := range Algorithms() {
			b.Run(fmt.Sprintf("p=%d/n=%d/%s", p, n, alg), func(b *testing.B) {
				benchDense(b, p, n, alg, Options{})
			})
		}
	}
}

func benchDense(b *testing.B, p, n int, alg Algorithm, opts Options) {
	ctx := context.Background()
	w, err := inproc.NewWorld(p)
	if err != nil {
		b.Fatal(err)
	}
	ds := make([]*Dense[float64], p)
	vecs := make([][]float64, p)
	err = onRanks(w, p, func(c comm.Comm) error {
		r := c.Rank()
		ds[r], err = New[float64](ctx, c, alg, opts)
		vecs[r] = make([]float64, n)
		for i := range vecs[r] {
			vecs[r][i] = denseInput(r, i)
		}
		if err == nil { // warm up: grow the buffers
			err = ds[r].Allreduce(ctx, vecs[r], Sum[float64])
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	var before int64
	for r := range p {
		before += w.Comm(r).Stats().Total().BytesSent
	}
	iters := b.N
	b.SetBytes(int64(8 * n))
	b.ResetTimer()
	err = onRanks(w, p, func(c comm.Comm) error {
		for range iters {
			if err := ds[c.Rank()].Allreduce(ctx, vecs[c.Rank()], Sum[float64]); err != nil {
				return err
			}
		}
		return nil
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	var after int64
	for r := range p {
		after += w.Comm(r).Stats().Total().BytesSent
	}
	b.ReportMetric(float64(after-before)/float64(iters), "bytes/op")
}

// BenchmarkShared times one round of a shared variable on 8 in-process
// ranks: 4 tasks per rank commit 10^6 float64 each, every task Gets the
// sum (local reduction, control allreduce and chunked hypercube).
func BenchmarkShared(b *testing.B) {
	const p, tasks, n = 8, 4, 1_000_000
	ctx := context.Background()
	w, err := inproc.NewWorld(p)
	if err != nil {
		b.Fatal(err)
	}
	vecs := make([][][]float64, p)
	for r := range vecs {
		vecs[r] = make([][]float64, tasks)
		for t := range tasks {
			vecs[r][t] = make([]float64, n)
			for i := range vecs[r][t] {
				vecs[r][t][i] = denseInput(r*tasks+t, i)
			}
		}
	}
	iters := b.N
	b.SetBytes(8 * n)
	b.ResetTimer()
	err = onRanks(w, p, func(c comm.Comm) error {
		m, err := NewManager(ctx, c, ManagerOptions{Workers: 1, Pieces: 1})
		if err != nil {
			return err
		}
		defer m.Close()
		for it := range iters {
			v, err := Init(m, "bench", tasks, Sum[float64])
			if err != nil {
				return err
			}
			errs := make(chan error, tasks)
			for t := range tasks {
				go func() {
					if err := v.Commit(vecs[c.Rank()][t]); err != nil {
						errs <- err
						return
					}
					_, err := v.Get(ctx)
					errs <- err
				}()
			}
			for range tasks {
				if err := <-errs; err != nil {
					return fmt.Errorf("iteration %d: %w", it, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
