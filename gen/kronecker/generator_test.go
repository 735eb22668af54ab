// Tests of the Kronecker generator: the tuples against a direct, unoptimised
// implementation of the definition in the package doc; invariance under any
// split over ranks and threads; the initiator statistics and the degree skew
// of the graphs; parameter validation.

package kronecker

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// referenceTuple computes tuple k straight from the definition: for every
// level all 32 bits of the tuple's uniform are gathered from the word stream
// and compared in plain integer arithmetic, then the labels are permuted with
// Params.Permute.
func referenceTuple(p Params, k int64, permute bool) graph.Edge {
	key := mix64(p.Seed ^ tupleDomain)
	tA := uint64(threshold32(p.A))
	tAB := uint64(threshold32(p.A + p.B))
	tABC := uint64(threshold32(p.A + p.B + p.C))
	b, lane := uint64(k)/64, uint(uint64(k)%64)
	var u, v int64
	for l := range p.Scale {
		var r uint64
		for j := range 32 {
			c := blockWords*b + uint64(32*l+j)
			w := wymix(key + (c+1)*wyGamma)
			r |= (w >> lane & 1) << (31 - j)
		}
		var ub, vb int64
		switch {
		case r < tA:
		case r < tAB:
			vb = 1
		case r < tABC:
			ub = 1
		default:
			ub, vb = 1, 1
		}
		u, v = u<<1|ub, v<<1|vb
	}
	if permute {
		u, v = p.Permute(u), p.Permute(v)
	}
	return graph.Edge{U: u, V: v}
}

func TestMatchesReference(t *testing.T) {
	for _, scale := range []int{1, 2, 7, 20, 32, 33, 40} {
		p := DefaultParams(scale)
		p.Seed = 0xfeed + uint64(scale)
		p.EdgeFactor = 1024 // enough tuples at the small scales
		// A range that starts and ends inside blocks, plus the last tuples.
		first, n := int64(37), 300
		got := make([]graph.Edge, n)
		p.Generate(first, got)
		raw := make([]graph.Edge, n)
		p.generateRaw(first, raw)
		last := make([]graph.Edge, 3)
		p.Generate(p.NumEdges()-3, last)
		for i := range n {
			k := first + int64(i)
			if want := referenceTuple(p, k, true); got[i] != want {
				t.Fatalf("scale %d tuple %d: got %v, want %v", scale, k, got[i], want)
			}
			if want := referenceTuple(p, k, false); raw[i] != want {
				t.Fatalf("scale %d raw tuple %d: got %v, want %v", scale, k, raw[i], want)
			}
		}
		for i, e := range last {
			k := p.NumEdges() - 3 + int64(i)
			if want := referenceTuple(p, k, true); e != want {
				t.Fatalf("scale %d tuple %d: got %v, want %v", scale, k, e, want)
			}
		}
	}
}

func TestStrideConstants(t *testing.T) {
	g := uint64(wyGamma)
	if levelStride != 32*g {
		t.Errorf("levelStride = %#x, want %#x", uint64(levelStride), 32*g)
	}
	if blockStride != blockWords*g {
		t.Errorf("blockStride = %#x, want %#x", uint64(blockStride), blockWords*g)
	}
}

func TestThreshold32(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want uint32
	}{
		{0, 0},
		{0.5, 1 << 31},
		{0.25, 1 << 30},
		{1, math.MaxUint32},
		{1 - 0x1p-34, math.MaxUint32},
		{0x1p-33, 1}, // rounds half away from zero
		{0x1p-34, 0},
	} {
		if got := threshold32(c.x); got != c.want {
			t.Errorf("threshold32(%v) = %d, want %d", c.x, got, c.want)
		}
	}
	for _, x := range []float64{DefaultA, DefaultA + DefaultB, DefaultA + DefaultB + DefaultC} {
		if d := math.Abs(float64(threshold32(x))/(1<<32) - x); d > 0x1p-32 {
			t.Errorf("threshold32(%v) off by %g", x, d)
		}
	}
}

