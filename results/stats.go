package results

import (
	"math"
	"slices"
)

// Stats are the Graph500 statistics of a set of samples; see [Compute].
type Stats struct {
	Min, FirstQuartile, Median, ThirdQuartile, Max, Mean, StdDev float64
}

// Compute returns the statistics of x exactly as the Graph500 reference's
// get_statistics computes them. Mean and StdDev are taken over x in its given
// order, StdDev with n−1 in the denominator; the order statistics over a
// sorted copy (x itself is not modified), with integer division in the
// indices: Q1 = (x[(n−1)/4]+x[n/4])/2, median = (x[(n−1)/2]+x[n/2])/2,
// Q3 = (x[n−1−(n−1)/4]+x[n−1−n/4])/2.
//
// For n = 1, StdDev is 0 (the reference computes 0/0). For n = 0 every field
// is NaN. NaN samples sort first, as [slices.Sort] orders them.
func Compute(x []float64) Stats {
	n := len(x)
	if n == 0 {
		nan := math.NaN()
		return Stats{nan, nan, nan, nan, nan, nan, nan}
	}
	var sum float64
	for _, v := range x {
		sum += v
	}
	mean := sum / float64(n)
	var std float64
	if n > 1 {
		var sq float64
		for _, v := range x {
			d := v - mean
			sq += float64(d * d) // the conversion forbids fusing into an FMA, as C does
		}
		std = math.Sqrt(sq / float64(n-1))
	}
	xx := slices.Clone(x)
	slices.Sort(xx)
	return Stats{
		Min:           xx[0],
		FirstQuartile: (xx[(n-1)/4] + xx[n/4]) * 0.5,
		Median:        (xx[(n-1)/2] + xx[n/2]) * 0.5,
		ThirdQuartile: (xx[n-1-(n-1)/4] + xx[n-1-n/4]) * 0.5,
		Max:           xx[n-1],
		Mean:          mean,
		StdDev:        std,
	}
}

// TEPSStats are the Graph500 TEPS statistics of a set of searches; see
// [ComputeTEPS].
type TEPSStats struct {
	// Min, FirstQuartile, Median, ThirdQuartile and Max are the reference's:
	// with s_i = time_i/nedge_i, Min = 1/max(s), FirstQuartile = 1/Q3(s),
	// Median = 1/median(s), ThirdQuartile = 1/Q1(s), Max = 1/min(s).
	Min, FirstQuartile, Median, ThirdQuartile, Max float64
	// HarmonicMean = 1/mean(s) is the Graph500 figure of merit.
	HarmonicMean float64
	// HarmonicStdDev = stddev(s)/(mean(s)²·√(n−1)), 0 for a single search.
	HarmonicStdDev float64
	// Mean and StdDev are the arithmetic mean and sample standard deviation
	// of the per-search TEPS nedge_i/time_i. The Graph500 reference does not
	// print them.
	Mean, StdDev float64
}

// ComputeTEPS returns the TEPS statistics of searches as the Graph500
// reference computes them from s_i = time_i/nedge_i (TEPS = m/time, Lv et al.
// §VII-A). A search with zero edges or zero time makes some statistics
// infinite or NaN, as it would in the reference.
func ComputeTEPS(searches []Search) TEPSStats {
	n := len(searches)
	s := make([]float64, n)
	teps := make([]float64, n)
	for i, sr := range searches {
		s[i] = sr.Time / float64(sr.NEdge)
		teps[i] = sr.TEPS()
	}
	st := Compute(s)
	tt := Compute(teps)
	var hstd float64
	if n > 1 {
		hstd = st.StdDev / (st.Mean * st.Mean * math.Sqrt(float64(n-1)))
	} else if n == 0 {
		hstd = math.NaN()
	}
	return TEPSStats{
		Min:            1 / st.Max,
		FirstQuartile:  1 / st.ThirdQuartile,
		Median:         1 / st.Median,
		ThirdQuartile:  1 / st.FirstQuartile,
		Max:            1 / st.Min,
		HarmonicMean:   1 / st.Mean,
		HarmonicStdDev: hstd,
		Mean:           tt.Mean,
		StdDev:         tt.StdDev,
	}
}
