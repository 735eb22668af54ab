package graph

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/partition"
)

// reference is the serial, obviously correct answer for an edge list: the
// adjacency set of every vertex (descending, no duplicates, no self-loops),
// the multiplicity-counted tuple degree, the self-loops per vertex and the
// number of distinct undirected non-loop edges.
type reference struct {
	adj        [][]int64
	tupleDeg   []int64
	loops      []int64
	undirected int64
}

// BuildSerialReference returns every vertex's adjacency set, sorted in
// descending order, without duplicates or self-loops.
func BuildSerialReference(n int64, edges []Edge) [][]int64 {
	sets := make([]map[int64]bool, n)
	for _, e := range edges {
		if e.U == e.V {
			continue
		}
		for _, h := range [2][2]int64{{e.U, e.V}, {e.V, e.U}} {
			if sets[h[0]] == nil {
				sets[h[0]] = map[int64]bool{}
			}
			sets[h[0]][h[1]] = true
		}
	}
	adj := make([][]int64, n)
	for v, s := range sets {
		for u := range s {
			adj[v] = append(adj[v], u)
		}
		slices.Sort(adj[v])
		slices.Reverse(adj[v])
	}
	return adj
}

func buildReference(n int64, edges []Edge) reference {
	r := reference{
		adj:      BuildSerialReference(n, edges),
		tupleDeg: make([]int64, n),
		loops:    make([]int64, n),
	}
	for _, e := range edges {
		if e.U == e.V {
			r.loops[e.U]++
			continue
		}
		r.tupleDeg[e.U]++
		r.tupleDeg[e.V]++
	}
	for v, a := range r.adj {
		for _, u := range a {
			if u > int64(v) {
				r.undirected++
			}
		}
	}
	return r
}

// randomGraph returns m tuples on n vertices with self-loops, duplicates and
// (when m is small) isolated vertices; hubs make some rows long.
func randomGraph(rng *rand.Rand, n int64, m int) []Edge {
	edges := make([]Edge, 0, m)
	hubs := []int64{rng.Int64N(n), rng.Int64N(n)}
	for len(edges) < m {
		var e Edge
		switch k := rng.IntN(20); {
		case k == 0: // self-loop
			v := rng.Int64N(n)
			e = Edge{v, v}
		case k == 1 && len(edges) > 0: // duplicate, maybe reversed
			e = edges[rng.IntN(len(edges))]
			if rng.IntN(2) == 0 {
				e.U, e.V = e.V, e.U
			}
		case k < 6: // hub edge
			e = Edge{hubs[rng.IntN(2)], rng.Int64N(n)}
		default:
			e = Edge{rng.Int64N(n), rng.Int64N(n)}
		}
		edges = append(edges, e)
	}
	return edges
}

// splitEdges deals edges out to p ranks in uneven contiguous slices (some
// possibly empty), as independent generators would.
func splitEdges(rng *rand.Rand, edges []Edge, p int) [][]Edge {
	cuts := make([]int, p-1)
	for i := range cuts {
		cuts[i] = rng.IntN(len(edges) + 1)
	}
	slices.Sort(cuts)
	out := make([][]Edge, p)
	lo := 0
	for r := range p {
		hi := len(edges)
		if r < p-1 {
			hi = cuts[r]
		}
		out[r] = edges[lo:hi]
		lo = hi
	}
	return out
}

// block1D is the 1D partition of n vertices over p ranks, failing the test
// when there is none.
func block1D(t testing.TB, n int64, p int) partition.Block1D {
	t.Helper()
	part, err := partition.NewBlock1D(n, p)
	if err != nil {
		t.Fatal(err)
	}
	return part
}

// runBuild builds on p in-process ranks and returns every rank's CSR. The
// round size varies with the shares, so most builds take several rounds.
func runBuild(part partition.Block1D, perRank [][]Edge, threads int, wide bool) ([]*CSR, error) {
	largest := 0
	for _, es := range perRank {
		largest = max(largest, len(es))
	}
	return runBuildChunk(part, perRank, threads, wide, int64(1+largest/(1+threads+part.P%3)))
}

