// Package kronecker is graphrun's Graph500 Kronecker graph generator: the
// synthetic input of the benchmark (Graph500 spec, "Graph generation"; Lv et
// al. §VII-A/§VII-B, whose experiments run on Kronecker graphs of SCALE 26
// to 33 with edgefactor 16).
//
// # The graph
//
// A graph of scale S has N = 2^S vertices and M = edgefactor·N edge tuples.
// Each tuple (u, v) is drawn independently by S recursive choices of a
// quadrant of the adjacency matrix with the initiator probabilities
//
//	A = 0.57 for (0,0),  B = 0.19 for (0,1),  C = 0.19 for (1,0),  D = 1−A−B−C = 0.05 for (1,1)
//
// each choice fixing one more bit of u (the row) and v (the column), most
// significant bit first. The result is a power-law graph whose high-degree
// vertices all have small ids; the vertex labels are therefore passed through
// a keyed bijection of [0, N) (Permute) so that the heavy vertices are spread
// over the id space and over the ranks of a 1D partition. The specification
// also asks that the tuple list itself be in random order: here every tuple is
// an independent, identically distributed draw, so the list is already in a
// uniformly random order by construction and no shuffle is needed.
// Duplicate tuples and self-loops are kept, as the benchmark requires (they
// count in the TEPS numerator; kernel 1 drops them when building the CSR).
//
// # Random numbers
//
// The generator is counter based: tuple k is a pure function of (Seed, k)
// (and of the other parameters).
// All random bits of a graph are words of one wyrand stream (Wang Yi's
// generator: a Weyl sequence key + c·γ, γ odd, through a 128-bit
// multiply-xor mix; key is derived from the seed by SplitMix64's mixer), and
// word c is computed directly from c, with no state carried between words.
//
// Tuples are made 64 at a time, bit-sliced: block b holds tuples 64b …
// 64b+63, one per bit lane. At each level of the descent every tuple draws a
// 32-bit uniform r and the quadrant is decided by integer comparison against
//
//	tA = round(A·2^32),  tAB = round((A+B)·2^32),  tABC = round((A+B+C)·2^32)
//
// (r < tA: (0,0); r < tAB: (0,1); r < tABC: (1,0); else (1,1)), so each
// quadrant's probability is realised to within 2^-32 of the parameter, the
// rounding of the thresholds to multiples of 2^-32; there is no floating
// point in the hot loop. For level l of block b, bit 31−j of the uniform of
// the tuple in lane i is bit i of word 2048·b + 32·l + j. The comparisons of
// the 64 lanes are carried out together with word-wide logic, from the most
// significant bit down, and stop once every lane is decided (after about 9 of
// the 32 words; the unread bits could not change any outcome). The 64 row
// bits and 64 column bits of every level are then turned into 64 (u, v)
// pairs by a bit-matrix transposition. This costs a few word operations per
// tuple and level instead of a comparison chain per tuple and level, and was
// measured about 1.5 times as fast at SCALE 20 as drawing two 32-bit
// uniforms per 64-bit word one tuple at a time.
//
// Since no state passes from one block to the next, any rank or thread can
// generate any index range on its own (blocks cut by the ends of a range are
// computed whole and trimmed), and the graph is bit-for-bit the same whatever
// the number of ranks (RankRange) and threads (GenerateParallel).
//
// # Weights
//
// For kernel 3 (single-source shortest paths) tuple k also has a weight,
// uniform in [0, 1) as a float32 (a multiple of 2^-24): the top 24 bits of
// SplitMix64's output for the k-th state of a stream keyed by the seed,
// again a pure function of (Seed, k). Weights are generated only when asked
// for (Weights, Share.ReadWeights), so a BFS-only run makes none.
//
// # Label permutation
//
// Permute is a bijection of the S-bit integers built from three rounds of
//
//	x ← x·m_i mod 2^S;  x ← x ⊕ (x >> ⌊S/2⌋) (when ⌊S/2⌋ ≥ 1);  x ← x + k_i mod 2^S
//
// with odd multipliers m_i and keys k_i derived from the seed. Every step is
// invertible modulo 2^S, and Unpermute applies the inverse steps in reverse
// order. It is cheap enough to be applied inside the generation loop and
// needs no table, so it works at any scale on any rank.
//
// The code is written from the specification, not taken from the Graph500
// reference implementation, whose generator and permutation differ; graphs of
// the same seed therefore differ from the reference's, but follow the same
// distribution.
//
// # References
//
//   - Graph 500 Steering Committee. "Graph500 Benchmark Specification",
//     version 3.0 (section "Graph generation"). Cited as the Graph500 spec.
//   - Jure Leskovec, Deepayan Chakrabarti, Jon Kleinberg, Christos Faloutsos
//     and Zoubin Ghahramani. "Kronecker Graphs: An Approach to Modeling
//     Networks". Journal of Machine Learning Research 11, 2010.
//   - Deepayan Chakrabarti, Yiping Zhan and Christos Faloutsos. "R-MAT: A
//     Recursive Model for Graph Mining". SIAM International Conference on
//     Data Mining (SDM), 2004.
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun. "Compression and
//     Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems". arXiv preprint (Institute of Computing
//     Technology, CAS), 2012. Cited as Lv et al.
//
// REFERENCES.md at the repository root lists every source under the same
// keys.
package kronecker

