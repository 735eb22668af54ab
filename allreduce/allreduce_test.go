package allreduce

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
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

// runErrors runs fn on p ranks and returns each rank's error; fn's errors
// are the subject of the test, so Run itself must succeed.
func runErrors(t *testing.T, p int, fn func(ctx context.Context, c comm.Comm) error) []error {
	t.Helper()
	errs := make([]error, p)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := inproc.Run(ctx, p, func(ctx context.Context, c comm.Comm) error {
		errs[c.Rank()] = fn(ctx, c)
		return nil
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return errs
}

// TestInvalidArguments: a bad argument on any rank makes New and
// ConfigReduce fail on every rank with ErrInvalid, and nothing hangs.
func TestInvalidArguments(t *testing.T) {
	const p = 4
	good := []int64{1, 5, 9}
	cases := []struct {
		name    string
		kind    Kind
		degrees func(r int) []int
		n       func(r int) int64
		in, out func(r int) []int64
		want    string
	}{
		{"unsorted", KindKylix, fixed([]int{2, 2}), fixedN(10), badOn(1, []int64{5, 1}), fixedSet(good), "not sorted"},
		{"duplicate", KindKylix, fixed([]int{2, 2}), fixedN(10), fixedSet(good), badOn(2, []int64{1, 1}), "not sorted"},
		{"negative", KindDirect, fixed(nil), fixedN(10), badOn(3, []int64{-1}), fixedSet(good), "outside"},
		{"too large", KindBinary, fixed(nil), fixedN(10), fixedSet(good), badOn(0, []int64{10}), "outside"},
		{"n differs", KindKylix, fixed([]int{4}), func(r int) int64 { return 10 + int64(r) }, fixedSet(good), fixedSet(good), "disagree on n"},
		{"degrees differ", KindKylix, func(r int) []int {
			if r == 2 {
				return []int{4}
			}
			return []int{2, 2}
		}, fixedN(10), fixedSet(good), fixedSet(good), "disagree"},
		{"bad product", KindKylix, fixed([]int{2, 3}), fixedN(10), fixedSet(good), fixedSet(good), "multiply"},
		{"degrees for direct", KindDirect, fixed([]int{4}), fixedN(10), fixedSet(good), fixedSet(good), "takes no degrees"},
		{"unknown kind", Kind(7), fixed(nil), fixedN(10), fixedSet(good), fixedSet(good), "unknown kind"},
		{"negative n", KindDirect, fixed(nil), fixedN(-1), fixedSet(nil), fixedSet(nil), "vector length"},
	}
	for _, tc := range cases {
		for _, combined := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/configreduce=%v", tc.name, combined), func(t *testing.T) {
				errs := runErrors(t, p, func(ctx context.Context, c comm.Comm) error {
					r := c.Rank()
					in, out := tc.in(r), tc.out(r)
					if combined {
						return ConfigReduce(ctx, c, tc.kind, tc.degrees(r), tc.n(r), in, out,
							make([]float64, len(out)), make([]float64, len(in)), nil)
					}
					_, err := New(ctx, c, tc.kind, tc.degrees(r), tc.n(r), in, out)
					return err
				})
				matched := false
				for r, err := range errs {
					if !errors.Is(err, ErrInvalid) {
						t.Fatalf("rank %d: got %v, want an error wrapping ErrInvalid", r, err)
					}
					matched = matched || strings.Contains(err.Error(), tc.want)
				}
				if !matched {
					t.Fatalf("no rank's error mentions %q: %v", tc.want, errs)
				}
			})
		}
	}
	t.Run("value lengths", func(t *testing.T) {
		errs := runErrors(t, p, func(ctx context.Context, c comm.Comm) error {
			s, err := New(ctx, c, KindKylix, []int{2, 2}, 10, good, good)
			if err != nil {
				return err
			}
			return s.Reduce(ctx, make([]float64, 2), make([]float64, 3), nil)
		})
		for r, err := range errs {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("rank %d: got %v, want ErrInvalid", r, err)
			}
		}
		errs = runErrors(t, p, func(ctx context.Context, c comm.Comm) error {
			return ConfigReduce(ctx, c, KindKylix, []int{2, 2}, 10, good, good, make([]float64, 3), make([]float64, 1), nil)
		})
		for r, err := range errs {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ConfigReduce rank %d: got %v, want ErrInvalid", r, err)
			}
		}
	})
}

