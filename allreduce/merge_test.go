package allreduce

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTreeMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := range 300 {
		d := 1 + rng.IntN(9)
		n := int64(1 + rng.IntN(200))
		lists := make([][]int64, d)
		want := map[int64]bool{}
		for k := range lists {
			m := rng.IntN(int(n) + 1)
			if trial%7 == 0 {
				m = 0
			}
			lists[k] = randomSorted(rng, n, m)
			for _, x := range lists[k] {
				want[x] = true
			}
		}
		union, maps, err := treeMerge(lists)
		if err != nil {
			t.Fatal(err)
		}
		if len(union) != len(want) || !slices.IsSorted(union) {
			t.Fatalf("union %v of %v", union, lists)
		}
		for i := 1; i < len(union); i++ {
			if union[i] == union[i-1] {
				t.Fatalf("union has duplicates: %v", union)
			}
		}
		for k, l := range lists {
			if len(maps[k]) != len(l) {
				t.Fatalf("map %d has %d entries for %d", k, len(maps[k]), len(l))
			}
			for t2, x := range l {
				if union[maps[k][t2]] != x {
					t.Fatalf("list %d position %d: %d maps to %d", k, t2, x, union[maps[k][t2]])
				}
			}
		}
	}
}

func TestPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	const p = 24
	list := randomSorted(rng, 10000, 3000)
	// Layer 2 of 4x3x2: stride 2, degree 3.
	flat, perm, off := partition(list, p, 2, 3)
	if off[0] != 0 || off[3] != len(list) {
		t.Fatalf("offsets %v", off)
	}
	for k := range 3 {
		part := flat[off[k]:off[k+1]]
		if !slices.IsSorted(part) {
			t.Fatalf("part %d not sorted", k)
		}
		for t2, x := range part {
			if homeOf(x, p)/2%3 != k {
				t.Fatalf("index %d in part %d", x, k)
			}
			if list[perm[off[k]+t2]] != x {
				t.Fatalf("perm wrong at part %d position %d", k, t2)
			}
		}
	}
}

func TestHomeBalance(t *testing.T) {
	// Consecutive indices spread evenly over the homes.
	const p, n = 64, 640000
	count := make([]int, p)
	for i := int64(0); i < n; i++ {
		count[homeOf(i, p)]++
	}
	for r, c := range count {
		if c < n/p*95/100 || c > n/p*105/100 {
			t.Fatalf("home %d has %d of %d indices", r, c, n)
		}
	}
}
