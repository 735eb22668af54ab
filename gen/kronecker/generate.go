// This file holds the tuple generator: the counter-based word stream, the
// bit-sliced quadrant descent of 64 tuples at a time, and its sequential and
// multi-threaded drivers (see the package doc, "Random numbers").

package kronecker

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"

	"github.com/graphrun/graphrun/graph"
)

// gamma is SplitMix64's stream increment (2^64/φ, odd).
const gamma = 0x9e3779b97f4a7c15

// mix64 is SplitMix64's output function (Stafford's "Mix13" variant of the
// MurmurHash3 finaliser): a bijection of uint64 with good avalanche.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// threshold32 converts a cumulative probability to a threshold on 32-bit
// uniforms: P(r < threshold32(x)) = threshold32(x)/2^32, which is x rounded to
// the nearest multiple of 2^-32 (and kept below 1), so within 2^-32 of x.
func threshold32(x float64) uint32 {
	t := math.Round(x * (1 << 32))
	return uint32(max(0, min(t, 1<<32-1)))
}

// lanes is the number of tuples generated together, one per bit of a word.
const lanes = 64

// generator is Params expanded into what the hot loop needs.
type generator struct {
	key     uint64         // start state of the graph's word stream, derived from the seed
	tm      thresholdMasks // cumulative thresholds on 32-bit uniforms, bit by bit
	scale   int
	permute bool // apply the label permutation
	perm    perm
}

func (p Params) generator(permute bool) generator {
	return generator{
		key:     mix64(p.Seed ^ tupleDomain),
		tm:      newThresholdMasks(threshold32(p.A), threshold32(p.A+p.B), threshold32(p.A+p.B+p.C)),
		scale:   p.Scale,
		permute: permute,
		perm:    newPerm(p.Scale, p.Seed),
	}
}

// wyGamma and wyXor are the constants of wyrand (Wang Yi's wyhash PRNG).
const (
	wyGamma = 0xa0761d6478bd642f
	wyXor   = 0xe7037ed1a0b428db
)

// Word c of a graph's stream is wymix(key + (c+1)·wyGamma). Block b's level
// l uses words c = blockWords·b + 32·l + j for j = 0 … 31, so the words of
// all blocks and levels are distinct; the strides below advance the state by
// one level and one block.
const (
	blockWords  = 2048               // ≥ 32·MaxScale
	levelStride = 0x0ec3ac8f17ac85e0 // 32·wyGamma mod 2^64
	blockStride = 0xb0eb23c5eb217800 // blockWords·wyGamma mod 2^64
)

// A block must have words for 32 bits at each of up to MaxScale levels
// (this fails to compile otherwise).
const _ = uint(blockWords - 32*MaxScale)

// wymix is wyrand's output function of the Weyl state s: the xor of the two
// halves of the 128-bit product s·(s ⊕ wyXor).
func wymix(s uint64) uint64 {
	hi, lo := bits.Mul64(s, s^wyXor)
	return hi ^ lo
}

// compare3 decides one level for the 64 tuples of a block. Lane i's 32-bit
// uniform r_i has bit 31−j equal to bit i of the level's word j, which is
// wymix(s + (j+1)·wyGamma); the results are the lane masks of
// r_i < tA, r_i < tAB and r_i < tABC. The comparison runs from the most
// significant bit down, tracking per threshold the lanes whose prefix still
// equals the threshold's: a lane leaves that set at its first differing bit,
// being below the threshold if its bit is 0 where the threshold's is 1. It
// stops once every lane is decided for all three thresholds (after about 9
// words: a lane stays undecided after n bits with probability 2^-n), and
// lanes still undecided after 32 bits equal the threshold, so are not below it.
func compare3(s uint64, tm *thresholdMasks) (ltA, ltAB, ltABC uint64) {
	undA, undAB, undABC := ^uint64(0), ^uint64(0), ^uint64(0)
	for j := range tm {
		// Hardly ever are all lanes decided within the first few bits (it
		// takes about 9), so the end is not tested for before.
		if j >= unchecked && undA|undAB|undABC == 0 {
			break
		}
		s += wyGamma
		nr := ^wymix(s)
		t := &tm[j]
		// Where the threshold bit is 1, undecided lanes with bit 0 fall
		// below it; lanes stay undecided where their bit equals the
		// threshold's, that is where nr ⊕ t is all ones.
		ltA |= undA & nr & t[0]
		undA &= nr ^ t[0]
		ltAB |= undAB & nr & t[1]
		undAB &= nr ^ t[1]
		ltABC |= undABC & nr & t[2]
		undABC &= nr ^ t[2]
	}
	return ltA, ltAB, ltABC
}

// unchecked is how many bits compare3 compares before it starts testing
// whether all lanes are decided.
const unchecked = 6