func TestTranspose64(t *testing.T) {
	var a, orig [64]uint64
	for i := range a {
		a[i] = mix64(uint64(i) + 12345)
	}
	orig = a
	transpose64(&a)
	for i := range 64 {
		for j := range 64 {
			if a[i]>>j&1 != orig[j]>>i&1 {
				t.Fatalf("bit %d of row %d = %d, want bit %d of row %d = %d", j, i, a[i]>>j&1, i, j, orig[j]>>i&1)
			}
		}
	}
	transpose64(&a)
	if a != orig {
		t.Fatal("transposing twice is not the identity")
	}
}

func TestCounts(t *testing.T) {
	for _, c := range []struct {
		scale, ef int
		n, m      int64
	}{
		{1, 1, 2, 2},
		{10, 16, 1024, 16384},
		{20, 16, 1 << 20, 1 << 24},
		{40, 16, 1 << 40, 1 << 44},
	} {
		p := DefaultParams(c.scale)
		p.EdgeFactor = c.ef
		if p.NumVertices() != c.n || p.NumEdges() != c.m {
			t.Errorf("scale %d ef %d: N=%d M=%d, want %d, %d", c.scale, c.ef, p.NumVertices(), p.NumEdges(), c.n, c.m)
		}
	}
	p := DefaultParams(8)
	out := make([]graph.Edge, p.NumEdges())
	p.Generate(0, out) // the whole graph fits exactly
}

func generateAll(p Params) []graph.Edge {
	out := make([]graph.Edge, p.NumEdges())
	p.Generate(0, out)
	return out
}

func TestDeterminism(t *testing.T) {
	p := DefaultParams(12)
	a, b := generateAll(p), generateAll(p)
	if !slices.Equal(a, b) {
		t.Fatal("same parameters gave different tuples")
	}
}

func TestDifferentSeeds(t *testing.T) {
	p := DefaultParams(12)
	a := generateAll(p)
	p.Seed = 2
	b := generateAll(p)
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	// Tuples of two seeds coincide only by chance, which is rare.
	if same > len(a)/100 {
		t.Fatalf("seeds 1 and 2 agree on %d of %d tuples", same, len(a))
	}
	differ := false
	for x := range int64(16) {
		differ = differ || DefaultParams(12).Permute(x) != p.Permute(x)
	}
	if !differ {
		t.Fatal("seeds 1 and 2 give the same permutation")
	}
}

func sortEdges(es []graph.Edge) []graph.Edge {
	s := slices.Clone(es)
	slices.SortFunc(s, func(a, b graph.Edge) int { return cmp.Or(cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V)) })
	return s
}

func TestRankAndThreadInvariance(t *testing.T) {
	p := DefaultParams(11) // 32768 tuples: enough for 5 threads of ≥ 4096
	p.Seed = 77
	want := generateAll(p)
	wantSorted := sortEdges(want)
	for _, size := range []int{1, 2, 3, 7} {
		for _, threads := range []int{1, 2, 5} {
			var got []graph.Edge
			next := int64(0)
			for rank := range size {
				first, count := p.RankRange(rank, size)
				if first != next {
					t.Fatalf("size %d rank %d starts at %d, want %d", size, rank, first, next)
				}
				next += count
				part := make([]graph.Edge, count)
				p.GenerateParallel(first, part, threads)
				got = append(got, part...)
			}
			if next != p.NumEdges() {
				t.Fatalf("size %d: ranges cover [0, %d), want [0, %d)", size, next, p.NumEdges())
			}
			if !slices.Equal(sortEdges(got), wantSorted) {
				t.Fatalf("size %d threads %d: multiset of tuples differs", size, threads)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("size %d threads %d: tuple order differs", size, threads)
			}
		}
	}
	// Threads ≤ 0 means GOMAXPROCS; odd, unaligned ranges.
	got := make([]graph.Edge, 20001)
	p.GenerateParallel(4321, got, 0)
	if !slices.Equal(got, want[4321:4321+20001]) {
		t.Fatal("GenerateParallel(threads=0) on an unaligned range differs")
	}
	p.GenerateParallel(4321, got, 3)
	if !slices.Equal(got, want[4321:4321+20001]) {
		t.Fatal("GenerateParallel(threads=3) on an unaligned range differs")
	}
}