// runBuildChunk is runBuild with chunk tuples per round (0: the default).
func runBuildChunk(part partition.Block1D, perRank [][]Edge, threads int, wide bool, chunk int64) ([]*CSR, error) {
	out := make([]*CSR, part.P)
	err := inproc.Run(context.Background(), part.P, func(ctx context.Context, c comm.Comm) error {
		g, _, err := buildUndirected(ctx, c, part, EdgeSlice(perRank[c.Rank()]), threads, wide, chunk)
		if err != nil {
			return err
		}
		out[c.Rank()] = g
		return nil
	})
	return out, err
}

// randomCase draws a graph of n vertices and m edges from the PCG seeds
// and builds its reference; the generator goes on to split the edges.
func randomCase(seed1, seed2 uint64, n int64, m int) (*rand.Rand, []Edge, reference) {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	edges := randomGraph(rng, n, m)
	return rng, edges, buildReference(n, edges)
}

// buildChecked builds perRank's edges on part with runBuild and checks the
// CSRs against ref; what names the case in a failure.
func buildChecked(t *testing.T, what string, part partition.Block1D, perRank [][]Edge, threads int, wide bool, ref reference) {
	t.Helper()
	gs, err := runBuild(part, perRank, threads, wide)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	checkBuild(t, part, gs, ref, wide)
}

// checkBuild compares every rank's CSR with the reference.
func checkBuild(t *testing.T, part partition.Block1D, gs []*CSR, ref reference, wide bool) {
	t.Helper()
	var edgesSum, loopSum, wantLoops int64
	for _, l := range ref.loops {
		wantLoops += l
	}
	for r, g := range gs {
		if g.NumGlobal != part.N || g.FirstGlobal != part.First(r) || g.NumLocal != part.Count(r) {
			t.Fatalf("rank %d: header N=%d first=%d local=%d, want %d %d %d",
				r, g.NumGlobal, g.FirstGlobal, g.NumLocal, part.N, part.First(r), part.Count(r))
		}
		if (g.Cols32 == nil) != wide || (g.Cols64 == nil) == wide {
			t.Fatalf("rank %d: Cols32 set %v, Cols64 set %v, want wide=%v", r, g.Cols32 != nil, g.Cols64 != nil, wide)
		}
		if len(g.Offsets) != g.NumLocal+1 || g.Offsets[0] != 0 || len(g.TupleDegree) != g.NumLocal {
			t.Fatalf("rank %d: %d offsets, %d tuple degrees for %d vertices", r, len(g.Offsets), len(g.TupleDegree), g.NumLocal)
		}
		ncols := int64(len(g.Cols32) + len(g.Cols64))
		if g.NumEdges() != ncols {
			t.Fatalf("rank %d: NumEdges %d, %d columns", r, g.NumEdges(), ncols)
		}
		var loops int64
		for l := range g.NumLocal {
			v := g.FirstGlobal + int64(l)
			loops += ref.loops[v]
			row := make([]int64, 0, g.Degree(uint32(l)))
			for i := g.Offsets[l]; i < g.Offsets[l+1]; i++ {
				row = append(row, g.Neighbor(i))
			}
			if !slices.Equal(row, ref.adj[v]) {
				t.Fatalf("rank %d vertex %d: row %v, want %v", r, v, row, ref.adj[v])
			}
			if int64(g.TupleDegree[l]) != ref.tupleDeg[v] {
				t.Fatalf("rank %d vertex %d: TupleDegree %d, want %d", r, v, g.TupleDegree[l], ref.tupleDeg[v])
			}
		}
		if g.SelfLoops != loops {
			t.Fatalf("rank %d: SelfLoops %d, want %d", r, g.SelfLoops, loops)
		}
		edgesSum += g.NumEdges()
		loopSum += g.SelfLoops
	}
	if edgesSum != 2*ref.undirected {
		t.Fatalf("NumEdges sum %d, want 2×%d", edgesSum, ref.undirected)
	}
	if loopSum != wantLoops {
		t.Fatalf("SelfLoops sum %d, want %d", loopSum, wantLoops)
	}
}

