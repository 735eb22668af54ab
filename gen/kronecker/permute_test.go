// Tests of the label permutation: a bijection of [0, 2^Scale) with a working
// inverse, at every scale.

package kronecker

import (
	"testing"

	"github.com/graphrun/graphrun/graph"
)

func TestInverseOdd(t *testing.T) {
	for _, m := range []uint64{1, 3, 0xbf58476d1ce4e5b9, 1<<63 | 1, ^uint64(0)} {
		if got := m * inverseOdd(m); got != 1 {
			t.Errorf("%#x · inverseOdd = %#x, want 1", m, got)
		}
	}
}

func TestPermuteBijectionExhaustive(t *testing.T) {
	for scale := 1; scale <= 16; scale++ {
		for _, seed := range []uint64{1, 0xdeadbeef} {
			p := DefaultParams(scale)
			p.Seed = seed
			pm := newPerm(scale, seed)
			n := p.NumVertices()
			hit := make([]bool, n)
			var block [lanes]uint64
			fixed := 0
			for x := range n {
				y := int64(pm.apply(uint64(x)))
				if y < 0 || y >= n {
					t.Fatalf("scale %d: Permute(%d) = %d outside [0, %d)", scale, x, y, n)
				}
				if hit[y] {
					t.Fatalf("scale %d seed %d: %d is the image of two labels", scale, seed, y)
				}
				hit[y] = true
				if back := int64(pm.unapply(uint64(y))); back != x {
					t.Fatalf("scale %d: Unpermute(Permute(%d)) = %d", scale, x, back)
				}
				if y == x {
					fixed++
				}
				// applyPacked agrees with apply, on both halves.
				block[x%lanes] = uint64(x) | uint64(n-1-x)<<32
				if x%lanes == lanes-1 || x == n-1 {
					out := make([]graph.Edge, x%lanes+1)
					pm.applyPacked(&block, 0, out)
					for i, e := range out {
						xi := x - x%lanes + int64(i)
						if e.U != int64(pm.apply(uint64(xi))) || e.V != int64(pm.apply(uint64(n-1-xi))) {
							t.Fatalf("scale %d: applyPacked(%d) = %v, apply gives %d, %d",
								scale, xi, e, pm.apply(uint64(xi)), pm.apply(uint64(n-1-xi)))
						}
					}
				}
			}
			if scale >= 8 && fixed > int(n/16) {
				t.Errorf("scale %d: %d fixed points of %d; the permutation barely moves labels", scale, fixed, n)
			}
			// The exported methods are the same maps.
			for _, x := range []int64{0, 1, n / 3, n - 1} {
				if p.Permute(x) != int64(pm.apply(uint64(x))) || p.Unpermute(p.Permute(x)) != x {
					t.Fatalf("scale %d: Permute/Unpermute disagree with perm at %d", scale, x)
				}
			}
		}
	}
}

func TestPermuteLargeScales(t *testing.T) {
	for _, scale := range []int{17, 31, 32, 33, 39, 40} {
		p := DefaultParams(scale)
		n := p.NumVertices()
		seen := make(map[int64]int64)
		s := uint64(scale)
		for i := range 20000 {
			var x int64
			switch i {
			case 0:
				x = 0
			case 1:
				x = n - 1
			default:
				s += gamma
				x = int64(mix64(s) & uint64(n-1))
			}
			y := p.Permute(x)
			if y < 0 || y >= n {
				t.Fatalf("scale %d: Permute(%d) = %d outside [0, %d)", scale, x, y, n)
			}
			if back := p.Unpermute(y); back != x {
				t.Fatalf("scale %d: Unpermute(Permute(%d)) = %d", scale, x, back)
			}
			if prev, ok := seen[y]; ok && prev != x {
				t.Fatalf("scale %d: Permute(%d) = Permute(%d) = %d", scale, x, prev, y)
			}
			seen[y] = x
		}
		// Neighbouring labels land far apart.
		if d := p.Permute(1) - p.Permute(0); d > -1<<(scale/2) && d < 1<<(scale/2) {
			t.Errorf("scale %d: Permute(0), Permute(1) = %d, %d are close", scale, p.Permute(0), p.Permute(1))
		}
	}
}