func TestRankRange(t *testing.T) {
	for _, scale := range []int{1, 3, 10} {
		p := DefaultParams(scale)
		p.EdgeFactor = 3
		m := p.NumEdges()
		for _, size := range []int{1, 2, 3, 5, 7, 64, 1000} {
			next, lo, hi := int64(0), m, int64(0)
			for rank := range size {
				first, count := p.RankRange(rank, size)
				if first != next || count < 0 {
					t.Fatalf("scale %d size %d rank %d: [%d, +%d), want start %d", scale, size, rank, first, count, next)
				}
				next += count
				lo, hi = min(lo, count), max(hi, count)
			}
			if next != m || hi-lo > 1 {
				t.Fatalf("scale %d size %d: cover %d of %d, counts %d..%d", scale, size, next, m, lo, hi)
			}
		}
	}
	for _, c := range [][2]int{{0, 0}, {-1, 2}, {2, 2}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RankRange(%d, %d) did not panic", c[0], c[1])
				}
			}()
			DefaultParams(4).RankRange(c[0], c[1])
		}()
	}
}

func TestIDsInRange(t *testing.T) {
	for _, scale := range []int{1, 2, 3, 9, 14} {
		p := DefaultParams(scale)
		n := p.NumVertices()
		seen := make(map[int64]bool)
		for _, e := range generateAll(p) {
			if e.U < 0 || e.U >= n || e.V < 0 || e.V >= n {
				t.Fatalf("scale %d: tuple %v outside [0, %d)", scale, e, n)
			}
			seen[e.U] = true
		}
		if scale == 1 && len(seen) != 2 {
			t.Fatalf("scale 1: sources %v, want both vertices", seen)
		}
	}
	// Large scales: a sample.
	for _, scale := range []int{32, 40} {
		p := DefaultParams(scale)
		out := make([]graph.Edge, 1000)
		p.Generate(p.NumEdges()/3, out)
		var or int64
		for _, e := range out {
			if e.U < 0 || e.U >= p.NumVertices() || e.V < 0 || e.V >= p.NumVertices() {
				t.Fatalf("scale %d: tuple %v out of range", scale, e)
			}
			or |= e.U | e.V
		}
		if or != p.NumVertices()-1 {
			t.Fatalf("scale %d: ids use bits %#x, want all of %#x", scale, or, p.NumVertices()-1)
		}
	}
}

// TestInitiatorFrequencies checks, before the permutation, that at every
// level the quadrant (u bit, v bit) has the initiator's probabilities, within
// 5 standard deviations of the binomial count.
func TestInitiatorFrequencies(t *testing.T) {
	p := DefaultParams(16)
	p.Seed = 2026
	raw := make([]graph.Edge, p.NumEdges())
	p.generateRaw(0, raw)
	n := float64(len(raw))
	probs := [4]float64{p.A, p.B, p.C, 1 - p.A - p.B - p.C}
	for l := range p.Scale {
		shift := p.Scale - 1 - l
		var counts [4]int
		for _, e := range raw {
			counts[(e.U>>shift&1)<<1|e.V>>shift&1]++
		}
		for q, c := range counts {
			mean := n * probs[q]
			sigma := math.Sqrt(n * probs[q] * (1 - probs[q]))
			if z := (float64(c) - mean) / sigma; math.Abs(z) > 5 {
				t.Errorf("level %d quadrant %02b: %d of %.0f tuples (%.4f, want %.4f, z = %.1f)",
					l, q, c, n, float64(c)/n, probs[q], z)
			}
		}
	}
	// Other initiators are honoured too.
	p = Params{Scale: 4, EdgeFactor: 1 << 14, Seed: 3, A: 0.25, B: 0.25, C: 0.25}
	raw = make([]graph.Edge, p.NumEdges())
	p.generateRaw(0, raw)
	var counts [4]int
	for _, e := range raw {
		counts[(e.U>>3&1)<<1|e.V>>3&1]++
	}
	for q, c := range counts {
		if z := (float64(c) - float64(len(raw))/4) / math.Sqrt(float64(len(raw))*3/16); math.Abs(z) > 5 {
			t.Errorf("uniform initiator: quadrant %02b has %d of %d (z = %.1f)", q, c, len(raw), z)
		}
	}
}