func TestBuildUndirectedRandom(t *testing.T) {
	sizes := []int64{1, 2, 63, 64, 65, 100, 129, 500, 1000, 2000}
	for seed := uint64(0); seed < 24; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x6b31))
		n := sizes[int(seed)%len(sizes)]
		if seed >= uint64(len(sizes)) {
			n = 1 + rng.Int64N(2000)
		}
		m := rng.IntN(int(4*n) + 10)
		edges := randomGraph(rng, n, m)
		ref := buildReference(n, edges)
		for p := 1; p <= 8; p++ {
			part := block1D(t, n, p)
			perRank := splitEdges(rng, edges, p)
			for threads := 1; threads <= 4; threads++ {
				wide := (int(seed)+p+threads)%5 == 0 // the 64-bit path on some runs too
				t.Run(fmt.Sprintf("seed%d/n%d/m%d/p%d/t%d/wide%v", seed, n, m, p, threads, wide), func(t *testing.T) {
					buildChecked(t, "build", part, perRank, threads, wide, ref)
				})
			}
		}
	}
}

func TestBuildUndirectedWideAllThreads(t *testing.T) {
	const n = 777
	rng, edges, ref := randomCase(7, 7, n, 5000)
	for _, p := range []int{1, 3, 8} {
		part := block1D(t, n, p)
		perRank := splitEdges(rng, edges, p)
		for threads := 1; threads <= 4; threads++ {
			buildChecked(t, fmt.Sprintf("p=%d threads=%d", p, threads), part, perRank, threads, true, ref)
		}
	}
}

func TestBuildUndirectedSpecialGraphs(t *testing.T) {
	star := func(n int64) []Edge {
		var es []Edge
		for v := int64(1); v < n; v++ {
			es = append(es, Edge{0, v}, Edge{v, 0})
		}
		return es
	}
	path := func(n int64) []Edge {
		var es []Edge
		for v := int64(1); v < n; v++ {
			es = append(es, Edge{v - 1, v})
		}
		return es
	}
	cases := []struct {
		name  string
		n     int64
		edges []Edge
	}{
		{"empty", 10, nil},
		{"one vertex loops", 1, []Edge{{0, 0}, {0, 0}, {0, 0}}},
		{"only loops", 300, []Edge{{0, 0}, {299, 299}, {150, 150}, {150, 150}}},
		{"star", 1000, star(1000)},
		{"path", 1000, path(1000)},
		{"one duplicated edge", 200, slices.Repeat([]Edge{{3, 190}, {190, 3}}, 50)},
	}
	for _, tc := range cases {
		ref := buildReference(tc.n, tc.edges)
		for _, p := range []int{1, 2, 5, 8} {
			part := block1D(t, tc.n, p)
			perRank := splitEdges(rand.New(rand.NewPCG(uint64(p), 1)), tc.edges, p)
			for _, threads := range []int{1, 3} {
				buildChecked(t, fmt.Sprintf("%s p=%d threads=%d", tc.name, p, threads), part, perRank, threads, false, ref)
			}
		}
	}
}

