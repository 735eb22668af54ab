package sieve

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// graphsPerShape is how many random graphs of each shape the property tests
// draw (testgraph.Random has testgraph.Shapes shapes).
const graphsPerShape = 8

// TestDirectoryMatchesDefinition checks, on random graphs over 1 to 8 ranks,
// that bit u of V(i,j) is set iff u (owned by j) has a neighbour owned by i,
// for Build with several thread counts and range granularities, for 32- and
// 64-bit columns, and for BuildExchanged, which must give the same directory.
func TestDirectoryMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	var kinds [3]int
	for gi := range testgraph.Shapes * graphsPerShape {
		g := csrtest.Random(rng, gi)
		for p := 1; p <= 8; p++ {
			t.Run(fmt.Sprintf("%s%d/n=%d/p=%d", g.Name, gi, g.N, p), func(t *testing.T) {
				part, csrs := csrtest.Build(t, g, p, 2)
				owners := neighbourOwners(g, part)
				exchanged := buildExchangedAll(t, part, csrs, 1+gi%3)
				for j := range p {
					d, err := Build(csrs[j], part, j, 2)
					if err != nil {
						t.Fatal(err)
					}
					checkAgainstEdges(t, d, owners, part, j)
					equalDirectories(t, "Build vs BuildExchanged", d, exchanged[j])
					for _, threads := range []int{1, 3, 0} {
						other, err := build(csrs[j], part, j, threads, 64)
						if err != nil {
							t.Fatal(err)
						}
						equalDirectories(t, fmt.Sprintf("%d threads on 64-vertex ranges", threads), d, other)
					}
					other, err := Build(wide(csrs[j]), part, j, 3)
					if err != nil {
						t.Fatal(err)
					}
					equalDirectories(t, "Cols64", d, other)
					for i := range p {
						kinds[d.Kind(i)]++
					}
				}
			})
		}
	}
	for k, n := range kinds {
		if n == 0 {
			t.Errorf("no %v directory vector in the corpus", Kind(k))
		}
	}
}

// TestBuildExchangedCols64 runs the paper's construction on 64-bit columns.
func TestBuildExchangedCols64(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	g := csrtest.Random(rng, testgraph.ShapeRandom)
	for p := 1; p <= 5; p++ {
		part, csrs := csrtest.Build(t, g, p, 2)
		wides := make([]*graph.CSR, p)
		for r, c := range csrs {
			wides[r] = wide(c)
		}
		owners := neighbourOwners(g, part)
		for j, d := range buildExchangedAll(t, part, wides, 2) {
			checkAgainstEdges(t, d, owners, part, j)
		}
	}
}

// TestSieveLemmaV1 checks Lemma V.1 on random frontiers: for every vertex v
// owned by rank i, the frontier neighbours of v are the same whether the
// ranks send i their whole frontiers or their frontiers sieved for i. It
// also checks that the sieve keeps exactly f_j ⊙ V(i,j) and clears the bits
// beyond the rank's vertices.
func TestSieveLemmaV1(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 3))
	for gi := range testgraph.Shapes * graphsPerShape {
		g := csrtest.Random(rng, gi)
		for p := 1; p <= 8; p++ {
			part, csrs := csrtest.Build(t, g, p, 2)
			dirs := buildAll(t, part, csrs, 2)
			for _, density := range []float64{0, 0.02, 0.3, 1} {
				// f is the global frontier; each rank's part may carry
				// garbage in the bits beyond its vertices.
				f := frontier.NewBitmap(part.N)
				for j := range p {
					fj := randomFrontier(rng, part.Words(j), part.Count(j), density)
					if w := part.Words(j); w > 0 {
						fj[w-1] |= rng.Uint64() &^ tailMask(part.Count(j))
					}
					copy(f[part.First(j)>>6:], fj)
				}
				for i := range p {
					sieved := frontier.NewBitmap(part.N)
					for j := range p {
						w0 := int(part.First(j) >> 6)
						fj := f[w0 : w0+part.Words(j)]
						sj := dirs[j].Sieve(nil, fj, i)
						col := dirs[j].Column(i)
						for k := range sj {
							if want := fj[k] & col[k]; sj[k] != want {
								t.Fatalf("%s n=%d p=%d: sieve of rank %d for %d, word %d = %#x, want %#x", g.Name, g.N, p, j, i, k, sj[k], want)
							}
						}
						if w := len(sj); w > 0 && sj[w-1]&^tailMask(part.Count(j)) != 0 {
							t.Fatalf("%s n=%d p=%d: sieve of rank %d for %d keeps padding bits", g.Name, g.N, p, j, i)
						}
						copy(sieved[w0:], sj)
					}
					checkSameFrontierNeighbours(t, csrs[i], f, sieved)
				}
			}
		}
	}
}