func fixed(d []int) func(int) []int        { return func(int) []int { return d } }
func fixedN(n int64) func(int) int64       { return func(int) int64 { return n } }
func fixedSet(s []int64) func(int) []int64 { return func(int) []int64 { return s } }
func badOn(rank int, bad []int64) func(int) []int64 {
	return func(r int) []int64 {
		if r == rank {
			return bad
		}
		return []int64{1, 5, 9}
	}
}

// corruptComm damages the messages it sends in one phase.
type corruptComm struct {
	comm.Comm
	phase  string
	damage func([]byte) []byte
}

func (c *corruptComm) Alltoallv(ctx context.Context, phase string, send, recv [][]byte) ([][]byte, error) {
	if phase == c.phase {
		bad := make([][]byte, len(send))
		for i, b := range send {
			if len(b) > 0 {
				bad[i] = c.damage(slices.Clone(b))
			}
		}
		send = bad
	}
	return c.Comm.Alltoallv(ctx, phase, send, recv)
}

// TestCorruptMessages: damaged messages in any pass make the receivers
// return ErrCorrupt rather than panic or deliver wrong sums.
func TestCorruptMessages(t *testing.T) {
	const p = 4
	rng := rand.New(rand.NewPCG(11, 12))
	d := randomDataset(rng, p, 500)
	for r := range p { // make sure every rank sends something in every layer
		d.ins[r] = drawSet(rng, setFull, d.n, nil)
		d.outs[r] = d.ins[r]
		d.vals[r] = randomValues(rng, len(d.outs[r]))
	}
	damages := map[string]func([]byte) []byte{
		"truncate": func(b []byte) []byte { return b[:len(b)-1] },
		"extend":   func(b []byte) []byte { return append(b, 0) },
		"garbage":  func(b []byte) []byte { return append([]byte{0xff, 0xff, 0xff}, b...) },
	}
	for _, phase := range []string{"allreduce.config.1", "allreduce.config.2", "allreduce.down.2", "allreduce.up.1", "allreduce.configreduce.1"} {
		for name, damage := range damages {
			t.Run(phase+"/"+name, func(t *testing.T) {
				var mu sync.Mutex
				var errs []error
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				_ = inproc.Run(ctx, p, func(ctx context.Context, c comm.Comm) error {
					r := c.Rank()
					cc := &corruptComm{Comm: c, phase: phase, damage: damage}
					in := make([]float64, len(d.ins[r]))
					var err error
					if strings.Contains(phase, "configreduce") {
						err = ConfigReduce(ctx, cc, KindKylix, []int{2, 2}, d.n, d.ins[r], d.outs[r], d.vals[r], in, nil)
					} else {
						var s Sparse
						s, err = New(ctx, cc, KindKylix, []int{2, 2}, d.n, d.ins[r], d.outs[r])
						if err == nil {
							err = s.Reduce(ctx, d.vals[r], in, nil)
						}
					}
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return err
				})
				found := false
				for _, err := range errs {
					found = found || errors.Is(err, ErrCorrupt)
				}
				if !found {
					t.Fatalf("no rank reported ErrCorrupt: %v", errs)
				}
			})
		}
	}
}

// TestLayerStats: the per-layer phases carry the traffic, each rank sends
// at most d−1 messages per layer and pass, and direct is one layer.
func TestLayerStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const p = 16
	d := randomDataset(rng, p, 3000)
	for _, nw := range []network{{KindKylix, "4x2x2"}, {KindDirect, ""}} {
		vols := make([][]LayerVolume, p)
		err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			r := c.Rank()
			s, err := nw.configure(ctx, c, d)
			if err != nil {
				return err
			}
			before := LayerStats(c.Stats(), s.Layers())
			in := make([]float64, len(d.ins[r]))
			if err := s.Reduce(ctx, d.vals[r], in, nil); err != nil {
				return err
			}
			after := LayerStats(c.Stats(), s.Layers())
			for i := range after {
				after[i] = after[i].Sub(before[i])
				if after[i].Config.Calls != 0 || after[i].Down.Calls != 1 || after[i].Up.Calls != 1 {
					return fmt.Errorf("layer %d: calls %+v", i+1, after[i])
				}
				deg := s.Degrees()[i]
				if after[i].Down.Messages > int64(deg-1) || after[i].Up.Messages > int64(deg-1) {
					return fmt.Errorf("layer %d of degree %d: %d down, %d up messages", i+1, deg, after[i].Down.Messages, after[i].Up.Messages)
				}
			}
			vols[r] = before
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if nw.kind == KindDirect && len(vols[0]) != 1 {
			t.Fatalf("direct has %d layers", len(vols[0]))
		}
		var total comm.PhaseCounters
		for r := range vols {
			for _, v := range vols[r] {
				total.Add(v.Total())
			}
		}
		if total.BytesSent != total.BytesRecv || total.BytesSent == 0 {
			t.Fatalf("%s: configuration sent %d bytes, received %d", nw, total.BytesSent, total.BytesRecv)
		}
	}
}

