package results

import (
	"math"
	"slices"
	"testing"
)

func TestComputeHandExamples(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want Stats
	}{
		{"n=1", []float64{5}, Stats{5, 5, 5, 5, 5, 5, 0}},
		// sorted [1 3]: Q1 = (x[0]+x[0])/2, median = (x[0]+x[1])/2, Q3 = (x[1]+x[1])/2.
		{"n=2", []float64{3, 1}, Stats{1, 1, 2, 3, 3, 2, math.Sqrt2}},
		// sorted [1 2 3]: Q1 = x[0], median = x[1], Q3 = x[2].
		{"n=3", []float64{3, 1, 2}, Stats{1, 1, 2, 3, 3, 2, 1}},
		// sorted [1 2 3 4]: Q1 = (x[0]+x[1])/2, median = (x[1]+x[2])/2, Q3 = (x[3]+x[2])/2.
		{"n=4", []float64{4, 1, 3, 2}, Stats{1, 1.5, 2.5, 3.5, 4, 2.5, math.Sqrt(5.0 / 3)}},
		// sorted [10 20 30 40 50]: Q1 = x[1], median = x[2], Q3 = x[3].
		{"n=5", []float64{50, 10, 40, 20, 30}, Stats{10, 20, 30, 40, 50, 30, math.Sqrt(250)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.x)
			got := Compute(tc.x)
			if !statsClose(got, tc.want) {
				t.Errorf("Compute(%v) = %+v, want %+v", in, got, tc.want)
			}
			if !slices.Equal(in, tc.x) {
				t.Errorf("Compute modified its input: %v, was %v", tc.x, in)
			}
		})
	}
}

func TestCompute64(t *testing.T) {
	// 1..64 in a scrambled order (37 is coprime with 64).
	x := make([]float64, 64)
	for i := range x {
		x[i] = float64((i*37)%64 + 1)
	}
	// Sorted x[i] = i+1. Q1: (x[63/4=15]+x[64/4=16])/2 = (16+17)/2;
	// median: (x[31]+x[32])/2 = (32+33)/2; Q3: (x[63-15=48]+x[63-16=47])/2 = (49+48)/2.
	// Sample variance of 1..n is n(n+1)/12.
	want := Stats{1, 16.5, 32.5, 48.5, 64, 32.5, math.Sqrt(64.0 * 65 / 12)}
	if got := Compute(x); !statsClose(got, want) {
		t.Errorf("Compute(1..64) = %+v, want %+v", got, want)
	}
}

func TestComputeEmpty(t *testing.T) {
	s := Compute(nil)
	for _, v := range []float64{s.Min, s.FirstQuartile, s.Median, s.ThirdQuartile, s.Max, s.Mean, s.StdDev} {
		if !math.IsNaN(v) {
			t.Fatalf("Compute(nil) = %+v, want all NaN", s)
		}
	}
}

func TestComputeTEPS(t *testing.T) {
	// s = time/nedge = [0.01 0.005 0.0025 0.02]; sorted [0.0025 0.005 0.01 0.02]:
	// Q1(s) = 0.00375, median(s) = 0.0075, Q3(s) = 0.015, mean(s) = 0.009375.
	searches := []Search{
		{Time: 1, NEdge: 100},
		{Time: 1, NEdge: 200},
		{Time: 1, NEdge: 400},
		{Time: 1, NEdge: 50},
	}
	// Squared deviations from the mean sum to 1.796875e-4; divided by n−1 = 3.
	stdS := math.Sqrt(1.796875e-4 / 3)
	// Arithmetic TEPS: [100 200 400 50], mean 187.5, squared deviations
	// 7656.25+156.25+45156.25+18906.25 = 71875.
	want := TEPSStats{
		Min:            50,
		FirstQuartile:  1 / 0.015,
		Median:         1 / 0.0075,
		ThirdQuartile:  1 / 0.00375,
		Max:            400,
		HarmonicMean:   1 / 0.009375,
		HarmonicStdDev: stdS / (0.009375 * 0.009375 * math.Sqrt(3)),
		Mean:           187.5,
		StdDev:         math.Sqrt(71875.0 / 3),
	}
	got := ComputeTEPS(searches)
	pairs := [][2]float64{
		{got.Min, want.Min}, {got.FirstQuartile, want.FirstQuartile}, {got.Median, want.Median},
		{got.ThirdQuartile, want.ThirdQuartile}, {got.Max, want.Max}, {got.HarmonicMean, want.HarmonicMean},
		{got.HarmonicStdDev, want.HarmonicStdDev}, {got.Mean, want.Mean}, {got.StdDev, want.StdDev},
	}
	for _, p := range pairs {
		if !near(p[0], p[1]) {
			t.Fatalf("ComputeTEPS = %+v, want %+v", got, want)
		}
	}
	// 1/mean(s) is the harmonic mean of the per-search TEPS: n / Σ(1/TEPS_i).
	if !near(got.HarmonicMean, 4/(1.0/100+1.0/200+1.0/400+1.0/50)) {
		t.Errorf("harmonic mean %v", got.HarmonicMean)
	}
}

func TestComputeTEPSSingle(t *testing.T) {
	got := ComputeTEPS([]Search{{Time: 2, NEdge: 1000}})
	want := TEPSStats{500, 500, 500, 500, 500, 500, 0, 500, 0}
	if got != want {
		t.Errorf("ComputeTEPS(one search) = %+v, want %+v", got, want)
	}
}

func near(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

func statsClose(a, b Stats) bool {
	return near(a.Min, b.Min) && near(a.FirstQuartile, b.FirstQuartile) && near(a.Median, b.Median) &&
		near(a.ThirdQuartile, b.ThirdQuartile) && near(a.Max, b.Max) && near(a.Mean, b.Mean) &&
		near(a.StdDev, b.StdDev)
}