func TestBuildUndirectedPublicAPI(t *testing.T) {
	const n = 300
	rng, edges, ref := randomCase(3, 3, n, 1500)
	part := block1D(t, n, 3)
	perRank := splitEdges(rng, edges, 3)
	gs := make([]*CSR, 3)
	err := inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		g, st, err := BuildUndirectedFrom(ctx, c, part, EdgeSlice(perRank[c.Rank()]), 0) // 0: GOMAXPROCS threads
		gs[c.Rank()] = g
		if err != nil {
			return err
		}
		for _, phase := range []string{RoutePhaseCount, RoutePhaseFill} {
			if calls := c.Stats().Phase(phase).Calls; calls != int64(st.Rounds) || st.Rounds != 1 {
				return fmt.Errorf("rank %d: %d %s calls in %d rounds, want 1", c.Rank(), calls, phase, st.Rounds)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkBuild(t, part, gs, ref, false)
}

func TestHasEdgeOnBuiltRows(t *testing.T) {
	const n = 400
	rng, edges, ref := randomCase(11, 5, n, 3000)
	for _, wide := range []bool{false, true} {
		part := block1D(t, n, 4)
		gs, err := runBuild(part, splitEdges(rng, edges, 4), 2, wide)
		if err != nil {
			t.Fatal(err)
		}
		for r, g := range gs {
			for l := range g.NumLocal {
				v := g.FirstGlobal + int64(l)
				for u := int64(-1); u <= n; u++ {
					want := slices.Contains(ref.adj[v], u)
					if got := g.HasEdge(uint32(l), u); got != want {
						t.Fatalf("wide=%v rank %d: HasEdge(%d,%d) = %v, want %v", wide, r, v, u, got, want)
					}
				}
			}
		}
	}
}

func TestFitsCols32(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want bool
	}{{1, true}, {1 << 32, true}, {1<<32 + 1, false}, {1 << 33, false}} {
		if got := fitsCols32(c.n); got != c.want {
			t.Errorf("fitsCols32(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

// TestRouteSegmentsRoundTrip codes random sorted records of every width
// (neighbours up to 40 bits, as at scale 40) and gap distribution and decodes
// them back.
func TestRouteSegmentsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, w := range []uint{1, 7, 22, 33, 40} {
		for _, rowBits := range []uint{0, 1, 5, 13, 24} {
			if rowBits+w > 64 {
				continue
			}
			for _, e := range []int{1, 2, 3, 47, 48, 49, 1000, 20000} {
				for _, spread := range []uint64{1, 7, 1 << rowBits} {
					recs := make([]uint64, e)
					rowMax := min(spread, uint64(1)<<rowBits)
					for i := range recs {
						recs[i] = rng.Uint64N(rowMax)<<w | rng.Uint64N(uint64(1)<<w)
					}
					want := slices.Clone(recs)
					slices.SortStableFunc(want, func(a, b uint64) int { return int(a>>w) - int(b>>w) })
					new(rowSorter).sort(recs, w)
					for i := range recs {
						if recs[i]>>w != want[i]>>w {
							t.Fatalf("w=%d rows=%d e=%d: sorted rows differ at %d", w, rowBits, e, i)
						}
					}
					for _, nbrBits := range []uint{0, w} {
						k, size := segmentSize(recs, w, nbrBits)
						seg := make([]byte, size)
						encodeSegment(seg, recs, w, k, nbrBits)
						d, err := newSegmentDecoder(seg, e, uint64(1)<<rowBits, nbrBits)
						if err != nil {
							t.Fatal(err)
						}
						for i, r := range recs {
							row, nbr, err := d.next()
							wantNbr := r & (uint64(1)<<w - 1)
							if nbrBits == 0 {
								wantNbr = 0
							}
							if err != nil || row != r>>w || nbr != wantNbr {
								t.Fatalf("w=%d rows=%d e=%d nbrBits=%d entry %d: (%d,%d) %v, want (%d,%d)",
									w, rowBits, e, nbrBits, i, row, nbr, err, r>>w, wantNbr)
							}
						}
						if err := d.done(); err != nil {
							t.Fatal(err)
						}
						// The batch decoder, in batches that end anywhere.
						d, err = newSegmentDecoder(seg, e, uint64(1)<<rowBits, nbrBits)
						if err != nil {
							t.Fatal(err)
						}
						var got []uint64
						ls, vs := make([]uint64, 5), make([]uint64, 5)
						for d.left > 0 {
							k, err := d.decodeBatch(ls[:1+len(got)%5], vs)
							if err != nil {
								t.Fatal(err)
							}
							for i := range k {
								got = append(got, ls[i]<<w|vs[i])
							}
						}
						for i, r := range recs {
							want := r
							if nbrBits == 0 {
								want = r >> w << w
							}
							if got[i] != want {
								t.Fatalf("w=%d rows=%d e=%d nbrBits=%d: batch entry %d is %x, want %x", w, rowBits, e, nbrBits, i, got[i], want)
							}
						}
						if err := d.done(); err != nil {
							t.Fatal(err)
						}
						if _, _, err := d.next(); err == nil && size*8 < riceParamBits+(e+1)*int(1+nbrBits) {
							t.Fatal("an entry read past the segment's last one")
						}
					}
				}
			}
		}
	}
}

// TestRouteBytesPerHalfEdge checks the compactness that motivates the
// format: random rows of a scale-22 rank at chunk density cost at most 26
// bits per half-edge with the neighbour, 4 without.
func TestRouteBytesPerHalfEdge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const w, rowBits, e = 22, 13, 4096 // a bucket of 8192 rows, 4096 half-edges
	recs := make([]uint64, e)
	for i := range recs {
		recs[i] = rng.Uint64N(1<<rowBits)<<w | rng.Uint64N(1<<w)
	}
	new(rowSorter).sort(recs, w)
	for _, c := range []struct {
		nbrBits uint
		maxBits float64
	}{{w, 26}, {0, 4}} {
		_, size := segmentSize(recs, w, c.nbrBits)
		if bits := float64(8*size) / e; bits > c.maxBits {
			t.Errorf("nbrBits %d: %.2f bits per half-edge, want ≤ %v", c.nbrBits, bits, c.maxBits)
		}
	}
}

func TestBuildUndirectedBadIDs(t *testing.T) {
	n := int64(200)
	part := block1D(t, n, 3)
	for _, bad := range []Edge{{-1, 4}, {4, -1}, {n, 0}, {0, n}, {1 << 62, 1}, {-1 << 63, -1 << 63}} {
		for _, threads := range []int{1, 4} {
			perRank := [][]Edge{{{1, 2}}, make([]Edge, 9), {{5, 6}}}
			perRank[1][7] = bad
			_, err := runBuild(part, perRank, threads, false)
			if err == nil || !strings.Contains(err.Error(), "tuple 7") {
				t.Fatalf("tuple %v with threads=%d: error %v, want one naming tuple 7", bad, threads, err)
			}
		}
	}
}

func TestBuildUndirectedBadPartition(t *testing.T) {
	part := block1D(t, 100, 2)
	err := inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		_, err := BuildUndirected(ctx, c, part, nil, 1)
		return err
	})
	if err == nil {
		t.Fatal("partition over 2 ranks accepted by a 3-rank job")
	}
	for _, p := range []partition.Block1D{
		{N: 0, P: 1, Block: 64},
		{N: 100, P: 1, Block: 0},
		{N: 100, P: 1, Block: 100},
		{N: 100, P: 2, Block: 50},
		{N: 1000, P: 2, Block: 64},
		{N: 1 << 40, P: 1, Block: 1 << 40},
	} {
		if err := checkPartition(p, p.P); err == nil {
			t.Errorf("checkPartition(%+v) accepted", p)
		}
	}
}

func TestBuildUndirectedCancelled(t *testing.T) {
	part := block1D(t, 100, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := inproc.Run(ctx, 2, func(ctx context.Context, c comm.Comm) error {
		_, err := BuildUndirected(ctx, c, part, []Edge{{1, 2}}, 1)
		return err
	})
	if err == nil {
		t.Fatal("cancelled build succeeded")
	}
}

func TestParseRouteHeaderRejects(t *testing.T) {
	segs := make([]segRef, 2)
	good := []byte{3, 1, 1, 0, 0x10} // 3 loops; bucket 0: 1 entry in 1 byte; bucket 1 empty; segment
	if loops, err := parseRouteHeader(good, segs, 0); err != nil || loops != 3 || segs[0] != (segRef{off: 4, size: 1, entries: 1}) {
		t.Fatalf("valid header: loops %d, segs %v, %v", loops, segs, err)
	}
	for _, msg := range [][]byte{
		{},
		{0x80},                // truncated varint
		{0, 1},                // no size
		{0, 1, 2, 0, 0},       // segment shorter than its size
		{0, 1, 1, 0, 0, 0},    // a byte after the last segment
		{0, 3, 1, 0, 0},       // 3 entries of ≥ 1 bit in 2 bits
		{0, 1, 0, 0},          // an entry in a 0-byte segment
		{0, 1, 1, 1, 1, 0x10}, // a second bucket's segment missing
		{0, 1, 200, 1, 0},     // size beyond the message
	} {
		if _, err := parseRouteHeader(msg, segs, 0); !errors.Is(err, errRoute) {
			t.Errorf("header % x accepted (%v)", msg, err)
		}
	}
	// With 22-bit neighbours, a byte holds no entry.
	if _, err := parseRouteHeader([]byte{0, 1, 1, 0, 0}, segs, 22); !errors.Is(err, errRoute) {
		t.Errorf("a 22-bit neighbour in one byte accepted: %v", err)
	}
}

func TestSegmentDecoderRejects(t *testing.T) {
	// k = 0 then entry gaps; rowCap 4.
	enc := func(bitsLSB string) []byte {
		out := make([]byte, (len(bitsLSB)+7)/8)
		for i, c := range bitsLSB {
			if c == '1' {
				out[i/8] |= 1 << (i % 8)
			}
		}
		return out
	}
	cases := []struct {
		name    string
		seg     []byte
		entries int
	}{
		{"truncated gap", enc("000000" + "00"), 1},
		{"row beyond the bucket", enc("000000" + "00001"), 1},
		{"second row beyond the bucket", enc("000000" + "0001" + "0001"), 2},
		{"Rice parameter above 56", enc("111111"), 1},
		{"missing neighbour", enc("000000" + "1" + "1"), 1},
	}
	for _, c := range cases {
		nbrBits := uint(0)
		if c.name == "missing neighbour" {
			nbrBits = 22
		}
		d, err := newSegmentDecoder(c.seg, c.entries, 4, nbrBits)
		for i := 0; err == nil && i < c.entries; i++ {
			_, _, err = d.next()
		}
		if !errors.Is(err, errRoute) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	d, err := newSegmentDecoder(enc("000000"+"1"+"00000000000"), 1, 4, 0)
	if err == nil {
		_, _, err = d.next()
	}
	if err == nil {
		err = d.done()
	}
	if !errors.Is(err, errRoute) {
		t.Errorf("a byte of unused bits accepted: %v", err)
	}
}

// corruptingComm changes kernel 1's messages on their way in, as a faulty
// network or peer would.
type corruptingComm struct {
	comm.Comm
	phase  string
	mangle func(msg []byte) []byte
}

func (cc corruptingComm) Alltoallv(ctx context.Context, phase string, send, recv [][]byte) ([][]byte, error) {
	out, err := cc.Comm.Alltoallv(ctx, phase, send, recv)
	if err == nil && phase == cc.phase && cc.Rank() == 1 && len(out[0]) > 0 {
		out[0] = cc.mangle(out[0])
	}
	return out, err
}

// TestBuildCorruptMessages feeds rank 1 corrupt kernel 1 messages from rank
// 0: every corruption is an error naming rank 0, never a panic or a CSR.
func TestBuildCorruptMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	n := int64(512)
	edges := randomGraph(rng, n, 4000)
	part := block1D(t, n, 2)
	perRank := splitEdges(rng, edges, 2)
	// Structural damage only: a flipped neighbour bit that stays in range
	// is a valid message of another graph (the TCP transport's CRC32C
	// catches those on the wire).
	mangles := map[string]func([]byte) []byte{
		"truncate":   func(m []byte) []byte { return m[:len(m)-1] },
		"extend":     func(m []byte) []byte { return append(m, 0) },
		"padding":    func(m []byte) []byte { m[len(m)-1] |= 0x80; return m },
		"zero tail":  func(m []byte) []byte { clear(m[len(m)/2:]); return m },
		"all zeros":  func(m []byte) []byte { clear(m); return m },
		"loops fill": func(m []byte) []byte { return append([]byte{1}, m[1:]...) },
	}
	for _, phase := range []string{RoutePhaseCount, RoutePhaseFill} {
		for name, mangle := range mangles {
			err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
				cc := corruptingComm{Comm: c, phase: phase, mangle: mangle}
				_, _, err := buildUndirected(ctx, cc, part, EdgeSlice(perRank[c.Rank()]), 2, false, 0)
				return err
			})
			if name == "loops fill" && phase == RoutePhaseCount {
				continue // a changed self-loop count is a valid message
			}
			if err == nil || (!strings.Contains(err.Error(), "rank 0") && !errors.Is(err, comm.ErrAborted)) {
				t.Errorf("%s, %s: %v", phase, name, err)
			}
		}
	}
	// Random damage: an error or another graph, never a panic.
	for trial := range 200 {
		phase := []string{RoutePhaseCount, RoutePhaseFill}[trial%2]
		mrng := rand.New(rand.NewPCG(uint64(trial), 77))
		_ = inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
			cc := corruptingComm{Comm: c, phase: phase, mangle: func(m []byte) []byte {
				for range 1 + mrng.IntN(4) {
					m[mrng.IntN(len(m))] ^= byte(1 + mrng.IntN(255))
				}
				return m
			}}
			_, _, err := buildUndirected(ctx, cc, part, EdgeSlice(perRank[c.Rank()]), 2, trial%3 == 0, 0)
			return err
		})
	}
}

