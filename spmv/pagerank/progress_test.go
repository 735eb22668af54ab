package pagerank

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestProgressReportsIterations: every rank reports each iteration in
// order with its L1 change, the one the result records, and its time.
func TestProgressReportsIterations(t *testing.T) {
	edges := randomPRGraph(rand.New(rand.NewPCG(23, 24)))
	var mu sync.Mutex
	var got []Iteration
	cfg := DefaultConfig()
	cfg.Iterations = 5
	cfg.Progress = func(it Iteration) {
		mu.Lock()
		got = append(got, it)
		mu.Unlock()
	}
	res, _, _ := runPageRank(t, 2, edges, cfg, 3)
	if len(got) != 2*5 {
		t.Fatalf("%d reports of 5 iterations on 2 ranks", len(got))
	}
	for n := 1; n <= 5; n++ {
		i := slices.IndexFunc(got, func(it Iteration) bool { return it.Number == n })
		if i < 0 || got[i].L1 != res.L1Changes[n-1] || got[i].Seconds <= 0 {
			t.Fatalf("iteration %d: reports %+v, L1 changes %v", n, got, res.L1Changes)
		}
	}
}

// TestIterateNumbersAfterDone: a resumed run (an elastic run after a
// recovery or a growth) numbers its iterations after those done.
func TestIterateNumbersAfterDone(t *testing.T) {
	var numbers []int
	cfg := DefaultConfig()
	cfg.Iterations = 3
	cfg.Progress = func(it Iteration) { numbers = append(numbers, it.Number) }
	step := func(context.Context) (time.Duration, error) { return 0, nil }
	if err := iterate(context.Background(), cfg, 7, &Result{}, step); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(numbers, []int{8, 9, 10}) {
		t.Fatalf("iterations numbered %v after 7 done, want [8 9 10]", numbers)
	}
}
