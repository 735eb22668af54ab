package kronecker

import (
	"context"
	"testing"
)

// Weights are a function of (seed, tuple index): the same for any split of
// the tuples over ranks and threads, uniform in [0, 1), and different for
// another seed.
func TestWeightsAreAFunctionOfSeedAndIndex(t *testing.T) {
	p := DefaultParams(10)
	m := p.NumEdges()
	all := make([]float32, m)
	p.Weights(0, all, 1)
	var sum float64
	for k, w := range all {
		if !(w >= 0 && w < 1) {
			t.Fatalf("weight %d = %v, not in [0, 1)", k, w)
		}
		sum += float64(w)
	}
	// The mean of m uniforms is within 5 standard deviations of 1/2.
	if mean, sd := sum/float64(m), 1/(12*float64(m)); (mean-0.5)*(mean-0.5) > 25*sd {
		t.Errorf("mean weight %v of %d tuples is not near 1/2", mean, m)
	}
	for _, threads := range []int{2, 3, 8} {
		got := make([]float32, m)
		p.Weights(0, got, threads)
		for k := range got {
			if got[k] != all[k] {
				t.Fatalf("%d threads: weight %d = %v, want %v", threads, k, got[k], all[k])
			}
		}
	}
	for _, size := range []int{2, 3, 5} {
		for r := range size {
			s := p.Share(r, size, 2)
			got := make([]float32, s.Len())
			if err := s.ReadWeights(context.Background(), 0, got); err != nil {
				t.Fatal(err)
			}
			for i, w := range got {
				if w != all[s.First()+int64(i)] {
					t.Fatalf("rank %d of %d: weight %d differs", r, size, i)
				}
			}
		}
	}
	q := p
	q.Seed = 2
	other := make([]float32, 64)
	q.Weights(0, other, 1)
	same := 0
	for k := range other {
		if other[k] == all[k] {
			same++
		}
	}
	if same > 2 {
		t.Errorf("seeds 1 and 2 share %d of 64 weights", same)
	}
}

// A share refuses to read weights outside it.
func TestShareReadWeightsRange(t *testing.T) {
	s := DefaultParams(6).Share(0, 2, 1)
	if err := s.ReadWeights(context.Background(), s.Len()-1, make([]float32, 2)); err == nil {
		t.Fatal("read past the share's end succeeded")
	}
}
