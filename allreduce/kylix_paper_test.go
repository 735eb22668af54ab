package allreduce

// Tests named for the sections of Kylix (Zhao and Canny): configuration
// (§III-A), reduction (§III-B), configreduce (§III-C), the layout of the
// nested butterfly (§III-D) and the degree design of §IV (Proposition
// 4.1).
//
// Reference: Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for
// Commodity Clusters", 43rd International Conference on Parallel
// Processing (ICPP), IEEE, 2014.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// degreeVectors12 is every ordered factorisation of 12 into degrees ≥ 2:
// the butterflies a 12-rank job can be configured with.
var degreeVectors12 = [][]int{{12}, {6, 2}, {2, 6}, {4, 3}, {3, 4}, {3, 2, 2}, {2, 3, 2}, {2, 2, 3}}

// integerValues gives every rank's OUT set small integer values, so that
// sums are exact in any order of addition.
func integerValues(rng *rand.Rand, d *dataset) {
	for r := range d.p {
		for t := range d.vals[r] {
			d.vals[r][t] = float64(rng.IntN(201) - 100)
		}
	}
}

// reduceOnce configures d on kind/degrees and reduces it once with apply,
// returning every rank's in-values.
func reduceOnce(t *testing.T, d *dataset, kind Kind, deg []int, apply func(rank int) func(home []int64, sums []float64)) [][]float64 {
	t.Helper()
	got := make([][]float64, d.p)
	err := inproc.Run(context.Background(), d.p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		s, err := New(ctx, c, kind, deg, d.n, d.ins[r], d.outs[r])
		if err != nil {
			return err
		}
		got[r] = make([]float64, len(d.ins[r]))
		var fn func([]int64, []float64)
		if apply != nil {
			fn = apply(r)
		}
		return s.Reduce(ctx, d.vals[r], got[r], fn)
	})
	if err != nil {
		t.Fatalf("%v %v: %v", kind, deg, err)
	}
	return got
}

// TestConfigurationDeliversExactlyTheRequestedIndices_SecIIIA: after the
// configuration pass every rank receives one value per index of its IN
// set, in the order of that set, and each is that index's own sum: a rank
// contributes i+1 for every index i of its OUT set, so the sum at i is
// (i+1) times the number of ranks contributing i.
func TestConfigurationDeliversExactlyTheRequestedIndices_SecIIIA(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 1))
	d := randomDataset(rng, 12, 500)
	contributors := make([]float64, d.n)
	for r := range d.p {
		for t, i := range d.outs[r] {
			d.vals[r][t] = float64(i + 1)
			contributors[i]++
		}
	}
	for _, deg := range degreeVectors12 {
		got := reduceOnce(t, d, KindKylix, deg, nil)
		for r := range d.p {
			if len(got[r]) != len(d.ins[r]) {
				t.Fatalf("%v: rank %d got %d values for %d indices", deg, r, len(got[r]), len(d.ins[r]))
			}
			for k, i := range d.ins[r] {
				if want := float64(i+1) * contributors[i]; got[r][k] != want {
					t.Fatalf("%v: rank %d position %d (index %d) = %v, want %v", deg, r, k, i, got[r][k], want)
				}
			}
		}
	}
}

// TestReductionEqualsSerialSumForAnyDegrees_SecIIIB: the scatter-reduce
// down pass and the allgather up pass give every rank the serial sums of
// its IN indices, whatever the degree vector (every factorisation of 12)
// and for the direct and binary baselines.
func TestReductionEqualsSerialSumForAnyDegrees_SecIIIB(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2))
	for job := range 3 {
		d := randomDataset(rng, 12, int64(50+job*700))
		integerValues(rng, d)
		want, _, _ := d.serialSums(d.vals)
		check := func(what string, got [][]float64) {
			for r := range d.p {
				for k, i := range d.ins[r] {
					if got[r][k] != want[i] {
						t.Fatalf("job %d %s: rank %d index %d = %v, want %v", job, what, r, i, got[r][k], want[i])
					}
				}
			}
		}
		for _, deg := range degreeVectors12 {
			check(fmt.Sprint("kylix ", deg), reduceOnce(t, d, KindKylix, deg, nil))
		}
		check("direct", reduceOnce(t, d, KindDirect, nil, nil))
		check("binary", reduceOnce(t, d, KindBinary, nil, nil))
	}
}

