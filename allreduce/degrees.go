package allreduce

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Alpha is the power-law exponent of the density model used by DesignDegrees
// and PredictLayerBytes. Kylix §IV notes that the density curve depends
// only mildly on α (real data sets have 0.5 ≤ α ≤ 2); α = 1 is Zipf's law.
const Alpha = 1.0

// DefaultMinPacket is the minimum efficient packet size, in bytes, that auto
// degrees use when the caller gives none: the 5 MB the paper measured on a
// 10 Gb/s EC2 cluster (§II-A3, Fig. 2).
const DefaultMinPacket = 5 << 20

// ParseDegrees parses a degree vector such as "8x4x2" for p ranks. The
// degrees must be positive and multiply to p; degrees of 1 are dropped (they
// would be layers without traffic), so "1" for p = 1 gives an empty, non-nil
// vector (no layers). "auto" (any case) returns nil, which New reads as "design
// the degrees from the data" (AutoDegrees).
func ParseDegrees(s string, p int) ([]int, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "auto") {
		return nil, nil
	}
	if s == "" {
		return nil, fmt.Errorf("%w: empty degree vector (want e.g. \"8x4x2\" or \"auto\")", ErrInvalid)
	}
	fields := strings.Split(strings.ToLower(s), "x")
	deg := make([]int, 0, len(fields))
	for _, f := range fields {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 1 {
			return nil, fmt.Errorf("%w: degree vector %q: %q is not a positive integer", ErrInvalid, s, f)
		}
		deg = append(deg, d)
	}
	return normalizeDegrees(deg, p)
}

// normalizeDegrees checks that deg multiplies to p and returns a copy without
// the degrees of 1 (never nil).
func normalizeDegrees(deg []int, p int) ([]int, error) {
	if p < 1 {
		return nil, fmt.Errorf("%w: %d ranks", ErrInvalid, p)
	}
	out := make([]int, 0, len(deg))
	prod := 1
	for _, d := range deg {
		if d < 1 {
			return nil, fmt.Errorf("%w: degree %d in %s is not positive", ErrInvalid, d, FormatDegrees(deg))
		}
		if prod > p/d { // the product would exceed p
			return nil, fmt.Errorf("%w: degrees %s multiply to more than the %d ranks", ErrInvalid, FormatDegrees(deg), p)
		}
		prod *= d
		if d > 1 {
			out = append(out, d)
		}
	}
	if prod != p {
		return nil, fmt.Errorf("%w: degrees %s multiply to %d, not to the %d ranks", ErrInvalid, FormatDegrees(deg), prod, p)
	}
	return out, nil
}