// unstableSource gives other tuples on its second reading than on its first.
type unstableSource struct {
	EdgeSlice
	reads int
}

func (s *unstableSource) Read(ctx context.Context, first int64, out []Edge) error {
	s.reads++
	if err := s.EdgeSlice.Read(ctx, first, out); err != nil {
		return err
	}
	if s.reads > 1 {
		for i := range out {
			out[i].V = (out[i].V + 1) % 100
		}
	}
	return nil
}

func TestBuildUnstableSource(t *testing.T) {
	part := block1D(t, 100, 1)
	err := inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
		src := &unstableSource{EdgeSlice: EdgeSlice{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 9}}}
		_, _, err := BuildUndirectedFrom(ctx, c, part, src, 1)
		return err
	})
	if err == nil {
		t.Fatal("a source that changed between its readings gave a CSR")
	}
}

// cancellingSource cancels its context during its k-th read.
type cancellingSource struct {
	EdgeSlice
	cancel func()
	k      int
}

func (s *cancellingSource) Read(ctx context.Context, first int64, out []Edge) error {
	if s.k--; s.k == 0 {
		s.cancel()
	}
	return s.EdgeSlice.Read(ctx, first, out)
}

func TestBuildCancelledBetweenRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	edges := randomGraph(rng, 300, 3000)
	part := block1D(t, 300, 1)
	for _, k := range []int{1, 3, 12} { // in the count pass, at its end, in the fill pass
		ctx, cancel := context.WithCancel(context.Background())
		err := inproc.Run(ctx, 1, func(ctx context.Context, c comm.Comm) error {
			_, _, err := buildUndirected(ctx, c, part, &cancellingSource{EdgeSlice: edges, cancel: cancel, k: k}, 1, false, 300)
			return err
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled in read %d: %v", k, err)
		}
	}
}