// thresholdMasks spreads the bits of tA, tAB, tABC, most significant first,
// over whole words: tm[j][x] is all ones if bit 31−j of threshold x is 1.
type thresholdMasks [32][3]uint64

func newThresholdMasks(tA, tAB, tABC uint32) thresholdMasks {
	var tm thresholdMasks
	for j := range tm {
		for x, t := range [3]uint32{tA, tAB, tABC} {
			tm[j][x] = -uint64(t >> (31 - j) & 1)
		}
	}
	return tm
}

// transpose64 transposes the 64×64 bit matrix a in place: afterwards bit j
// of a[i] is what bit i of a[j] was (bits numbered from the least
// significant). It is the recursive block-swap transposition (Hacker's
// Delight §7-3): stages swapping the off-diagonal j×j blocks of every 2j×2j
// diagonal block, for j = 32, 16, …, 1. Stages 32, 16, 8 only pair rows whose
// indices are equal mod 8 and stages 4, 2, 1 only rows in the same group of 8,
// so both halves run as sixteen 8-row networks whose rows stay in registers.
func transpose64(a *[64]uint64) {
	for k := range 8 {
		transposeOuter(a, k)
	}
	for g := range 8 {
		transposeInner(a, 8*g)
	}
}

// swapBits swaps the bits of lo selected by m<<j with the bits of hi
// selected by m.
func swapBits(lo, hi uint64, j uint, m uint64) (uint64, uint64) {
	t := ((lo >> j) ^ hi) & m
	return lo ^ t<<j, hi ^ t
}

// transposeOuter runs stages 32, 16, 8 of transpose64 on rows k, k+8, …, k+56.
func transposeOuter(a *[64]uint64, k int) {
	r0, r1, r2, r3 := a[k&63], a[(k+8)&63], a[(k+16)&63], a[(k+24)&63]
	r4, r5, r6, r7 := a[(k+32)&63], a[(k+40)&63], a[(k+48)&63], a[(k+56)&63]
	const m32, m16, m8 = 0x00000000ffffffff, 0x0000ffff0000ffff, 0x00ff00ff00ff00ff
	r0, r4 = swapBits(r0, r4, 32, m32)
	r1, r5 = swapBits(r1, r5, 32, m32)
	r2, r6 = swapBits(r2, r6, 32, m32)
	r3, r7 = swapBits(r3, r7, 32, m32)
	r0, r2 = swapBits(r0, r2, 16, m16)
	r1, r3 = swapBits(r1, r3, 16, m16)
	r4, r6 = swapBits(r4, r6, 16, m16)
	r5, r7 = swapBits(r5, r7, 16, m16)
	r0, r1 = swapBits(r0, r1, 8, m8)
	r2, r3 = swapBits(r2, r3, 8, m8)
	r4, r5 = swapBits(r4, r5, 8, m8)
	r6, r7 = swapBits(r6, r7, 8, m8)
	a[k&63], a[(k+8)&63], a[(k+16)&63], a[(k+24)&63] = r0, r1, r2, r3
	a[(k+32)&63], a[(k+40)&63], a[(k+48)&63], a[(k+56)&63] = r4, r5, r6, r7
}

// transposeInner runs stages 4, 2, 1 of transpose64 on rows g … g+7.
func transposeInner(a *[64]uint64, g int) {
	r0, r1, r2, r3 := a[g&63], a[(g+1)&63], a[(g+2)&63], a[(g+3)&63]
	r4, r5, r6, r7 := a[(g+4)&63], a[(g+5)&63], a[(g+6)&63], a[(g+7)&63]
	const m4, m2, m1 = 0x0f0f0f0f0f0f0f0f, 0x3333333333333333, 0x5555555555555555
	r0, r4 = swapBits(r0, r4, 4, m4)
	r1, r5 = swapBits(r1, r5, 4, m4)
	r2, r6 = swapBits(r2, r6, 4, m4)
	r3, r7 = swapBits(r3, r7, 4, m4)
	r0, r2 = swapBits(r0, r2, 2, m2)
	r1, r3 = swapBits(r1, r3, 2, m2)
	r4, r6 = swapBits(r4, r6, 2, m2)
	r5, r7 = swapBits(r5, r7, 2, m2)
	r0, r1 = swapBits(r0, r1, 1, m1)
	r2, r3 = swapBits(r2, r3, 1, m1)
	r4, r5 = swapBits(r4, r5, 1, m1)
	r6, r7 = swapBits(r6, r7, 1, m1)
	a[g&63], a[(g+1)&63], a[(g+2)&63], a[(g+3)&63] = r0, r1, r2, r3
	a[(g+4)&63], a[(g+5)&63], a[(g+6)&63], a[(g+7)&63] = r4, r5, r6, r7
}