// FormatDegrees writes a degree vector as "8x4x2"; no layers is "1".
func FormatDegrees(deg []int) string {
	if len(deg) == 0 {
		return "1"
	}
	parts := make([]string, len(deg))
	for i, d := range deg {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

// BinaryDegrees is the degree vector of the binary butterfly on p ranks: the
// prime factors of p in descending order, i.e. 2×2×…×2 when p is a power of
// two, 3×2×2 for 12, and a single layer of degree p when p is prime. p = 1
// has no layers.
func BinaryDegrees(p int) []int {
	deg := []int{}
	for q := 2; q*q <= p; q++ {
		for p%q == 0 {
			deg = append(deg, q)
			p /= q
		}
	}
	if p > 1 {
		deg = append(deg, p)
	}
	slices.Reverse(deg)
	return deg
}

// DirectDegrees is the degree vector of direct all-to-all allreduce on p
// ranks: one layer of degree p (none when p = 1).
func DirectDegrees(p int) []int {
	if p <= 1 {
		return []int{}
	}
	return []int{p}
}

// DesignDegrees designs the butterfly for p ranks from the measured mean
// densities of the IN and OUT sets (set size / n, averaged over ranks), the
// vector length n, and the minimum efficient packet size in bytes, following
// Kylix §III-D and §IV (Proposition 4.1):
//
//	D(λ)  = (1/n) Σ_{r=1..n} (1 − exp(−λ r^−α)),  α = Alpha
//	λ₀    solves D(λ₀) = density, separately for IN and OUT
//	K_0   = 1,  K_i = d_1⋯d_i
//	B_i   = 8·n·(D(K_i λ₀^in) + D(K_i λ₀^out)) / (2·K_i)   bytes per rank at node layer i
//	d_i+1 = the largest divisor d ≥ 2 of p/K_i with B_i/d ≥ minPacket;
//	        if there is none, the remaining layers are the prime factors
//	        of p/K_i in descending order (BinaryDegrees(p/K_i)).
//
// B_i is Proposition 4.1's message size P_i (in values, times 8 bytes) for
// the mean of the two sets: the down pass carries the out-set, the up pass the
// in-set, over the same links. Choosing the largest degree that keeps packets
// above the minimum minimizes the number of layers (latency) without
// saturating the network. Once packets fall below the minimum whatever the
// degree, each message costs about the fixed minimum and a layer of degree d
// sends d−1 of them, so the fewest messages come from splitting the rest into
// prime factors (the binary tail); B_i/K only shrinks down the layers, so
// every later layer is saturated too. The degrees therefore decrease down
// the layers, as in the paper (8×4×2 and 16×4 for its data sets).
//
// Densities are clamped to [0, 1]; minPacket ≤ 0 means every packet is
// efficient (one direct layer); zero densities mean no data (binary
// butterfly). The result always multiplies to p; p = 1 gives no layers.
func DesignDegrees(p int, inDensity, outDensity float64, n int64, minPacket int) []int {
	if p <= 1 {
		return []int{}
	}
	lamIn := solveLambda(n, inDensity)
	lamOut := solveLambda(n, outDensity)
	deg := []int{}
	rest, k := p, 1
	for rest > 1 {
		bytes := layerBytes(n, lamIn, lamOut, k)
		d := 0
		divs := divisors(rest)
		for i := len(divs) - 1; i >= 0; i-- {
			if q := divs[i]; q >= 2 && bytes/float64(q) >= float64(minPacket) {
				d = q
				break
			}
		}
		if d == 0 {
			// Saturated, and so are all the layers below (B_i only
			// shrinks with K): the binary tail.
			return append(deg, BinaryDegrees(rest)...)
		}
		deg = append(deg, d)
		rest /= d
		k *= d
	}
	return deg
}

// PredictLayerBytes is Proposition 4.1's prediction of the bytes of values a
// rank holds at node layers 0, …, L of the butterfly deg, for sets of mean
// density `density` over n indices: 8·n·D(K_i λ₀)/K_i. Entry i is also the
// expected volume a rank sends, to itself included, in layer i+1.
func PredictLayerBytes(n int64, density float64, deg []int) []float64 {
	lam := solveLambda(n, density)
	out := make([]float64, 0, len(deg)+1)
	k := 1
	out = append(out, layerBytes(n, lam, lam, k))
	for _, d := range deg {
		k *= d
		out = append(out, layerBytes(n, lam, lam, k))
	}
	return out
}

// layerBytes is B for K = k merged ranks: the mean of the IN and OUT models.
func layerBytes(n int64, lamIn, lamOut float64, k int) float64 {
	if n <= 0 {
		return 0
	}
	kk := float64(k)
	return 8 * float64(n) * (modelDensity(n, kk*lamIn) + modelDensity(n, kk*lamOut)) / (2 * kk)
}

// headTerms is how many leading terms of the density sum are added exactly;
// the smooth tail is integrated numerically.
const headTerms = 512

// tailIntervals is the number of Simpson intervals (even) of the tail.
const tailIntervals = 512

// modelDensity is D(λ) = (1/n) Σ_{r=1..n} (1 − exp(−λ r^−α)). The first
// headTerms terms are summed exactly; the rest, Σ_{r=a..n} g(r), is the
// midpoint-rule integral ∫_{a−½}^{n+½} g(x) dx computed by Simpson's rule in
// log x, which is accurate to far better than the model itself.
func modelDensity(n int64, lam float64) float64 {
	if n <= 0 || lam <= 0 {
		return 0
	}
	if math.IsInf(lam, 1) {
		return 1
	}
	g := func(x float64) float64 { return -math.Expm1(-lam * rate(x)) }
	head := min(n, headTerms)
	sum := 0.0
	for r := int64(1); r <= head; r++ {
		sum += g(float64(r))
	}
	if n > head {
		lo, hi := math.Log(float64(head)+0.5), math.Log(float64(n)+0.5)
		h := (hi - lo) / tailIntervals
		f := func(u float64) float64 { x := math.Exp(u); return g(x) * x }
		s := f(lo) + f(hi)
		for i := 1; i < tailIntervals; i++ {
			w := 2.0
			if i%2 == 1 {
				w = 4
			}
			s += w * f(lo+float64(i)*h)
		}
		sum += s * h / 3
	}
	return min(1, sum/float64(n))
}

// solveLambda returns λ₀ with D(λ₀) = density, by bisection in log λ inside
// the bracket [density·n/H, −n·ln(1−density)], H = Σ r^−α: since
// 1 − e^−x ≤ x, D(λ) ≤ λH/n, and since every term is at least the last,
// D(λ) ≥ 1 − exp(−λ n^−α) ≥ 1 − exp(−λ/n).
func solveLambda(n int64, density float64) float64 {
	if n <= 0 || !(density > 0) {
		return 0
	}
	if density >= 1 {
		return math.Inf(1)
	}
	hsum := 0.0
	head := min(n, headTerms)
	for r := int64(1); r <= head; r++ {
		hsum += rate(float64(r))
	}
	if n > head { // ∫ x^−α over the tail
		a, b := float64(head)+0.5, float64(n)+0.5
		if alpha := Alpha; alpha == 1 {
			hsum += math.Log(b / a)
		} else {
			hsum += (math.Pow(b, 1-alpha) - math.Pow(a, 1-alpha)) / (1 - alpha)
		}
	}
	lo := math.Log(density * float64(n) / hsum)
	hi := math.Log(-float64(n) * math.Log1p(-density))
	if hi < lo { // rounding at the extremes
		lo, hi = hi, lo
	}
	lo -= 1e-9
	hi += 1e-9
	for hi-lo > 1e-10 {
		mid := (lo + hi) / 2
		if modelDensity(n, math.Exp(mid)) < density {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}

// rate is the power-law rate r^−α of the feature of frequency rank r.
func rate(r float64) float64 {
	if alpha := Alpha; alpha != 1 {
		return math.Pow(r, -alpha)
	}
	return 1 / r
}

// divisors returns the divisors of m in ascending order.
func divisors(m int) []int {
	var small, large []int
	for q := 1; q*q <= m; q++ {
		if m%q == 0 {
			small = append(small, q)
			if q != m/q {
				large = append(large, m/q)
			}
		}
	}
	slices.Reverse(large)
	return append(small, large...)
}

// smallestPrimeFactor returns the smallest prime factor of m ≥ 2.
func smallestPrimeFactor(m int) int {
	for q := 2; q*q <= m; q++ {
		if m%q == 0 {
			return q
		}
	}
	return m
}
