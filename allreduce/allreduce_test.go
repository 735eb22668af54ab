package allreduce

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// network is a kind and, for kylix, a degree string ("auto" → nil).
type network struct {
	kind    Kind
	degrees string
}

func (nw network) String() string {
	if nw.kind == KindKylix {
		return nw.kind.String() + " " + nw.degrees
	}
	return nw.kind.String()
}

func (nw network) degreeVector(p int) ([]int, error) {
	if nw.kind != KindKylix {
		return nil, nil
	}
	return ParseDegrees(nw.degrees, p)
}

// configure is New of nw on c with rank c.Rank()'s sets of d.
func (nw network) configure(ctx context.Context, c comm.Comm, d *dataset) (Sparse, error) {
	deg, err := nw.degreeVector(c.Size())
	if err != nil {
		return nil, err
	}
	return New(ctx, c, nw.kind, deg, d.n, d.ins[c.Rank()], d.outs[c.Rank()])
}

// testNetworks lists, per rank count, the networks the property test runs.
func testNetworks() []rankNetworks {
	return []rankNetworks{
		{1, []network{{KindKylix, "1"}, {KindDirect, ""}, {KindBinary, ""}, {KindKylix, "auto"}}},
		{2, []network{{KindDirect, ""}, {KindBinary, ""}}},
		{3, []network{{KindKylix, "3"}, {KindBinary, ""}}},
		{4, []network{{KindKylix, "2x2"}, {KindDirect, ""}, {KindKylix, "auto"}}},
		{6, []network{{KindKylix, "3x2"}, {KindKylix, "2x3"}, {KindDirect, ""}, {KindBinary, ""}}},
		{8, []network{{KindKylix, "4x2"}, {KindKylix, "2x4"}, {KindBinary, ""}, {KindDirect, ""}}},
		{12, []network{{KindKylix, "3x4"}, {KindKylix, "2x3x2"}, {KindBinary, ""}, {KindDirect, ""}}},
		{16, []network{{KindKylix, "4x4"}, {KindKylix, "8x2"}, {KindBinary, ""}}},
		{32, []network{{KindKylix, "8x4"}, {KindKylix, "4x2x4"}, {KindDirect, ""}}},
		{64, []network{{KindKylix, "64"}, {KindKylix, "8x8"}, {KindKylix, "4x4x4"}, {KindKylix, "2x2x2x2x2x2"}, {KindKylix, "16x4"}, {KindKylix, "8x4x2"}, {KindBinary, ""}, {KindKylix, "auto"}}},
	}
}

// rankNetworks is a rank count and networks to run on it.
type rankNetworks struct {
	p        int
	networks []network
}

// observation is what one rank saw in a checked run.
type observation struct {
	home      []int64   // apply's home list
	sums      []float64 // apply's sums, before the transform
	result    []float64 // in values of the first Reduce
	crResult  []float64 // in values of ConfigReduce
	crSums    []float64
	footprint [2]int
}

// transform is the apply used by the checks: it changes every sum, so the
// up pass must carry the transformed values.
func transform(i int64, s float64) float64 { return 2*s + float64(i%7) }

