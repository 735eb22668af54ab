package partition

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestEdgeOwnerDeterministicAndInRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		u, v := rng.Int64N(1<<40), rng.Int64N(1<<40)
		for _, p := range []int{1, 2, 3, 7, 16, 64, 1000} {
			r := EdgeOwner(u, v, p)
			if r < 0 || r >= p {
				t.Fatalf("EdgeOwner(%d, %d, %d) = %d, outside [0, %d)", u, v, p, r, p)
			}
			if again := EdgeOwner(u, v, p); again != r {
				t.Fatalf("EdgeOwner(%d, %d, %d) = %d then %d", u, v, p, r, again)
			}
		}
		if EdgeOwner(u, v, 1) != 0 {
			t.Fatalf("EdgeOwner with one rank is not 0")
		}
	}
	// Pinned values: the partition must not change between releases, since
	// it decides which rank adds which edge and so the last bits of results.
	for _, c := range []struct {
		u, v int64
		p    int
		want int
	}{{0, 0, 16, 4}, {1, 2, 16, 10}, {2, 1, 16, 10}, {123456789, 987654321, 64, 52}} {
		if got := EdgeOwner(c.u, c.v, c.p); got != c.want {
			t.Errorf("EdgeOwner(%d, %d, %d) = %d, want %d", c.u, c.v, c.p, got, c.want)
		}
	}
}

// chiSquare returns the χ² statistic of counts against a uniform law.
func chiSquare(counts []int, total int) float64 {
	exp := float64(total) / float64(len(counts))
	var x float64
	for _, c := range counts {
		d := float64(c) - exp
		x += d * d / exp
	}
	return x
}

func TestEdgeOwnerBalance(t *testing.T) {
	const m = 200000
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := map[string]func(i int) (int64, int64){
		"random": func(int) (int64, int64) { return rng.Int64N(1 << 20), rng.Int64N(1 << 20) },
		// A star: one source, consecutive destinations (a hub of a
		// power-law graph, the case a vertex partition cannot balance).
		"star": func(i int) (int64, int64) { return 7, int64(i) },
		// A grid of small consecutive ids.
		"grid": func(i int) (int64, int64) { return int64(i / 512), int64(i % 512) },
	}
	for name, gen := range shapes {
		for _, p := range []int{2, 4, 16, 64, 48} {
			counts := make([]int, p)
			for i := range m {
				u, v := gen(i)
				counts[EdgeOwner(u, v, p)]++
			}
			// χ² with p−1 degrees of freedom: mean p−1, sd √(2(p−1)); a
			// 6-sigma bound never trips for a good hash.
			df := float64(p - 1)
			if x := chiSquare(counts, m); x > df+6*math.Sqrt(2*df)+10 {
				t.Errorf("%s edges over %d ranks: χ² = %.1f (df %v), counts %v", name, p, x, df, counts)
			}
		}
	}
}

func TestEdgeOwnerDirectionsIndependent(t *testing.T) {
	// (u, v) and (v, u) should agree only about 1/p of the time.
	const p, m = 16, 100000
	rng := rand.New(rand.NewPCG(5, 6))
	same := 0
	for range m {
		u, v := rng.Int64N(1<<30), rng.Int64N(1<<30)
		if EdgeOwner(u, v, p) == EdgeOwner(v, u, p) {
			same++
		}
	}
	if frac := float64(same) / m; math.Abs(frac-1.0/p) > 0.01 {
		t.Errorf("(u,v) and (v,u) share an owner %.4f of the time, want about %.4f", frac, 1.0/p)
	}
}
