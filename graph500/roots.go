package graph500

import (
	"context"
	"fmt"
	"slices"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/partition"
)

// rootBatch is how many candidate keys are tested per allreduce.
const rootBatch = 1024

// splitmix64 is the SplitMix64 output function: a bijective 64-bit mixer.
func splitmix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// SampleRoots draws up to want unique search keys of degree ≥ 1, not counting
// self-loops, as the Graph500 specification asks. degree(l) is the
// deduplicated degree of this rank's l-th vertex under part (graph.CSR.Degree,
// or graph.Block2D.Degree, which is the same), so a 1D and a 2D run draw the
// same keys. Candidate k is a pure function of (seed, k), so every rank count
// draws the same keys. When at most `want` vertices qualify, all of them are
// returned, in increasing order. Every rank must call it; every rank gets the
// same keys. With order (else nil) the vertices are a renumbering of the
// graph's own (a fused run, partition.SegmentOrder): the keys are drawn and
// returned in the original numbering, so they are those of the run that
// does not renumber.
func SampleRoots(ctx context.Context, c comm.Comm, part partition.Block1D, degree func(l uint32) int64, seed uint64, want int, order *partition.SegmentOrder) ([]int64, error) {
	newID, originalID := func(v int64) int64 { return v }, func(v int64) int64 { return v }
	if order != nil {
		newID, originalID = order.New, order.Original
	}
	rank := c.Rank()
	var owned []int64 // this rank's qualifying vertices, if they are few
	var local int64
	for v := range part.Count(rank) {
		if degree(uint32(v)) > 0 {
			local++
			if len(owned) <= want {
				owned = append(owned, originalID(part.First(rank)+int64(v)))
			}
		}
	}
	total := []int64{local}
	if err := c.AllreduceInt64(ctx, "roots", total, comm.Sum); err != nil {
		return nil, fmt.Errorf("sampling search keys: %w", err)
	}
	if total[0] <= int64(want) {
		all, err := c.Allgatherv(ctx, "roots", int64sToBytes(owned), nil)
		if err != nil {
			return nil, fmt.Errorf("sampling search keys: %w", err)
		}
		var roots []int64
		for _, b := range all {
			roots = append(roots, bytesToInt64s(b)...)
		}
		slices.Sort(roots) // ranks own increasing id ranges, unless renumbered
		return roots, nil
	}

	// More qualify than we want: draw candidates until `want` distinct ones
	// qualify. Each batch is one allreduce of "does the owner see an edge".
	key := splitmix64(seed ^ 0x5eed0f6a7a500000)
	roots := make([]int64, 0, want)
	seen := make(map[int64]bool, want)
	candidates := make([]int64, rootBatch)
	ok := make([]int64, rootBatch)
	for k := uint64(0); len(roots) < want; k += rootBatch {
		for i := range candidates {
			candidates[i] = int64(splitmix64(key+k+uint64(i)) % uint64(part.N))
			ok[i] = 0
			if v := newID(candidates[i]); part.Owner(v) == rank && degree(part.Local(v)) > 0 {
				ok[i] = 1
			}
		}
		if err := c.AllreduceInt64(ctx, "roots", ok, comm.Max); err != nil {
			return nil, fmt.Errorf("sampling search keys: %w", err)
		}
		for i, v := range candidates {
			if ok[i] == 1 && !seen[v] && len(roots) < want {
				seen[v] = true
				roots = append(roots, v)
			}
		}
	}
	return roots, nil
}

func int64sToBytes(xs []int64) []byte {
	b := make([]byte, 0, 8*len(xs))
	for _, x := range xs {
		b = appendInt64(b, x)
	}
	return b
}

func appendInt64(b []byte, x int64) []byte {
	u := uint64(x)
	return append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24), byte(u>>32), byte(u>>40), byte(u>>48), byte(u>>56))
}

func bytesToInt64s(b []byte) []int64 {
	xs := make([]int64, len(b)/8)
	for i := range xs {
		var u uint64
		for j := 7; j >= 0; j-- {
			u = u<<8 | uint64(b[8*i+j])
		}
		xs[i] = int64(u)
	}
	return xs
}