// runChecked runs New, three Reduces and ConfigReduce on every rank and
// returns each rank's observations; it checks, per rank, the results of
// every call against the serial sums.
func runChecked(t *testing.T, d *dataset, nw network, withApply bool) []observation {
	t.Helper()
	obs := make([]observation, d.p)
	sumA, absA, _ := d.serialSums(d.vals)
	rng := rand.New(rand.NewPCG(uint64(d.p), uint64(d.n)))
	valsB := make([][]float64, d.p)
	for r := range valsB {
		valsB[r] = randomValues(rng, len(d.outs[r]))
	}
	sumB, absB, _ := d.serialSums(valsB)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := inproc.Run(ctx, d.p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		o := &obs[r]
		s, err := nw.configure(ctx, c, d)
		if err != nil {
			return err
		}
		var apply func([]int64, []float64)
		record := func(home *[]int64, sums *[]float64) func([]int64, []float64) {
			return func(h []int64, x []float64) {
				*home = slices.Clone(h)
				*sums = slices.Clone(x)
				for t := range x {
					x[t] = transform(h[t], x[t])
				}
			}
		}
		if withApply {
			apply = record(&o.home, &o.sums)
		}
		check := func(call string, got []float64, sum, abs []float64) error {
			for t, i := range d.ins[r] {
				want := sum[i]
				if withApply {
					want = transform(i, want)
				}
				if !near(got[t], want, 2*abs[i]) {
					return fmt.Errorf("%s: %s: rank %d index %d: got %v, want %v", nw, call, r, i, got[t], want)
				}
			}
			return nil
		}
		in := make([]float64, len(d.ins[r]))
		if err := s.Reduce(ctx, d.vals[r], in, apply); err != nil {
			return err
		}
		if err := check("Reduce 1", in, sumA, absA); err != nil {
			return err
		}
		o.result = slices.Clone(in)
		o.footprint[0] = s.(*plan).footprint()
		var noApply func([]int64, []float64)
		if withApply {
			noApply = func(h []int64, x []float64) {
				for t := range x {
					x[t] = transform(h[t], x[t])
				}
			}
		}
		if err := s.Reduce(ctx, valsB[r], in, noApply); err != nil {
			return err
		}
		if err := check("Reduce 2", in, sumB, absB); err != nil {
			return err
		}
		if err := s.Reduce(ctx, d.vals[r], in, noApply); err != nil {
			return err
		}
		if !bitsEqual(in, o.result) {
			return fmt.Errorf("%s: rank %d: Reduce 3 differs from Reduce 1 on the same values", nw, r)
		}
		o.footprint[1] = s.(*plan).footprint()
		var crHome []int64
		if withApply {
			apply = record(&crHome, &o.crSums)
		}
		o.crResult = make([]float64, len(d.ins[r]))
		deg, _ := nw.degreeVector(d.p) // valid: configure took it
		if err := ConfigReduce(ctx, c, nw.kind, deg, d.n, d.ins[r], d.outs[r], d.vals[r], o.crResult, apply); err != nil {
			return err
		}
		if withApply && !slices.Equal(crHome, o.home) {
			return fmt.Errorf("%s: rank %d: ConfigReduce home differs from New's", nw, r)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s, P=%d, n=%d: %v", nw, d.p, d.n, err)
	}
	return obs
}

func bitsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// checkObservations checks what the ranks saw as a whole: the homes
// partition the used indices by homeOf, apply saw the serial sums,
// ConfigReduce equals Configure-then-Reduce bit for bit, and repeated
// Reduce did not grow the buffers.
func checkObservations(t *testing.T, d *dataset, nw network, obs []observation, withApply bool) {
	t.Helper()
	sum, abs, used := d.serialSums(d.vals)
	seen := make([]bool, d.n)
	for r, o := range obs {
		if !bitsEqual(o.crResult, o.result) {
			t.Fatalf("%s P=%d n=%d: rank %d: ConfigReduce results differ from New+Reduce", nw, d.p, d.n, r)
		}
		if o.footprint[0] != o.footprint[1] {
			t.Fatalf("%s P=%d n=%d: rank %d: buffers grew from %d to %d bytes between Reduce 1 and 3", nw, d.p, d.n, r, o.footprint[0], o.footprint[1])
		}
		if !withApply {
			continue
		}
		if !bitsEqual(o.crSums, o.sums) {
			t.Fatalf("%s P=%d n=%d: rank %d: ConfigReduce home sums differ from New+Reduce", nw, d.p, d.n, r)
		}
		for k, i := range o.home {
			if k > 0 && i <= o.home[k-1] {
				t.Fatalf("%s: rank %d: home list not sorted", nw, r)
			}
			if seen[i] {
				t.Fatalf("%s P=%d n=%d: index %d at two homes", nw, d.p, d.n, i)
			}
			seen[i] = true
			if h := homeOf(i, d.p); h != r {
				t.Fatalf("%s: index %d at rank %d, its home is %d", nw, i, r, h)
			}
			if !used[i] {
				t.Fatalf("%s: index %d at home %d but no rank contributes or wants it", nw, i, r)
			}
			if !near(o.sums[k], sum[i], abs[i]) {
				t.Fatalf("%s: index %d: apply saw %v, want %v", nw, i, o.sums[k], sum[i])
			}
		}
	}
	if withApply {
		for i, u := range used {
			if u && !seen[i] {
				t.Fatalf("%s P=%d n=%d: index %d is used but apply never saw it", nw, d.p, d.n, i)
			}
		}
	}
}

// TestReduceProperties is the property test: random in/out sets of every
// shape (empty, full, single, sparse, power-law) on every listed network.
func TestReduceProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tiny := []int64{1, 2, 3}
	sizes := []int64{17, 100, 1000, 5000, 20000, 100000}
	for _, tc := range testNetworks() {
		for _, nw := range tc.networks {
			trials := 3
			if tc.p >= 32 {
				trials = 2
			}
			for trial := range trials {
				var n int64
				switch trial {
				case 0: // tiny vectors: most homes empty
					n = tiny[rng.IntN(len(tiny))]
				case 1: // large vectors
					n = sizes[3+rng.IntN(3)]
				default:
					n = sizes[rng.IntN(len(sizes))]
				}
				d := randomDataset(rng, tc.p, n)
				withApply := trial%2 == 0
				t.Run(fmt.Sprintf("P=%d/%s/n=%d/apply=%v", tc.p, nw, n, withApply), func(t *testing.T) {
					obs := runChecked(t, d, nw, withApply)
					checkObservations(t, d, nw, obs, withApply)
				})
			}
		}
	}
}