// TestBuildManyRounds builds with one to a few tuples per round, so that
// ranks with unequal shares, empty rounds and every chunk boundary occur.
func TestBuildManyRounds(t *testing.T) {
	const n = 700
	rng, edges, ref := randomCase(6, 1, n, 900)
	for _, p := range []int{1, 2, 5} {
		part := block1D(t, n, p)
		perRank := splitEdges(rng, edges, p)
		if p > 1 { // unequal shares, one of them empty
			perRank[0] = slices.Concat(perRank[0], perRank[p-1])
			perRank[p-1] = nil
		}
		for _, chunk := range []int64{1, 2, 7, 64} {
			gs, err := runBuildChunk(part, perRank, 2, chunk%2 == 0, chunk)
			if err != nil {
				t.Fatalf("p=%d chunk=%d: %v", p, chunk, err)
			}
			checkBuild(t, part, gs, ref, chunk%2 == 0)
		}
	}
}

func TestBuildUndirectedAbortedPeer(t *testing.T) {
	part := block1D(t, 100, 2)
	boom := errors.New("peer failed")
	err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		if c.Rank() == 1 {
			return boom
		}
		_, err := BuildUndirected(ctx, c, part, []Edge{{1, 2}}, 2)
		if err != nil && !errors.Is(err, comm.ErrAborted) {
			return fmt.Errorf("rank 0: %w is not comm.ErrAborted", err)
		}
		return err
	})
	if err == nil {
		t.Fatal("job with a failed rank succeeded")
	}
}

