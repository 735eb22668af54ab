// This file holds the edge weights of kernel 3 (Graph500 spec, "Kernel 3 –
// Single-Source Shortest Paths"): each tuple carries a weight drawn
// uniformly from [0, 1) as a single-precision float. Weights are made only
// when a caller asks for them (ReadWeights, Weights), so that a BFS-only run
// neither generates nor stores them, as the specification allows.

package kronecker

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// weightDomain separates the weight stream from the tuple stream and the
// permutation keys of the same seed.
const weightDomain = 0x3c6ef372fe94f82b // fractional bits of √5

// weightBits is the precision of a weight: float32 holds every multiple of
// 2^-24 in [0, 1) exactly, so a weight is k·2^-24 for a uniform k.
const weightBits = 24

// weightOf is the weight of tuple k: the top 24 bits of SplitMix64's output
// for the Weyl state key + (k+1)·γ, scaled to [0, 1). It is a pure function
// of (seed, k), so any split of the tuples over ranks and threads yields the
// same weights.
func weightOf(key uint64, k int64) float32 {
	return float32(mix64(key+uint64(k+1)*gamma)>>(64-weightBits)) * (1.0 / (1 << weightBits))
}

// Weights fills out with the weights of tuples first, first+1, …,
// first+len(out)−1 (uniform in [0, 1), float32, a function of the seed and
// the tuple's index alone), using up to threads goroutines (≤ 0:
// GOMAXPROCS). It panics if p is invalid or the range is not inside
// [0, NumEdges()).
func (p Params) Weights(first int64, out []float32, threads int) {
	p.checkRange(first, len(out))
	key := mix64(p.Seed ^ weightDomain)
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = max(1, min(threads, len(out)/minPerThread))
	fill := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = weightOf(key, first+int64(i))
		}
	}
	if threads == 1 {
		fill(0, len(out))
		return
	}
	var wg sync.WaitGroup
	for t := range threads {
		lo, hi := t*len(out)/threads, (t+1)*len(out)/threads
		wg.Go(func() { fill(lo, hi) })
	}
	wg.Wait()
}

// ReadWeights writes the weights of tuples [first, first+len(out)) of the
// share to out: with Read, the share is a graph.WeightSource.
func (s Share) ReadWeights(ctx context.Context, first int64, out []float32) error {
	if first < 0 || first+int64(len(out)) > s.count {
		return fmt.Errorf("kronecker: read of weights [%d, %d) from a share of %d", first, first+int64(len(out)), s.count)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.params.Weights(s.first+first, out, s.threads)
	return nil
}