func TestDegreeSkew(t *testing.T) {
	p := DefaultParams(16)
	es := generateAll(p)
	deg := make([]int64, p.NumVertices())
	for _, e := range es {
		deg[e.U]++
		deg[e.V]++
	}
	mean := 2 * float64(len(es)) / float64(len(deg))
	maxDeg, isolated := int64(0), 0
	for _, d := range deg {
		maxDeg = max(maxDeg, d)
		if d == 0 {
			isolated++
		}
	}
	ratio := float64(maxDeg) / mean
	frac := float64(isolated) / float64(len(deg))
	t.Logf("scale 16: mean degree %.1f, max %d (×%.0f), isolated %.1f%%", mean, maxDeg, ratio, 100*frac)
	if ratio < 20 {
		t.Errorf("max degree %d is only %.1f× the mean %.1f", maxDeg, ratio, mean)
	}
	if frac < 0.1 {
		t.Errorf("only %.1f%% of the vertices are isolated", 100*frac)
	}
	// The permutation spreads the heaviest vertices over the id space
	// instead of leaving them at the smallest ids.
	ids := make([]int64, len(deg))
	for i := range ids {
		ids[i] = int64(i)
	}
	slices.SortFunc(ids, func(a, b int64) int { return cmp.Compare(deg[b], deg[a]) })
	top := ids[:len(ids)/100]
	low := 0
	for _, id := range top {
		if id < p.NumVertices()/2 {
			low++
		}
	}
	if f := float64(low) / float64(len(top)); f < 0.35 || f > 0.65 {
		t.Errorf("%.0f%% of the top 1%% degree vertices are in the lower half of the ids", 100*f)
	}
}

func TestSelfLoopsAndDuplicatesKept(t *testing.T) {
	p := DefaultParams(10)
	es := generateAll(p)
	loops := 0
	seen := make(map[graph.Edge]bool, len(es))
	dups := 0
	for _, e := range es {
		if e.U == e.V {
			loops++
		}
		if seen[e] {
			dups++
		}
		seen[e] = true
	}
	t.Logf("scale 10: %d self-loops, %d repeated tuples of %d", loops, dups, len(es))
	if loops == 0 || dups == 0 {
		t.Fatalf("scale 10: %d self-loops and %d duplicates; both should occur", loops, dups)
	}
}

func TestValidate(t *testing.T) {
	for scale := 1; scale <= MaxScale; scale++ {
		if err := DefaultParams(scale).Validate(); err != nil {
			t.Errorf("DefaultParams(%d): %v", scale, err)
		}
	}
	bad := []struct {
		name string
		edit func(*Params)
		want string
	}{
		{"scale 0", func(p *Params) { p.Scale = 0 }, "scale 0"},
		{"scale 41", func(p *Params) { p.Scale = 41 }, "scale 41"},
		{"edgefactor 0", func(p *Params) { p.EdgeFactor = 0 }, "edgefactor 0"},
		{"edgefactor negative", func(p *Params) { p.EdgeFactor = -16 }, "edgefactor -16"},
		{"edgefactor overflow", func(p *Params) { p.Scale = 40; p.EdgeFactor = 1 << 23 }, "overflows"},
		{"A zero", func(p *Params) { p.A = 0 }, "A = 0"},
		{"B one", func(p *Params) { p.B = 1 }, "B = 1"},
		{"C negative", func(p *Params) { p.C = -0.1 }, "C = -0.1"},
		{"A NaN", func(p *Params) { p.A = math.NaN() }, "A = NaN"},
		{"sum one", func(p *Params) { p.A, p.B, p.C = 0.5, 0.25, 0.25 }, "A+B+C"},
		{"sum above one", func(p *Params) { p.A, p.B, p.C = 0.6, 0.3, 0.3 }, "A+B+C"},
	}
	for _, c := range bad {
		p := DefaultParams(10)
		c.edit(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want an error mentioning %q", c.name, err, c.want)
		}
	}
	if err := (Params{}).Validate(); err == nil {
		t.Error("zero Params validated")
	}
}