func TestDivider(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ns := []uint64{1, 2, 64, 1000, 1 << 20, 1<<32 + 1, 1 << 33, 1<<62 + 12345, 1<<63 - 1}
	ds := []uint64{64, 128, 192, 1 << 19, 349568, 1<<32 - 64, 1 << 32}
	for range 200 {
		ds = append(ds, 64*(1+rng.Uint64N(1<<26)))
	}
	for _, d := range ds {
		for _, n := range ns {
			div := newDivider(d, n)
			check := func(u uint64) {
				if u >= n {
					return
				}
				if got := div.div(u); got != u/d {
					t.Fatalf("d=%d n=%d: %d/d = %d, want %d", d, n, u, got, u/d)
				}
			}
			check(0)
			check(n - 1)
			for k := uint64(1); k < 4 && k*d < n; k++ {
				check(k*d - 1)
				check(k * d)
			}
			for q := n / d; q > 0 && q+2 > n/d; q-- {
				check(q*d - 1)
				check(q * d)
			}
			for range 200 {
				check(rng.Uint64N(n))
			}
		}
	}
}

func TestSortDedupe(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, k := range []int{0, 1, 2, 5, radixMin - 1, radixMin, radixMin + 1, 200, 5000} {
		for _, spread := range []uint64{1, 3, 256, 1 << 16, 1<<16 + 255, 1 << 32, 1 << 40} {
			ids := make([]int64, k)
			for i := range ids {
				switch rng.IntN(3) {
				case 0: // vary low and third byte only: a uniform byte in between
					ids[i] = int64(rng.Uint64N(min(spread, 256)) | rng.Uint64N(min(spread, 256))<<16)
				default:
					ids[i] = int64(rng.Uint64N(spread))
				}
			}
			want := slices.Clone(ids)
			slices.Sort(want)
			want = slices.Compact(want)

			r64 := make([]int64, k)
			for i, x := range ids {
				r64[i] = ^x
			}
			n := sortDedupe(r64, make([]int64, k))
			got := make([]int64, n)
			for i := range n {
				got[len(got)-1-i] = ^r64[i]
			}
			if !slices.Equal(got, want) {
				t.Fatalf("int64 k=%d spread=%d: %v, want %v", k, spread, got, want)
			}
			if spread > 1<<32 {
				continue
			}
			r32 := make([]uint32, k)
			for i, x := range ids {
				r32[i] = ^uint32(x)
			}
			n = sortDedupe(r32, make([]uint32, k))
			got = got[:n]
			for i := range n {
				got[n-1-i] = int64(^r32[i])
			}
			if !slices.Equal(got, want) {
				t.Fatalf("uint32 k=%d spread=%d: %v, want %v", k, spread, got, want)
			}
		}
	}
}