// TestProposition41: on data drawn from the paper's model (Poisson counts
// with power-law rates), the merged set sizes at each node layer match
// PredictLayerBytes.
func TestProposition41(t *testing.T) {
	const p = 16
	const n = 40000
	const density = 0.05
	lam := solveLambda(n, density)
	rng := rand.New(rand.NewPCG(15, 16))
	d := &dataset{p: p, n: n, ins: make([][]int64, p), outs: make([][]int64, p), vals: make([][]float64, p)}
	for r := range p {
		var s []int64
		for i := int64(0); i < n; i++ {
			if rng.Float64() < -math.Expm1(-lam*math.Pow(float64(i+1), -Alpha)) {
				s = append(s, i)
			}
		}
		d.ins[r], d.outs[r] = s, s
	}
	for _, deg := range [][]int{{4, 4}, {2, 2, 2, 2}, {8, 2}} {
		sizes := make([][]int, p)
		err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			r := c.Rank()
			s, err := New(ctx, c, KindKylix, deg, n, d.ins[r], d.outs[r])
			if err != nil {
				return err
			}
			pl := s.(*plan)
			sizes[r] = append(sizes[r], len(d.outs[r]))
			for l := 1; l <= len(deg); l++ {
				sizes[r] = append(sizes[r], len(pl.outVals[l]))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		pred := PredictLayerBytes(n, density, deg)
		for l := range pred {
			mean := 0.0
			for r := range p {
				mean += float64(sizes[r][l])
			}
			mean = 8 * mean / p
			if rel := math.Abs(mean-pred[l]) / pred[l]; rel > 0.05 {
				t.Errorf("%s node layer %d: measured %.0f bytes per rank, Proposition 4.1 predicts %.0f (%.1f%% off)", FormatDegrees(deg), l, mean, pred[l], 100*rel)
			}
		}
	}
}

// TestAutoDegrees: AutoDegrees measures the densities collectively and
// every rank designs the same degrees, equal to DesignDegrees'.
func TestAutoDegrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	const p = 64
	d := randomDataset(rng, p, 20000)
	var inTotal, outTotal int
	for r := range p {
		inTotal += len(d.ins[r])
		outTotal += len(d.outs[r])
	}
	want := DesignDegrees(p, float64(inTotal)/(p*20000), float64(outTotal)/(p*20000), 20000, 4096)
	got := make([][]int, p)
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		deg, err := AutoDegrees(ctx, c, d.n, d.ins[c.Rank()], d.outs[c.Rank()], 4096)
		got[c.Rank()] = deg
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range got {
		if !slices.Equal(got[r], want) {
			t.Fatalf("rank %d designed %v, want %v", r, got[r], want)
		}
	}
}

