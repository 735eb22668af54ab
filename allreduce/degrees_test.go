package allreduce

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

func TestParseDegrees(t *testing.T) {
	good := []struct {
		s    string
		p    int
		want []int
	}{
		{"8x4x2", 64, []int{8, 4, 2}},
		{"64", 64, []int{64}},
		{"2x2x2x2x2x2", 64, []int{2, 2, 2, 2, 2, 2}},
		{" 16X4 ", 64, []int{16, 4}},
		{"3x1x2", 6, []int{3, 2}},
		{"1", 1, []int{}},
		{"auto", 64, nil},
		{"AUTO", 3, nil},
	}
	for _, tc := range good {
		got, err := ParseDegrees(tc.s, tc.p)
		if err != nil || !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("ParseDegrees(%q, %d) = %v, %v; want %v", tc.s, tc.p, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		s string
		p int
	}{{"8x4", 64}, {"8x4x4", 64}, {"", 4}, {"2x", 4}, {"0x4", 4}, {"-2x-2", 4}, {"axb", 4}, {"9223372036854775807x2", 4}, {"4", 0}} {
		if got, err := ParseDegrees(tc.s, tc.p); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseDegrees(%q, %d) = %v, %v; want ErrInvalid", tc.s, tc.p, got, err)
		}
	}
	if _, err := ParseDegrees("8x4", 64); err == nil || err.Error() != "allreduce: invalid arguments: degrees 8x4 multiply to 32, not to the 64 ranks" {
		t.Errorf("unclear error: %v", err)
	}
}

func TestFormatDegrees(t *testing.T) {
	for _, tc := range []struct {
		deg  []int
		want string
	}{{[]int{8, 4, 2}, "8x4x2"}, {nil, "1"}, {[]int{64}, "64"}} {
		if got := FormatDegrees(tc.deg); got != tc.want {
			t.Errorf("FormatDegrees(%v) = %q, want %q", tc.deg, got, tc.want)
		}
	}
}

func TestBinaryAndDirectDegrees(t *testing.T) {
	for _, tc := range []struct {
		p              int
		binary, direct []int
	}{
		{1, []int{}, []int{}},
		{2, []int{2}, []int{2}},
		{7, []int{7}, []int{7}},
		{12, []int{3, 2, 2}, []int{12}},
		{64, []int{2, 2, 2, 2, 2, 2}, []int{64}},
		{90, []int{5, 3, 3, 2}, []int{90}},
	} {
		if got := BinaryDegrees(tc.p); !slices.Equal(got, tc.binary) {
			t.Errorf("BinaryDegrees(%d) = %v, want %v", tc.p, got, tc.binary)
		}
		if got := DirectDegrees(tc.p); !slices.Equal(got, tc.direct) {
			t.Errorf("DirectDegrees(%d) = %v, want %v", tc.p, got, tc.direct)
		}
	}
}

// TestModelDensity checks the numerical density model against the plain sum.
func TestModelDensity(t *testing.T) {
	for _, n := range []int64{1, 10, 512, 513, 5000, 300000} {
		for _, lam := range []float64{1e-4, 0.01, 1, 30, 1e4} {
			exact := 0.0
			for r := int64(1); r <= n; r++ {
				exact += -math.Expm1(-lam / float64(r))
			}
			exact /= float64(n)
			got := modelDensity(n, lam)
			if math.Abs(got-exact) > 1e-6*exact {
				t.Errorf("D(n=%d, λ=%g) = %.10g, exact sum %.10g", n, lam, got, exact)
			}
		}
	}
	if modelDensity(100, 0) != 0 || modelDensity(100, math.Inf(1)) != 1 || modelDensity(0, 1) != 0 {
		t.Error("density limits")
	}
}

func TestSolveLambda(t *testing.T) {
	for _, n := range []int64{1, 100, 60_000_000, 1_400_000_000} {
		for _, d := range []float64{1e-6, 0.035, 0.21, 0.5, 0.99} {
			lam := solveLambda(n, d)
			if got := modelDensity(n, lam); math.Abs(got-d) > 1e-8*d+1e-12 {
				t.Errorf("n=%d density %g: λ=%g gives D=%g", n, d, lam, got)
			}
			// Merging K ranks raises the density but shrinks data per range.
			prev := d
			for _, k := range []float64{2, 8, 64} {
				dk := modelDensity(n, k*lam)
				if dk < prev-1e-12 || dk > 1 || dk/k > d+1e-12 {
					t.Errorf("n=%d density %g: D(%gλ) = %g", n, d, k, dk)
				}
				prev = dk
			}
		}
	}
	if solveLambda(100, 0) != 0 || !math.IsInf(solveLambda(100, 1), 1) || solveLambda(100, math.NaN()) != 0 {
		t.Error("λ limits")
	}
}