// checkSameFrontierNeighbours compares, for every row of g, the neighbours
// in frontier f with those in frontier s.
func checkSameFrontierNeighbours(t *testing.T, g *graph.CSR, f, s frontier.Bitmap) {
	t.Helper()
	var a, b []int64
	for v := 0; v < g.NumLocal; v++ {
		a, b = a[:0], b[:0]
		for k := g.Offsets[v]; k < g.Offsets[v+1]; k++ {
			u := g.Neighbor(k)
			if f.Test(u) {
				a = append(a, u)
			}
			if s.Test(u) {
				b = append(b, u)
			}
		}
		if !slices.Equal(a, b) {
			t.Fatalf("vertex %d: frontier neighbours %v, after the sieve %v", g.FirstGlobal+int64(v), a, b)
		}
	}
}

// TestSieveDestinations checks that Sieve gives the same result whatever dst
// it is handed: nil, too short, long with garbage, or the frontier itself.
func TestSieveDestinations(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	g := csrtest.Graph{Name: "mixed", N: 1000}
	for e := 0; e < 300; e++ {
		g.Edges = append(g.Edges, graph.Edge{U: rng.Int64N(g.N), V: rng.Int64N(g.N)})
	}
	g.Edges = append(g.Edges, graph.Edge{U: 0, V: 999}) // vertex 0 reaches the last rank
	const p = 3
	part, csrs := csrtest.Build(t, g, p, 2)
	for j := range p {
		d, err := Build(csrs[j], part, j, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p {
			f := randomFrontier(rng, part.Words(j), part.Count(j), 0.5)
			want := d.Sieve(nil, f, i)
			if len(want) != len(f) {
				t.Fatalf("Sieve returned %d words for a frontier of %d", len(want), len(f))
			}
			short := d.Sieve(make(frontier.Bitmap, 1), f, i)
			long := make(frontier.Bitmap, len(f)+5, len(f)+9)
			for k := range long {
				long[k] = rng.Uint64()
			}
			long = d.Sieve(long, f, i)
			inPlace := d.Sieve(f, f, i)
			for name, got := range map[string]frontier.Bitmap{"short": short, "long": long, "in place": inPlace} {
				if !slices.Equal(got, want) {
					t.Fatalf("rank %d for %d (%v): %s dst gives %x, want %x", j, i, d.Kind(i), name, got, want)
				}
			}
			if len(f) > 0 && &inPlace[0] != &f[0] {
				t.Fatalf("in-place sieve reallocated")
			}
		}
	}
}

// TestSieveConcurrent sieves from many goroutines with one directory (the
// race detector checks that Sieve does not write shared state).
func TestSieveConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	g := csrtest.Random(rng, testgraph.ShapeSparse)
	part, csrs := csrtest.Build(t, g, 2, 2)
	d, err := Build(csrs[0], part, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	f := randomFrontier(rng, part.Words(0), part.Count(0), 0.3)
	want := d.Sieve(nil, f, 1)
	var wg sync.WaitGroup
	results := make([]frontier.Bitmap, 4)
	for w := range results {
		wg.Go(func() {
			var dst frontier.Bitmap
			for range 50 {
				dst = d.Sieve(dst, f, 1)
			}
			results[w] = dst
		})
	}
	wg.Wait()
	for _, r := range results {
		if !slices.Equal(r, want) {
			t.Fatal("concurrent sieves disagree")
		}
	}
}

func TestSievePanicsOnWrongLength(t *testing.T) {
	part, csrs := csrtest.Build(t, csrtest.Graph{N: 200, Edges: []graph.Edge{{U: 1, V: 150}}}, 2, 2)
	d, err := Build(csrs[0], part, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Sieve accepted a frontier of the wrong length")
		}
	}()
	d.Sieve(nil, make(frontier.Bitmap, part.Words(0)+1), 1)
}