func TestGeneratePanics(t *testing.T) {
	p := DefaultParams(4)
	cases := map[string]func(){
		"negative first": func() { p.Generate(-1, make([]graph.Edge, 1)) },
		"past the end":   func() { p.Generate(p.NumEdges()-1, make([]graph.Edge, 2)) },
		"invalid params": func() { Params{}.Generate(0, make([]graph.Edge, 1)) },
		"parallel":       func() { p.GenerateParallel(p.NumEdges(), make([]graph.Edge, 1), 2) },
	}
	for name, f := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	p.Generate(p.NumEdges(), nil) // an empty range at the end is fine
}

func TestGenerateDoesNotAllocate(t *testing.T) {
	p := DefaultParams(20)
	out := make([]graph.Edge, 1000)
	if n := testing.AllocsPerRun(10, func() { p.Generate(12345, out) }); n != 0 {
		t.Fatalf("Generate allocates %v times per call", n)
	}
}

// TestShareReadsTheRankRange checks that a share's chunks, read in any order
// and size, are the tuples of its rank's range.
func TestShareReadsTheRankRange(t *testing.T) {
	p := DefaultParams(10)
	all := generateAll(p)
	for _, size := range []int{1, 3, 8} {
		var got []graph.Edge
		for r := range size {
			s := p.Share(r, size, 2)
			first, count := p.RankRange(r, size)
			if s.Len() != count || s.First() != first {
				t.Fatalf("rank %d of %d: share [%d,+%d), want [%d,+%d)", r, size, s.First(), s.Len(), first, count)
			}
			buf := make([]graph.Edge, 0, count)
			for lo := int64(0); lo < count; lo += 777 {
				chunk := make([]graph.Edge, min(777, count-lo))
				if err := s.Read(context.Background(), lo, chunk); err != nil {
					t.Fatal(err)
				}
				buf = append(buf, chunk...)
			}
			got = append(got, buf...)
		}
		if !slices.Equal(got, all) {
			t.Fatalf("%d ranks: the shares are not the tuple list", size)
		}
	}
	s := p.Share(0, 2, 1)
	if err := s.Read(context.Background(), s.Len()-1, make([]graph.Edge, 2)); err == nil {
		t.Fatal("read past the share accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Read(ctx, 0, make([]graph.Edge, 2)); err == nil {
		t.Fatal("cancelled read succeeded")
	}
}

// TestShareEdgesScansTheRankRange checks that Share.Edges hands out the
// rank's range in order on every scan, and stops on a cancelled context.
func TestShareEdgesScansTheRankRange(t *testing.T) {
	p := DefaultParams(12)
	all := generateAll(p)
	for _, size := range []int{1, 3} {
		var got []graph.Edge
		for r := range size {
			e := p.Share(r, size, 2).Edges()
			for pass := range 2 {
				var share []graph.Edge
				err := e.Scan(context.Background(), func(c []graph.Edge) error { share = append(share, c...); return nil })
				if err != nil {
					t.Fatal(err)
				}
				first, count := p.RankRange(r, size)
				if !slices.Equal(share, all[first:first+count]) {
					t.Fatalf("rank %d of %d, pass %d: the scan is not the rank's range", r, size, pass)
				}
				if pass == 0 {
					got = append(got, share...)
				}
			}
		}
		if !slices.Equal(got, all) {
			t.Fatalf("%d ranks: the scans are not the tuple list", size)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Share(0, 1, 1).Edges().Scan(ctx, func([]graph.Edge) error { return nil }); err == nil {
		t.Fatal("cancelled scan succeeded")
	}
}