func TestDesignDegrees(t *testing.T) {
	examples := []struct {
		name      string
		p         int
		in, out   float64
		n         int64
		minPacket int
		want      []int
	}{
		// Full vectors: B_i = 8n/K_i exactly, so the choices are by hand:
		// 8e6/d ≥ 1e5 → d ≤ 80 → 64.
		{"full, big packets", 64, 1, 1, 1_000_000, 100_000, []int{64}},
		// 8e6/d ≥ 5e5 → 16; then 5e5/2 < 5e5 → saturated, prime 2; again 2.
		{"full, 500 kB", 64, 1, 1, 1_000_000, 500_000, []int{16, 2, 2}},
		// 8e6/d ≥ 2.5e5 → 32; then 2.5e5/2 < 2.5e5 → 2.
		{"full, 250 kB", 64, 1, 1, 1_000_000, 250_000, []int{32, 2}},
		// 12 ranks, 8e6/d ≥ 1e6 → 6; then 8e6/6/2 ≥ 1e6 fails → 2.
		{"12 ranks", 12, 1, 1, 1_000_000, 1_000_000, []int{6, 2}},
		{"no data", 64, 0, 0, 1_000_000, 1, []int{2, 2, 2, 2, 2, 2}},
		{"no data, 12", 12, 0, 0, 1000, 1, []int{3, 2, 2}},
		{"no minimum", 64, 0.01, 0.01, 1000, 0, []int{64}},
		{"one rank", 1, 0.5, 0.5, 1000, 100, []int{}},
		{"prime", 7, 0.5, 0.5, 1000, 1 << 30, []int{7}},
		// The paper's Twitter graph (n = 60M, density 0.21, 64 nodes, 5 MB):
		// 8·60M·0.21 B = 96 MiB per rank → 16 (6 MiB packets; 32 would
		// give 3 MiB); 16 ranks merged raise the density to 0.86 over a
		// 1/16 range: 24.7 MiB → the remaining 4 (6.2 MiB packets).
		{"twitter", 64, 0.21, 0.21, 60_000_000, 5 << 20, []int{16, 4}},
		// The same data with a 40 MiB minimum: 96/2 ≥ 40 → 2; then
		// 8·60M·D(2λ₀)/2 = 76 MiB, 38 MiB packets → saturated: binary tail.
		{"twitter, 40 MiB", 64, 0.21, 0.21, 60_000_000, 40 << 20, []int{2, 2, 2, 2, 2, 2}},
	}
	for _, tc := range examples {
		got := DesignDegrees(tc.p, tc.in, tc.out, tc.n, tc.minPacket)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: DesignDegrees(%d, %g, %g, %d, %d) = %v, want %v", tc.name, tc.p, tc.in, tc.out, tc.n, tc.minPacket, got, tc.want)
		}
	}
	// Whatever the input: the product is p, and every degree but those of
	// the saturated tail keeps packets at or above the minimum while the
	// next larger divisor would not.
	for _, p := range []int{2, 6, 16, 24, 64, 96} {
		for _, dens := range []float64{1e-5, 0.01, 0.2, 0.9} {
			for _, mp := range []int{64, 4096, 1 << 20} {
				const n = 1_000_000
				deg := DesignDegrees(p, dens, dens/2, n, mp)
				prod := 1
				for _, d := range deg {
					prod *= d
				}
				if prod != p {
					t.Fatalf("p=%d density %g: degrees %v multiply to %d", p, dens, deg, prod)
				}
				lamIn, lamOut := solveLambda(n, dens), solveLambda(n, dens/2)
				k := 1
				for _, d := range deg {
					b := layerBytes(n, lamIn, lamOut, k)
					rest := p / k
					if b/float64(d) < float64(mp) && !slices.Equal(deg[len(deg)-len(BinaryDegrees(rest)):], BinaryDegrees(rest)) {
						t.Fatalf("p=%d density %g: degree %d at K=%d gives %.0f-byte packets, below %d", p, dens, d, k, b/float64(d), mp)
					}
					for _, q := range divisors(rest) {
						if q > d && b/float64(q) >= float64(mp) {
							t.Fatalf("p=%d density %g: degree %d at K=%d, but %d would keep packets ≥ %d", p, dens, d, k, q, mp)
						}
					}
					k *= d
				}
			}
		}
	}
}

func TestPredictLayerBytes(t *testing.T) {
	got := PredictLayerBytes(1000, 1, []int{4, 2})
	want := []float64{8000, 2000, 1000}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("PredictLayerBytes full = %v, want %v", got, want)
		}
	}
	// The Kylix shape: volume per rank decreases down the layers.
	shape := PredictLayerBytes(60_000_000, 0.21, []int{8, 4, 2})
	for i := 1; i < len(shape); i++ {
		if shape[i] >= shape[i-1] {
			t.Fatalf("Kylix shape not decreasing: %v", shape)
		}
	}
}

func TestDivisors(t *testing.T) {
	if got := divisors(64); !slices.Equal(got, []int{1, 2, 4, 8, 16, 32, 64}) {
		t.Errorf("divisors(64) = %v", got)
	}
	if got := divisors(36); !slices.Equal(got, []int{1, 2, 3, 4, 6, 9, 12, 18, 36}) {
		t.Errorf("divisors(36) = %v", got)
	}
	if got := divisors(1); !slices.Equal(got, []int{1}) {
		t.Errorf("divisors(1) = %v", got)
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