// TestEmptyAndFullShareStorage checks that empty and full vectors are not
// stored per peer and that Bytes accounts for it.
func TestEmptyAndFullShareStorage(t *testing.T) {
	// Vertex 0 (rank 0) is joined to every vertex of ranks 1..3; rank 4 is
	// isolated. On rank 0, V(0,0), V(4,0) are empty and V(1..3,0) mixed
	// (only vertex 0 has a neighbour). On ranks 1..3, V(0,j) is full.
	const p, block = 5, 64
	g := csrtest.Graph{Name: "star", N: p * block}
	for v := int64(block); v < 4*block; v++ {
		g.Edges = append(g.Edges, graph.Edge{U: 0, V: v})
	}
	part, csrs := csrtest.Build(t, g, p, 2)
	owners := neighbourOwners(g, part)
	for j := range p {
		d, err := Build(csrs[j], part, j, 1)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstEdges(t, d, owners, part, j)
		wantBytes := int64(p) * perPeerBytes
		switch j {
		case 0:
			for i, want := range []Kind{Empty, Mixed, Mixed, Mixed, Empty} {
				if d.Kind(i) != want {
					t.Fatalf("rank 0: Kind(%d) = %v, want %v", i, d.Kind(i), want)
				}
			}
			wantBytes += 4 * 8 // one empty shared vector, three mixed ones
		case 4:
			wantBytes += 8 // all five empty, sharing one vector
		default:
			if d.Kind(0) != Full || d.Density(0) != 1 {
				t.Fatalf("rank %d: V(0,%d) is %v with density %v, want full", j, j, d.Kind(0), d.Density(0))
			}
			wantBytes += 2 * 8 // one shared empty and one shared full vector
		}
		if d.Bytes() != wantBytes {
			t.Fatalf("rank %d: Bytes() = %d, want %d", j, d.Bytes(), wantBytes)
		}
	}
}

// TestBuildRejectsBadInput feeds Build malformed partitions and CSRs: each is
// an error, never a panic.
func TestBuildRejectsBadInput(t *testing.T) {
	part, err := partition.NewBlock1D(100, 2)
	if err != nil {
		t.Fatal(err)
	}
	good := func() *graph.CSR { // rank 1's vertices 64..99; vertex 64 ~ 3 and 0
		return &graph.CSR{NumGlobal: 100, FirstGlobal: 64, NumLocal: 36,
			Offsets: append([]int64{0}, slices.Repeat([]int64{2}, 36)...), Cols32: []uint32{3, 0}}
	}
	if _, err := Build(good(), part, 1, 1); err != nil {
		t.Fatalf("good CSR rejected: %v", err)
	}
	same := func(g *graph.CSR) *graph.CSR { return g }
	cases := []struct {
		name   string
		part   partition.Block1D
		rank   int
		mutate func(*graph.CSR) *graph.CSR
	}{
		{"nil CSR", part, 1, func(*graph.CSR) *graph.CSR { return nil }},
		{"rank out of range", part, 2, same},
		{"negative rank", part, -1, same},
		{"wrong rank", part, 0, same},
		{"zero block", partition.Block1D{N: 100, P: 2}, 1, same},
		{"unaligned block", partition.Block1D{N: 100, P: 2, Block: 50}, 1, same},
		{"blocks short of N", partition.Block1D{N: 200, P: 2, Block: 64}, 1, same},
		{"short offsets", part, 1, func(g *graph.CSR) *graph.CSR { g.Offsets = g.Offsets[:10]; return g }},
		{"offsets past columns", part, 1, func(g *graph.CSR) *graph.CSR { g.Offsets[36] = 3; return g }},
		{"negative offset", part, 1, func(g *graph.CSR) *graph.CSR { g.Offsets[5] = -1; return g }},
		{"decreasing offsets", part, 1, func(g *graph.CSR) *graph.CSR { g.Offsets[1], g.Offsets[2] = 2, 1; return g }},
		{"inner offset past columns", part, 1, func(g *graph.CSR) *graph.CSR { g.Offsets[7] = 9; return g }},
		{"both columns", part, 1, func(g *graph.CSR) *graph.CSR { g.Cols64 = []int64{3, 0}; return g }},
		{"neighbour ≥ N", part, 1, func(g *graph.CSR) *graph.CSR { g.Cols32[0] = 100; return g }},
		{"negative neighbour", part, 1, func(g *graph.CSR) *graph.CSR {
			g = wide(g)
			g.Cols64[0], g.Cols64[1] = 70, -5 // the scan reaches -5 when it leaves rank 1's run
			return g
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.mutate(good())
			if d, err := Build(g, tc.part, tc.rank, 2); err == nil {
				t.Fatalf("Build accepted it: %v", d)
			}
			if g == nil || tc.part != part || tc.rank != 1 {
				return
			}
			// The exchanged construction must reject it too, on every rank.
			err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
				mine := g
				if c.Rank() == 0 {
					mine = &graph.CSR{NumGlobal: 100, NumLocal: 64, Offsets: make([]int64, 65), Cols32: []uint32{}}
				}
				_, err := BuildExchanged(ctx, c, mine, part, 2)
				return err
			})
			if err == nil {
				t.Fatal("BuildExchanged accepted it")
			}
		})
	}
}