// TestArrangeIsAPermutedReduce: on every listed network, an arranged
// Reduce (values kept in a random order of the caller's) delivers the same
// sums, bit for bit, as an unarranged one on the same values, with the
// same home sums and scalars, for three calls in a row (the maps are
// composed once, not again per call).
func TestArrangeIsAPermutedReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, tc := range testNetworks() {
		if tc.p > 16 {
			continue // the composition is of the first layer's maps; larger P adds nothing
		}
		for _, nw := range tc.networks {
			n := []int64{3, 1000, 20000}[rng.IntN(3)]
			d := randomDataset(rng, tc.p, n)
			outAt, inAt := make([][]int32, tc.p), make([][]int32, tc.p)
			for r := range tc.p {
				outAt[r], inAt[r] = randomPermutation(rng, len(d.outs[r])), randomPermutation(rng, len(d.ins[r]))
			}
			t.Run(fmt.Sprintf("P=%d/%s/n=%d", tc.p, nw, n), func(t *testing.T) {
				err := inproc.Run(context.Background(), tc.p, func(ctx context.Context, c comm.Comm) error {
					r := c.Rank()
					plain, err := nw.configure(ctx, c, d)
					if err != nil {
						return err
					}
					arranged, err := nw.configure(ctx, c, d)
					if err != nil {
						return err
					}
					if err := arranged.Arrange(outAt[r], inAt[r]); err != nil {
						return err
					}
					out := make([]float64, len(d.outs[r])) // d.vals[r] in the arranged order
					for t, q := range outAt[r] {
						out[q] = d.vals[r][t]
					}
					for call := range 3 {
						want, wantHome, wantScalars, errPlain := reduceRecorded(ctx, plain, d.vals[r], len(d.ins[r]), r)
						got, gotHome, gotScalars, errArranged := reduceRecorded(ctx, arranged, out, len(d.ins[r]), r)
						if errPlain != nil || errArranged != nil {
							return errors.Join(errPlain, errArranged)
						}
						for t, q := range inAt[r] {
							if !bitsEqual(want[t:t+1], got[q:q+1]) {
								return fmt.Errorf("call %d, rank %d: in-set element %d (index %d): arranged %v, plain %v",
									call, r, t, d.ins[r][t], got[q], want[t])
							}
						}
						if !bitsEqual(wantHome, gotHome) || !bitsEqual(wantScalars, gotScalars) {
							return fmt.Errorf("call %d, rank %d: home sums or scalars differ", call, r)
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// reduceRecorded runs ReduceScalars with two scalars and an apply that
// records the home sums and transforms them; it returns the in values,
// the home sums before the transform and the scalar sums.
func reduceRecorded(ctx context.Context, s Sparse, out []float64, nIn, rank int) (in, home, scalars []float64, err error) {
	in = make([]float64, nIn)
	scalars = []float64{float64(rank+1) / 3, 0}
	err = s.ReduceScalars(ctx, out, in, scalars, func(h []int64, sums []float64) {
		home = slices.Clone(sums)
		for t := range sums {
			scalars[1] += sums[t]
			sums[t] = transform(h[t], sums[t])
		}
	})
	return in, home, scalars, err
}

// randomPermutation is a random permutation of [0, n) as int32 positions.
func randomPermutation(rng *rand.Rand, n int) []int32 {
	at := make([]int32, n)
	for i, j := range rng.Perm(n) {
		at[i] = int32(j)
	}
	return at
}

// TestArrangeRejectsNonPermutations: a wrong length, a repeated or
// out-of-range position, or a second call is ErrInvalid, and a rejected
// call changes nothing.
func TestArrangeRejectsNonPermutations(t *testing.T) {
	in, out := []int64{1, 4, 6}, []int64{0, 1, 2, 5}
	ok3, ok4 := []int32{2, 0, 1}, []int32{3, 1, 0, 2}
	cases := []struct {
		name        string
		outAt, inAt []int32
	}{
		{"short out", []int32{0, 1, 2}, ok3},
		{"long in", ok4, []int32{0, 1, 2, 3}},
		{"repeated", []int32{0, 1, 1, 2}, ok3},
		{"negative", ok4, []int32{0, -1, 2}},
		{"past the end", ok4, []int32{0, 1, 3}},
	}
	for _, p := range []int{1, 2} {
		err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			s, err := New(ctx, c, KindDirect, nil, 8, in, out)
			if err != nil {
				return err
			}
			for _, tc := range cases {
				if err := s.Arrange(tc.outAt, tc.inAt); !errors.Is(err, ErrInvalid) {
					return fmt.Errorf("P=%d, %s: got %v, want ErrInvalid", p, tc.name, err)
				}
			}
			if err := s.Arrange(ok4, ok3); err != nil {
				return fmt.Errorf("P=%d: a valid Arrange after rejected ones: %w", p, err)
			}
			if err := s.Arrange(ok4, ok3); !errors.Is(err, ErrInvalid) {
				return fmt.Errorf("P=%d: a second Arrange: got %v, want ErrInvalid", p, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