import (
	"errors"
	"fmt"
	"math"
)

// Default initiator probabilities of the Graph500 specification.
const (
	DefaultA = 0.57
	DefaultB = 0.19
	DefaultC = 0.19
	// DefaultEdgeFactor is the Graph500 edgefactor (tuples per vertex).
	DefaultEdgeFactor = 16
	// MaxScale is the largest scale Validate accepts.
	MaxScale = 40
)

// Params describes one Kronecker graph. The zero value is not valid; start
// from DefaultParams.
type Params struct {
	Scale      int     // log2 of the vertex count, 1..MaxScale
	EdgeFactor int     // tuples per vertex, ≥ 1
	Seed       uint64  // selects the graph; any value is valid
	A, B, C    float64 // initiator probabilities; D = 1 − A − B − C
	// Unpermuted skips the label permutation: vertex ids are the raw
	// quadrant-descent results, so the low ids are the hubs. Such a graph
	// is not a Graph500-conforming input; it is the skewed input on which
	// 2D block placement (NumS's LSHS, package partition) matters.
	Unpermuted bool
}

// DefaultParams returns the Graph500 parameters for the given scale:
// edgefactor 16, A, B, C = 0.57, 0.19, 0.19, and seed 1.
func DefaultParams(scale int) Params {
	return Params{
		Scale:      scale,
		EdgeFactor: DefaultEdgeFactor,
		Seed:       1,
		A:          DefaultA,
		B:          DefaultB,
		C:          DefaultC,
	}
}

// Validate reports whether p describes a graph that can be generated: scale
// in 1..MaxScale, edgefactor ≥ 1 with edgefactor·2^scale representable as an
// int64, each of A, B, C in (0, 1) and A+B+C < 1 (so that D > 0).
func (p Params) Validate() error {
	var errs []error
	if p.Scale < 1 || p.Scale > MaxScale {
		errs = append(errs, fmt.Errorf("scale %d out of range 1..%d", p.Scale, MaxScale))
	}
	if p.EdgeFactor < 1 {
		errs = append(errs, fmt.Errorf("edgefactor %d < 1", p.EdgeFactor))
	} else if p.Scale >= 1 && p.Scale <= MaxScale && int64(p.EdgeFactor) > math.MaxInt64>>p.Scale {
		errs = append(errs, fmt.Errorf("edgefactor %d too large: edgefactor·2^%d overflows int64", p.EdgeFactor, p.Scale))
	}
	for _, q := range []struct {
		name string
		v    float64
	}{{"A", p.A}, {"B", p.B}, {"C", p.C}} {
		if !(q.v > 0 && q.v < 1) {
			errs = append(errs, fmt.Errorf("initiator probability %s = %v not in (0, 1)", q.name, q.v))
		}
	}
	if s := p.A + p.B + p.C; !(s < 1) {
		errs = append(errs, fmt.Errorf("initiator probabilities A+B+C = %v not < 1 (D would be %v)", s, 1-s))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("kronecker: invalid parameters: %w", err)
	}
	return nil
}

// NumVertices returns N = 2^Scale.
func (p Params) NumVertices() int64 { return int64(1) << p.Scale }

// NumEdges returns M = EdgeFactor·2^Scale, the number of tuples.
func (p Params) NumEdges() int64 { return int64(p.EdgeFactor) << p.Scale }

// RankRange returns the contiguous range [first, first+count) of tuple
// indices that rank `rank` of `size` generates. The ranges of ranks
// 0..size-1 are in rank order, differ in length by at most one and cover
// [0, NumEdges()) exactly. It panics if size < 1 or rank is not in [0, size).
func (p Params) RankRange(rank, size int) (first, count int64) {
	if size < 1 || rank < 0 || rank >= size {
		panic(fmt.Sprintf("kronecker: RankRange(%d, %d): need 0 ≤ rank < size", rank, size))
	}
	m := p.NumEdges()
	q, r := m/int64(size), m%int64(size)
	k := int64(rank)
	first = k*q + min(k, r)
	count = q
	if k < r {
		count++
	}
	return first, count
}
