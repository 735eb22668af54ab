// This file holds the keyed bijection of [0, 2^Scale) that relabels the
// vertices of the generated graph (see the package doc, "Label permutation").

package kronecker

import "github.com/graphrun/graphrun/graph"

// permRounds is the number of multiply / xor-shift / add rounds.
const permRounds = 3

// applyPacked is unrolled for three rounds (this fails to compile otherwise).
var _ = [1]struct{}{}[permRounds-3]

// perm is the label permutation of one (Scale, Seed), with its keys expanded.
type perm struct {
	mask  uint64             // 2^Scale − 1
	shift uint               // xor-shift distance ⌊Scale/2⌋, or 63 (a no-op on Scale-bit values) when that is 0
	scale uint               // Scale
	mul   [permRounds]uint64 // odd multipliers
	inv   [permRounds]uint64 // their inverses modulo 2^64
	add   [permRounds]uint64 // additive keys (only the low Scale bits matter)
}

// Domain-separation constants: the seed is mixed with a different constant
// for each use so that the permutation keys and the tuple streams are
// unrelated even for the same seed.
const (
	permDomain  = 0x6a09e667f3bcc908 // fractional bits of √2
	tupleDomain = 0xbb67ae8584caa73b // fractional bits of √3
)

// newPerm expands the permutation keys of a graph of the given scale and seed.
func newPerm(scale int, seed uint64) perm {
	p := perm{
		mask:  uint64(1)<<uint(scale) - 1,
		shift: uint(scale / 2),
		scale: uint(scale),
	}
	if p.shift == 0 {
		p.shift = 63
	}
	s := mix64(seed ^ permDomain)
	for r := range permRounds {
		s += gamma
		p.mul[r] = mix64(s) | 1
		p.inv[r] = inverseOdd(p.mul[r])
		s += gamma
		p.add[r] = mix64(s)
	}
	return p
}

// inverseOdd returns the multiplicative inverse of the odd number m modulo
// 2^64 by Newton's iteration (x starts correct to 3 bits, and each step
// doubles the number of correct bits: 3, 6, 12, 24, 48, 96).
func inverseOdd(m uint64) uint64 {
	x := m
	for range 5 {
		x *= 2 - m*x
	}
	return x
}

// apply maps x in [0, 2^Scale) to its new label.
func (p *perm) apply(x uint64) uint64 {
	m, sh := p.mask, p.shift&63
	for r := range permRounds {
		x = (x * p.mul[r]) & m
		x ^= x >> sh
		x += p.add[r]
	}
	return x & m
}

// applyPacked writes to out the tuples packed in ws[i0:] (u in the low 32
// bits, v in the high; see generator.block), each label permuted. It is
// apply unrolled, on both labels at once, so that their multiplication
// chains overlap.
func (p *perm) applyPacked(ws *[lanes]uint64, i0 uint64, out []graph.Edge) {
	m, sh := p.mask, p.shift&63
	m0, m1, m2 := p.mul[0], p.mul[1], p.mul[2]
	a0, a1, a2 := p.add[0], p.add[1], p.add[2]
	for i := range out {
		w := ws[(i0+uint64(i))&63]
		u, v := w&0xffffffff, w>>32
		u, v = (u*m0)&m, (v*m0)&m
		u, v = u^u>>sh, v^v>>sh
		u, v = ((u+a0)*m1)&m, ((v+a0)*m1)&m
		u, v = u^u>>sh, v^v>>sh
		u, v = ((u+a1)*m2)&m, ((v+a1)*m2)&m
		u, v = u^u>>sh, v^v>>sh
		out[i] = graph.Edge{U: int64((u + a2) & m), V: int64((v + a2) & m)}
	}
}

// unapply is the inverse of apply.
func (p *perm) unapply(x uint64) uint64 {
	m := p.mask
	for r := permRounds - 1; r >= 0; r-- {
		x = (x - p.add[r]) & m
		// Undo x ^= x>>s: y ^ y>>s ^ y>>2s ^ y>>3s ^ … by doubling.
		for t := p.shift; t < p.scale; t *= 2 {
			x ^= x >> t
		}
		x = (x * p.inv[r]) & m
	}
	return x
}

// Permute returns the label of raw vertex x under the graph's permutation
// (the bijection of [0, NumVertices()) applied to every generated tuple).
// x must be in [0, NumVertices()); only its low Scale bits are used.
func (p Params) Permute(x int64) int64 {
	pm := newPerm(p.Scale, p.Seed)
	return int64(pm.apply(uint64(x) & pm.mask))
}

// Unpermute is the inverse of Permute: Unpermute(Permute(x)) == x for every
// x in [0, NumVertices()).
func (p Params) Unpermute(y int64) int64 {
	pm := newPerm(p.Scale, p.Seed)
	return int64(pm.unapply(uint64(y) & pm.mask))
}