// TestFullAndEmpty pins the two extreme shapes on one mid-sized network:
// every rank contributes and wants everything, or nobody contributes.
func TestFullAndEmpty(t *testing.T) {
	const p, n = 8, 3000
	for _, shape := range []string{"full", "empty", "in-only", "out-only"} {
		d := &dataset{p: p, n: n, ins: make([][]int64, p), outs: make([][]int64, p), vals: make([][]float64, p)}
		rng := rand.New(rand.NewPCG(3, 4))
		for r := range p {
			full := drawSet(rng, setFull, n, nil)
			d.ins[r], d.outs[r] = []int64{}, []int64{}
			switch shape {
			case "full":
				d.ins[r], d.outs[r] = full, full
			case "in-only":
				d.ins[r] = full
			case "out-only":
				d.outs[r] = full
			}
			d.vals[r] = randomValues(rng, len(d.outs[r]))
		}
		for _, nw := range []network{{KindKylix, "4x2"}, {KindDirect, ""}, {KindBinary, ""}} {
			t.Run(shape+"/"+nw.String(), func(t *testing.T) {
				obs := runChecked(t, d, nw, true)
				checkObservations(t, d, nw, obs, true)
			})
		}
	}
}

// TestHomesAgreeAcrossKinds: every kind homes every index at the same rank,
// and results agree across kinds within rounding.
func TestHomesAgreeAcrossKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := randomDataset(rng, 16, 4000)
	var first []observation
	for _, nw := range []network{{KindDirect, ""}, {KindBinary, ""}, {KindKylix, "4x4"}, {KindKylix, "8x2"}} {
		obs := runChecked(t, d, nw, true)
		if first == nil {
			first = obs
			continue
		}
		_, abs, _ := d.serialSums(d.vals)
		for r := range obs {
			if !slices.Equal(obs[r].home, first[r].home) {
				t.Fatalf("%s: rank %d home differs from direct's", nw, r)
			}
			for k, i := range d.ins[r] {
				if !near(obs[r].result[k], first[r].result[k], 2*abs[i]) {
					t.Fatalf("%s: rank %d index %d: %v vs direct %v", nw, r, i, obs[r].result[k], first[r].result[k])
				}
			}
		}
	}
}

// TestDeterministic: two runs of the same job give bit-identical results.
func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	d := randomDataset(rng, 12, 5000)
	nw := network{KindKylix, "3x2x2"}
	a := runChecked(t, d, nw, true)
	b := runChecked(t, d, nw, true)
	for r := range a {
		if !bitsEqual(a[r].result, b[r].result) || !bitsEqual(a[r].sums, b[r].sums) {
			t.Fatalf("rank %d: results differ between two runs", r)
		}
	}
}

// TestNoGrowth: a long series of Reduces on one configuration allocates
// nothing in the allreduce after the first call (the transport's own
// rendezvous bookkeeping aside) and keeps the same buffers.
func TestNoGrowth(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	d := randomDataset(rng, 8, 20000)
	err := inproc.Run(context.Background(), d.p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		s, err := New(ctx, c, KindKylix, []int{4, 2}, d.n, d.ins[r], d.outs[r])
		if err != nil {
			return err
		}
		in := make([]float64, len(d.ins[r]))
		if err := s.Reduce(ctx, d.vals[r], in, nil); err != nil {
			return err
		}
		pl := s.(*plan)
		before := pl.footprint()
		ptrs := pl.bufferAddrs()
		for range 20 {
			if err := s.Reduce(ctx, d.vals[r], in, nil); err != nil {
				return err
			}
		}
		if after := pl.footprint(); after != before {
			return fmt.Errorf("rank %d: footprint %d → %d", r, before, after)
		}
		if !slices.Equal(ptrs, pl.bufferAddrs()) {
			return fmt.Errorf("rank %d: buffers were reallocated", r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
