package allreduce_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/graphrun/graphrun/allreduce"
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// Four ranks of a 2×2 Kylix butterfly share a vector of 8 entries: rank r
// contributes 1 to indices r and r+4 and wants indices 0, 1 and 7. New
// configures the network once (Kylix §III-A); every Reduce then sums
// (§III-B).
func Example() {
	err := inproc.Run(context.Background(), 4, func(ctx context.Context, c comm.Comm) error {
		r := int64(c.Rank())
		out := []int64{r, r + 4}
		in := []int64{0, 1, 7}
		s, err := allreduce.New(ctx, c, allreduce.KindKylix, []int{2, 2}, 8, in, out)
		if err != nil {
			return err
		}
		sums := make([]float64, len(in))
		if err := s.Reduce(ctx, []float64{1, 10 * float64(r)}, sums, nil); err != nil {
			return err
		}
		if c.Rank() == 0 {
			fmt.Println(s.Name(), "layers", s.Layers(), "degrees", s.Degrees(), "sums", sums)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: kylix 2x2 layers 2 degrees [2 2] sums [1 1 30]
}

// ConfigReduce configures and reduces in one pass (Kylix §III-C), for index
// sets that change on every call: here each of 3 ranks contributes to a
// different pair of indices and wants them all.
func ExampleConfigReduce() {
	var mu sync.Mutex
	got := map[int][]float64{}
	err := inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		r := int64(c.Rank())
		out := []int64{r, r + 1}
		in := []int64{0, 1, 2, 3}
		sums := make([]float64, len(in))
		err := allreduce.ConfigReduce(ctx, c, allreduce.KindDirect, nil, 4, in, out, []float64{1, 2}, sums, nil)
		mu.Lock()
		got[c.Rank()] = sums
		mu.Unlock()
		return err
	})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(got[0], got[2])
	// Output: [1 3 3 2] [1 3 3 2]
}

// The network kinds by name, as configurations spell them.
func ExampleParseKind() {
	for _, name := range []string{"kylix", "binary", "ring"} {
		k, err := allreduce.ParseKind(name)
		fmt.Println(k, err)
	}
	// Output:
	// kylix <nil>
	// binary <nil>
	// kylix unknown kind "ring" (want kylix, direct or binary)
}

// Proposition 4.1's prediction of the bytes a rank holds at each node
// layer of a 4×2 butterfly: a full set's share shrinks by each degree, a
// sparse set's by less, because the sets merged from several ranks share
// indices.
func ExamplePredictLayerBytes() {
	const n = 1 << 20
	for _, density := range []float64{1, 0.01} {
		b := allreduce.PredictLayerBytes(n, density, []int{4, 2})
		fmt.Printf("density %g: %.0f KiB at layer 0, then ÷%.2f and ÷%.2f\n", density, b[0]/1024, b[0]/b[1], b[1]/b[2])
	}
	// Output:
	// density 1: 8192 KiB at layer 0, then ÷4.00 and ÷2.00
	// density 0.01: 82 KiB at layer 0, then ÷1.25 and ÷1.14
}

// LayerStats reads one rank's per-layer traffic; Add sums the ranks' into
// the job's (the "Kylix shape" of Kylix Fig. 5).
func ExampleLayerVolume_Add() {
	w, err := inproc.NewWorld(4)
	if err != nil {
		fmt.Println(err)
		return
	}
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Go(func() {
			c := w.Comm(r)
			ctx := context.Background()
			all := []int64{0, 1, 2, 3, 4, 5, 6, 7}
			s, err := allreduce.New(ctx, c, allreduce.KindBinary, nil, 8, all, all)
			if err == nil {
				err = s.Reduce(ctx, make([]float64, 8), make([]float64, 8), nil)
			}
			if err != nil {
				w.Abort(r, err)
			}
		})
	}
	wg.Wait()
	job := make([]allreduce.LayerVolume, 2)
	for r := range 4 {
		for l, v := range allreduce.LayerStats(w.Comm(r).Stats(), 2) {
			job[l].Layer = v.Layer
			job[l].Add(v)
		}
	}
	for _, v := range job {
		fmt.Printf("layer %d: %d messages down, %d up\n", v.Layer, v.Down.Messages, v.Up.Messages)
	}
	// Output:
	// layer 1: 4 messages down, 4 up
	// layer 2: 4 messages down, 4 up
}
