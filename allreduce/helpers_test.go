package allreduce

import (
	"math"
	"math/rand/v2"
	"slices"
)

// dataset is the input of one sparse allreduce job: per rank, its IN and
// OUT sets and the values it contributes.
type dataset struct {
	p    int
	n    int64
	ins  [][]int64
	outs [][]int64
	vals [][]float64
}

// setKind is a way to draw one rank's index set.
type setKind int

const (
	setEmpty setKind = iota
	setFull
	setSparse
	setPowerLaw
	setSingle
	numSetKinds
)

// drawSet draws a sorted unique subset of [0, n) of the given kind. perm
// maps frequency ranks to indices for power-law sets.
func drawSet(rng *rand.Rand, kind setKind, n int64, perm []int64) []int64 {
	return drawSetDensity(rng, kind, n, perm, 1)
}

// drawSetDensity is drawSet with sparse and power-law sets kept below about
// maxDensity (to bound the work of large jobs).
func drawSetDensity(rng *rand.Rand, kind setKind, n int64, perm []int64, maxDensity float64) []int64 {
	switch kind {
	case setEmpty:
		return []int64{}
	case setFull:
		s := make([]int64, n)
		for i := range s {
			s[i] = int64(i)
		}
		return s
	case setSingle:
		return []int64{rng.Int64N(n)}
	case setSparse:
		density := maxDensity * rng.Float64() * rng.Float64()
		return bernoulliSet(rng, n, func(int64) float64 { return density }, nil)
	default: // power law: rank r present with probability 1 − exp(−λ/r)
		// D(λ) ≤ λ·H_n/n, so λ ≤ maxDensity·n/H_n keeps the density below.
		lam := min(math.Exp(rng.Float64()*8-2), maxDensity*float64(n)/(math.Log(float64(n))+1))
		s := bernoulliSet(rng, n, func(r int64) float64 { return -math.Expm1(-lam / float64(r+1)) }, perm)
		slices.Sort(s)
		return s
	}
}

// randomDataset draws a job of p ranks over n indices. Jobs with p·n above
// 200000 get no full sets and sparser sets, so that every job handles a
// similar number of indices.
func randomDataset(rng *rand.Rand, p int, n int64) *dataset {
	maxDensity := min(1, 200000/(float64(p)*float64(n)))
	perm := make([]int64, n)
	for i := range perm {
		perm[i] = int64(i)
	}
	rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	d := &dataset{p: p, n: n, ins: make([][]int64, p), outs: make([][]int64, p), vals: make([][]float64, p)}
	// A job-wide bias makes some jobs mostly power-law, some mostly empty, ...
	bias := setKind(rng.IntN(int(numSetKinds)))
	pick := func() setKind {
		k := bias
		if rng.IntN(2) == 0 {
			k = setKind(rng.IntN(int(numSetKinds)))
		}
		if k == setFull && maxDensity < 1 {
			k = setSparse
		}
		return k
	}
	for r := range p {
		d.ins[r] = drawSetDensity(rng, pick(), n, perm, maxDensity)
		d.outs[r] = drawSetDensity(rng, pick(), n, perm, maxDensity)
		d.vals[r] = randomValues(rng, len(d.outs[r]))
	}
	return d
}

func randomValues(rng *rand.Rand, m int) []float64 {
	v := make([]float64, m)
	for i := range v {
		v[i] = rng.Float64()*2 - 1
	}
	return v
}

// serialSums returns, for every index, the sum of the contributions in rank
// order, the sum of their absolute values, and whether any rank contributes
// or wants the index.
func (d *dataset) serialSums(vals [][]float64) (sum, abs []float64, used []bool) {
	sum = make([]float64, d.n)
	abs = make([]float64, d.n)
	used = make([]bool, d.n)
	for r := range d.p {
		for t, i := range d.outs[r] {
			sum[i] += vals[r][t]
			abs[i] += math.Abs(vals[r][t])
			used[i] = true
		}
		for _, i := range d.ins[r] {
			used[i] = true
		}
	}
	return sum, abs, used
}

// near reports whether got equals want within 1e-12 relative to the sum of
// the absolute contributions (exactly, when there are none).
func near(got, want, abs float64) bool {
	return math.Abs(got-want) <= 1e-12*abs
}

// footprint is the capacity in bytes of every buffer a Reduce uses.
func (p *plan) footprint() int {
	total := 8 * (cap(p.sums) + cap(p.scalarSums))
	for l := range p.outVals {
		total += 8 * (cap(p.outVals[l]) + cap(p.inVals[l]))
	}
	for i := range p.layers {
		ly := &p.layers[i]
		for r := range ly.send {
			total += cap(ly.send[r]) + cap(ly.recv[r])
		}
	}
	return total
}

// bufferAddrs identifies the backing arrays of the message buffers.
func (p *plan) bufferAddrs() []*byte {
	var addrs []*byte
	for i := range p.layers {
		ly := &p.layers[i]
		for _, bufs := range [][][]byte{ly.send, ly.recv} {
			for _, b := range bufs {
				if cap(b) > 0 {
					addrs = append(addrs, &b[:1][0])
				}
			}
		}
	}
	return addrs
}

// bernoulliSet draws each i in [0, n) with probability prob(i), prob being
// non-increasing, and returns the drawn i (mapped through perm if not nil).
// Over blocks [lo, 2lo) it skips geometrically with the block's largest
// probability and thins by prob(i)/that, so it costs O(set size + log n)
// random draws rather than n.
func bernoulliSet(rng *rand.Rand, n int64, prob func(i int64) float64, perm []int64) []int64 {
	var s []int64
	add := func(i int64) {
		if perm != nil {
			i = perm[i]
		}
		s = append(s, i)
	}
	for lo := int64(0); lo < n; lo = 2*lo + 1 {
		hi := min(n, 2*lo+1)
		q := prob(lo)
		if q <= 0 {
			break
		}
		if q >= 0.5 {
			for i := lo; i < hi; i++ {
				if rng.Float64() < prob(i) {
					add(i)
				}
			}
			continue
		}
		for i := lo; ; i++ {
			// Skip Geometric(q) failures.
			skip := math.Log(1-rng.Float64()) / math.Log1p(-q)
			if float64(i)+skip >= float64(hi) {
				break
			}
			i += int64(skip)
			if rng.Float64()*q < prob(i) {
				add(i)
			}
		}
	}
	return s
}