// TestBuildExchangedFailures checks that a failure on one rank aborts the
// others instead of hanging them, and that a mismatched job size and a
// cancelled context are reported.
func TestBuildExchangedFailures(t *testing.T) {
	part, csrs := csrtest.Build(t, csrtest.Graph{N: 300, Edges: []graph.Edge{{U: 1, V: 250}, {U: 70, V: 140}}}, 3, 2)
	errs := make([]error, 3)
	_ = inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		g := csrs[c.Rank()]
		if c.Rank() == 1 {
			g = &graph.CSR{} // does not match the partition
		}
		_, errs[c.Rank()] = BuildExchanged(ctx, c, g, part, 1)
		return errs[c.Rank()]
	})
	if errs[1] == nil || errors.Is(errs[1], comm.ErrAborted) {
		t.Fatalf("rank 1: got %v, want its own error", errs[1])
	}
	// The other ranks learn of rank 1's failure either in the exchange
	// (comm.ErrAborted) or, when the job's abort cancels their context
	// first, at the check before it (context.Canceled): both are the abort.
	for _, r := range []int{0, 2} {
		if !errors.Is(errs[r], comm.ErrAborted) && !errors.Is(errs[r], context.Canceled) {
			t.Fatalf("rank %d: got %v, want comm.ErrAborted or context.Canceled", r, errs[r])
		}
	}

	other, err := partition.NewBlock1D(300, 2)
	if err != nil {
		t.Fatal(err)
	}
	err = inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		_, err := BuildExchanged(ctx, c, csrs[c.Rank()], other, 1)
		return err
	})
	if err == nil {
		t.Fatal("BuildExchanged accepted a partition of another job size")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	errs = make([]error, 3)
	_ = inproc.Run(ctx, 3, func(ctx context.Context, c comm.Comm) error {
		_, errs[c.Rank()] = BuildExchanged(ctx, c, csrs[c.Rank()], part, 1)
		return errs[c.Rank()]
	})
	for r, err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("rank %d: got %v, want context.Canceled", r, err)
		}
	}
}

func TestLoadColumn(t *testing.T) {
	good := frontier.Bitmap{^uint64(0), 0b101}
	msg := good.AppendBytes(nil)
	col, err := loadColumn(msg, 2, 67)
	if err != nil || !slices.Equal(col, good) {
		t.Fatalf("loadColumn = %x, %v; want %x", col, err, good)
	}
	if _, err := loadColumn(msg[:15], 2, 67); err == nil {
		t.Fatal("short message accepted")
	}
	if _, err := loadColumn(msg, 2, 66); err == nil {
		t.Fatal("bit beyond the covered vertices accepted")
	}
	if col, err := loadColumn(nil, 0, 0); err != nil || len(col) != 0 {
		t.Fatalf("empty vector: %x, %v", col, err)
	}
}

func TestRowSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 6))
	for range 200 {
		n := rng.IntN(5000)
		offsets := make([]int64, n+1)
		for v := range n {
			d := int64(rng.IntN(4))
			if rng.IntN(100) == 0 {
				d = int64(rng.IntN(20000)) // a hub
			}
			offsets[v+1] = offsets[v] + d
		}
		threads, align := 1+rng.IntN(8), 64<<rng.IntN(4)
		spans := rowSpans(offsets, n, threads, align)
		if spans[0] != 0 || spans[len(spans)-1] != n || len(spans) < 2 || len(spans) > threads+1 {
			t.Fatalf("n=%d threads=%d: spans %v", n, threads, spans)
		}
		for k := 1; k < len(spans)-1; k++ {
			if spans[k] <= spans[k-1] || spans[k]%align != 0 {
				t.Fatalf("n=%d align=%d: spans %v", n, align, spans)
			}
		}
	}
}

func TestSkipAbove(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 7))
	for range 2000 {
		row := make([]uint32, rng.IntN(100))
		for k := range row {
			row[k] = uint32(rng.IntN(1000))
		}
		slices.Sort(row)
		slices.Reverse(row)
		k := rng.IntN(len(row) + 1)
		bound := int64(rng.IntN(1100))
		want := k
		for want < len(row) && int64(row[want]) >= bound {
			want++
		}
		if got := SkipAbove(row, k, bound); got != want {
			t.Fatalf("SkipAbove(%v, %d, %d) = %d, want %d", row, k, bound, got, want)
		}
	}
}