// block computes the raw (unpermuted) tuples of block b, that is tuples
// 64b … 64b+63. Level l of the descent (l = 0 the most significant bit)
// uses words blockWords·b + 32l + j. If Scale ≤ 32, lane i's tuple is packed
// as u = lo[i] & (2^32−1), v = lo[i] >> 32 and hi is not used; otherwise it is
// (lo[i], hi[i]).
func (g *generator) block(b uint64, lo, hi *[lanes]uint64) {
	s := g.key + b*blockStride
	scale := g.scale
	tm := &g.tm
	if scale <= 32 {
		// Row scale−1−l holds the row bits of level l and row 32+scale−1−l
		// the column bits, so after one transposition lane i's word is
		// v<<32 | u.
		*lo = [lanes]uint64{}
		for l := range scale {
			ltA, ltAB, ltABC := compare3(s, tm)
			s += levelStride
			lo[(scale-1-l)&63] = ^ltAB
			lo[(32+scale-1-l)&63] = ^(ltA ^ ltAB ^ ltABC)
		}
		transpose64(lo)
		return
	}
	*lo, *hi = [lanes]uint64{}, [lanes]uint64{}
	for l := range scale {
		ltA, ltAB, ltABC := compare3(s, tm)
		s += levelStride
		lo[(scale-1-l)&63] = ^ltAB
		hi[(scale-1-l)&63] = ^(ltA ^ ltAB ^ ltABC)
	}
	transpose64(lo)
	transpose64(hi)
}

// fill writes tuples first, first+1, … into out. It is the hot loop: no
// allocation, no interface or indirect calls. Blocks that straddle the ends
// of the range are computed whole and only their lanes inside it kept.
func (g *generator) fill(first int64, out []graph.Edge) {
	var lo, hi [lanes]uint64
	pm := g.perm
	if !g.permute {
		pm = perm{mask: pm.mask, shift: 63, mul: [permRounds]uint64{1, 1, 1}} // the identity
	}
	for len(out) > 0 {
		b := uint64(first) / lanes
		i0 := uint64(first) % lanes
		n := min(lanes-int(i0), len(out))
		g.block(b, &lo, &hi)
		if g.scale <= 32 {
			pm.applyPacked(&lo, i0, out[:n])
		} else {
			for i := range out[:n] {
				j := (i0 + uint64(i)) & 63
				out[i] = graph.Edge{U: int64(pm.apply(lo[j])), V: int64(pm.apply(hi[j]))}
			}
		}
		out = out[n:]
		first += int64(n)
	}
}

// checkRange panics unless p is valid and [first, first+n) ⊆ [0, NumEdges()).
func (p Params) checkRange(first int64, n int) {
	if err := p.Validate(); err != nil {
		panic(err)
	}
	if first < 0 || first > p.NumEdges()-int64(n) {
		panic(fmt.Sprintf("kronecker: tuple range [%d, %d) outside [0, %d)", first, first+int64(n), p.NumEdges()))
	}
}

// Generate fills out with tuples first, first+1, …, first+len(out)−1 of the
// graph, in one goroutine. Tuple k depends only on p and k, so any split of
// [0, NumEdges()) into calls yields the same graph. It panics if p is invalid
// (see Validate) or the range is not inside [0, NumEdges()).
func (p Params) Generate(first int64, out []graph.Edge) {
	p.checkRange(first, len(out))
	g := p.generator(!p.Unpermuted)
	g.fill(first, out)
}

// generateRaw is Generate without the label permutation: vertex ids are the
// raw quadrant-descent results, with the initiator bias visible bit by bit
// (used by the tests).
func (p Params) generateRaw(first int64, out []graph.Edge) {
	p.checkRange(first, len(out))
	g := p.generator(false)
	g.fill(first, out)
}

// minPerThread is the smallest number of tuples worth a goroutine.
const minPerThread = 4096

// GenerateParallel is Generate with the range split into `threads`
// contiguous, balanced pieces generated by as many goroutines (threads ≤ 0
// means runtime.GOMAXPROCS(0)). Pieces are at least a few thousand tuples, so
// short ranges use fewer goroutines, and split at block boundaries, so no
// block is computed twice. The result is identical to Generate's.
func (p Params) GenerateParallel(first int64, out []graph.Edge, threads int) {
	p.checkRange(first, len(out))
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = max(1, min(threads, len(out)/minPerThread))
	g := p.generator(!p.Unpermuted)
	if threads == 1 {
		g.fill(first, out)
		return
	}
	// split returns the offset in out where piece t starts: the balanced
	// point rounded down to a block boundary, kept inside the range.
	n := int64(len(out))
	split := func(t int) int {
		x := (first + int64(t)*n/int64(threads)) &^ (lanes - 1)
		return int(min(max(x, first), first+n) - first)
	}
	var wg sync.WaitGroup
	for t := range threads {
		lo, hi := split(t), split(t+1)
		if t == threads-1 {
			hi = len(out)
		}
		wg.Go(func() { g.fill(first+int64(lo), out[lo:hi]) })
	}
	wg.Wait()
}