func TestRowOffsetsOverflow(t *testing.T) {
	cnt := [][]int64{{1, 1 << 31, 0}, {2, 1 << 31, 0}}
	if _, _, err := rowOffsets(cnt, 3, 0, 2); err == nil {
		t.Fatal("row of 2^32 half-edges accepted")
	}
	cnt = [][]int64{{1, 5, 0, 2}, {2, 0, 0, 3}}
	deg, off, err := rowOffsets(cnt, 4, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(deg, []uint32{3, 5, 0, 5}) || !slices.Equal(off, []int64{0, 3, 8, 8, 13}) ||
		!slices.Equal(cnt[0], []int64{0, 3, 8, 8}) || !slices.Equal(cnt[1], []int64{1, 8, 8, 10}) {
		t.Fatalf("degrees %v, offsets %v, cursors %v", deg, off, cnt)
	}
}

func TestBuildNarrowTooBig(t *testing.T) {
	part := block1D(t, 1<<33, 4)
	err := inproc.Run(context.Background(), 4, func(ctx context.Context, c comm.Comm) error {
		_, _, err := buildUndirected(ctx, c, part, EdgeSlice(nil), 1, false, 0)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "32-bit") {
		t.Fatalf("2^33 vertices in 32-bit columns: %v", err)
	}
}