// TestHomesPartitionTheIndicesIntoHashedRanges_SecIIID: at the bottom of
// the down pass every index some rank contributes or wants sits at exactly
// one rank, its home, the rank of its hashed range; the home lists are
// sorted, and they hold the full sums (the apply callback sees them).
func TestHomesPartitionTheIndicesIntoHashedRanges_SecIIID(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 3))
	d := randomDataset(rng, 12, 900)
	integerValues(rng, d)
	want, _, used := d.serialSums(d.vals)
	for _, deg := range [][]int{{3, 4}, {2, 2, 3}} {
		var mu sync.Mutex
		seen := make([]int, d.n)
		reduceOnce(t, d, KindKylix, deg, func(rank int) func([]int64, []float64) {
			return func(home []int64, sums []float64) {
				mu.Lock()
				defer mu.Unlock()
				if !slices.IsSorted(home) {
					t.Errorf("%v: rank %d home list not sorted", deg, rank)
				}
				for k, i := range home {
					seen[i]++
					if h := homeOf(i, d.p); h != rank {
						t.Errorf("%v: index %d at rank %d, its hashed range is rank %d's", deg, i, rank, h)
					}
					if sums[k] != want[i] {
						t.Errorf("%v: home sum of %d = %v, want %v", deg, i, sums[k], want[i])
					}
				}
			}
		})
		for i := range d.n {
			if w := map[bool]int{true: 1, false: 0}[used[i]]; seen[i] != w {
				t.Fatalf("%v: index %d at %d homes, want %d", deg, i, seen[i], w)
			}
		}
	}
}

// TestConfigReduceIsConfigurationThenReduction_SecIIIC: configreduce, one
// combined down pass for index sets that change every call, gives results
// bit-identical to configuring and then reducing, apply included.
func TestConfigReduceIsConfigurationThenReduction_SecIIIC(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 4))
	d := randomDataset(rng, 6, 400)
	apply := func(int) func([]int64, []float64) {
		return func(home []int64, sums []float64) {
			for k, i := range home {
				sums[k] = transform(i, sums[k])
			}
		}
	}
	for _, deg := range [][]int{{2, 3}, {6}, {3, 2}} {
		want := reduceOnce(t, d, KindKylix, deg, apply)
		got := make([][]float64, d.p)
		err := inproc.Run(context.Background(), d.p, func(ctx context.Context, c comm.Comm) error {
			r := c.Rank()
			got[r] = make([]float64, len(d.ins[r]))
			return ConfigReduce(ctx, c, KindKylix, deg, d.n, d.ins[r], d.outs[r], d.vals[r], got[r], apply(r))
		})
		if err != nil {
			t.Fatal(err)
		}
		for r := range d.p {
			if !bitsEqual(got[r], want[r]) {
				t.Fatalf("%v: rank %d: ConfigReduce %v, New+Reduce %v", deg, r, got[r], want[r])
			}
		}
	}
}

// TestDesignedDegreesMultiplyToTheRankCount_Prop41: the degrees designed
// from the power-law density model multiply to the rank count for any
// density, length and minimum packet, each at least 2.
func TestDesignedDegreesMultiplyToTheRankCount_Prop41(t *testing.T) {
	for _, p := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 18, 24, 30, 32, 36, 48, 60, 64} {
		for _, density := range []float64{0, 1e-4, 0.2, 1} {
			for _, n := range []int64{1000, 1 << 22} {
				for _, minPacket := range []int{0, 1 << 10, DefaultMinPacket, math.MaxInt} {
					deg := DesignDegrees(p, density, density, n, minPacket)
					prod := 1
					for _, x := range deg {
						if x < 2 {
							t.Fatalf("p=%d density=%g n=%d min=%d: degree %d in %v", p, density, n, minPacket, x, deg)
						}
						prod *= x
					}
					if prod != p {
						t.Fatalf("p=%d density=%g n=%d min=%d: %v multiplies to %d", p, density, n, minPacket, deg, prod)
					}
				}
			}
		}
	}
}

// TestMinimumPacketBoundsTheDegrees_SecIV: with every packet efficient the
// design is one direct layer; with none efficient it is the binary tail
// (prime factors, descending); in between, a layer's predicted packet
// (Proposition 4.1's bytes at the layer over its degree) stays above the
// minimum.
func TestMinimumPacketBoundsTheDegrees_SecIV(t *testing.T) {
	if got := DesignDegrees(64, 0.2, 0.2, 1<<24, 0); !slices.Equal(got, []int{64}) {
		t.Errorf("every packet efficient: %v, want [64]", got)
	}
	if got := DesignDegrees(12, 0.2, 0.2, 1<<24, math.MaxInt); !slices.Equal(got, []int{3, 2, 2}) {
		t.Errorf("no packet efficient: %v, want [3 2 2]", got)
	}
	const n, density, minPacket = 60_000_000, 0.21, DefaultMinPacket
	deg := DesignDegrees(64, density, density, n, minPacket)
	bytes := PredictLayerBytes(n, density, deg)
	for l, d := range deg {
		if bytes[l]/float64(d) < minPacket && !slices.Equal(deg[l:], BinaryDegrees(64/product(deg[:l]))) {
			t.Errorf("layer %d of %v: packets of %.0f bytes below the minimum outside the binary tail", l+1, deg, bytes[l]/float64(d))
		}
	}
	if b := PredictLayerBytes(n, density, nil); math.Abs(b[0]-8*n*density)/(8*n*density) > 1e-6 {
		t.Errorf("layer 0 holds %.0f bytes, want 8·n·density = %.0f", b[0], 8*n*density)
	}
}

func product(deg []int) int {
	p := 1
	for _, d := range deg {
		p *= d
	}
	return p
}
