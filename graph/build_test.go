package graph

import (
	"context"
	"encoding/binary"
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

// runBuild builds on p in-process ranks and returns every rank's CSR.
func runBuild(part partition.Block1D, perRank [][]Edge, threads int, wide bool) ([]*CSR, error) {
	out := make([]*CSR, part.P)
	err := inproc.Run(context.Background(), part.P, func(ctx context.Context, c comm.Comm) error {
		g, err := buildUndirected(ctx, c, part, perRank[c.Rank()], threads, wide)
		if err != nil {
			return err
		}
		out[c.Rank()] = g
		return nil
	})
	return out, err
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
			part, err := partition.NewBlock1D(n, p)
			if err != nil {
				t.Fatal(err)
			}
			perRank := splitEdges(rng, edges, p)
			for threads := 1; threads <= 4; threads++ {
				wide := (int(seed)+p+threads)%5 == 0 // the 64-bit path on some runs too
				t.Run(fmt.Sprintf("seed%d/n%d/m%d/p%d/t%d/wide%v", seed, n, m, p, threads, wide), func(t *testing.T) {
					gs, err := runBuild(part, perRank, threads, wide)
					if err != nil {
						t.Fatal(err)
					}
					checkBuild(t, part, gs, ref, wide)
				})
			}
		}
	}
}

func TestBuildUndirectedWideAllThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	n := int64(777)
	edges := randomGraph(rng, n, 5000)
	ref := buildReference(n, edges)
	for _, p := range []int{1, 3, 8} {
		part, err := partition.NewBlock1D(n, p)
		if err != nil {
			t.Fatal(err)
		}
		perRank := splitEdges(rng, edges, p)
		for threads := 1; threads <= 4; threads++ {
			gs, err := runBuild(part, perRank, threads, true)
			if err != nil {
				t.Fatalf("p=%d threads=%d: %v", p, threads, err)
			}
			checkBuild(t, part, gs, ref, true)
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
			part, err := partition.NewBlock1D(tc.n, p)
			if err != nil {
				t.Fatal(err)
			}
			perRank := splitEdges(rand.New(rand.NewPCG(uint64(p), 1)), tc.edges, p)
			for _, threads := range []int{1, 3} {
				gs, err := runBuild(part, perRank, threads, false)
				if err != nil {
					t.Fatalf("%s p=%d threads=%d: %v", tc.name, p, threads, err)
				}
				checkBuild(t, part, gs, ref, false)
			}
		}
	}
}

func TestBuildUndirectedPublicAPI(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	n := int64(300)
	edges := randomGraph(rng, n, 1500)
	ref := buildReference(n, edges)
	part, err := partition.NewBlock1D(n, 3)
	if err != nil {
		t.Fatal(err)
	}
	perRank := splitEdges(rng, edges, 3)
	gs := make([]*CSR, 3)
	err = inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		g, err := BuildUndirected(ctx, c, part, perRank[c.Rank()], 0) // 0: GOMAXPROCS threads
		gs[c.Rank()] = g
		if err == nil && c.Stats().Phase(RoutePhase).Calls != 1 {
			err = fmt.Errorf("rank %d: %d %s calls, want 1", c.Rank(), c.Stats().Phase(RoutePhase).Calls, RoutePhase)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	checkBuild(t, part, gs, ref, false)
}

func TestHasEdgeOnBuiltRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	n := int64(400)
	edges := randomGraph(rng, n, 3000)
	ref := buildReference(n, edges)
	for _, wide := range []bool{false, true} {
		part, err := partition.NewBlock1D(n, 4)
		if err != nil {
			t.Fatal(err)
		}
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

// TestRouteHugeIDs routes tuples of a 2^33-vertex graph (the Cols64 case; a
// whole build would need 2^31 offsets per rank) and checks every record.
func TestRouteHugeIDs(t *testing.T) {
	part, err := partition.NewBlock1D(1<<33, 4)
	if err != nil {
		t.Fatal(err)
	}
	edges := []Edge{
		{0, 1<<33 - 1}, {1<<32 + 5, 1<<32 + 5}, {3 << 31, 1<<31 - 1}, {1<<33 - 2, 1<<32 + 7}, {1 << 32, 12345},
	}
	type rec struct {
		dest  int
		local uint32
		nbr   int64
	}
	var want []rec
	for _, e := range edges {
		want = append(want, rec{part.Owner(e.U), part.Local(e.U), e.V})
		if e.U != e.V {
			want = append(want, rec{part.Owner(e.V), part.Local(e.V), e.U})
		}
	}
	for threads := 1; threads <= 4; threads++ {
		send, err := routeEdges(part, edges, threads)
		if err != nil {
			t.Fatal(err)
		}
		var got []rec
		for d, m := range send {
			k, err := messageRecords(m, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range k {
				r := m[i*RecordSize:]
				got = append(got, rec{d, binary.LittleEndian.Uint32(r), int64(binary.LittleEndian.Uint64(r[4:]))})
			}
		}
		cmp := func(a, b rec) int {
			if a.dest != b.dest {
				return a.dest - b.dest
			}
			if a.local != b.local {
				return int(int64(a.local) - int64(b.local))
			}
			return int(a.nbr - b.nbr)
		}
		w := slices.Clone(want)
		slices.SortFunc(w, cmp)
		slices.SortFunc(got, cmp)
		if !slices.Equal(got, w) {
			t.Fatalf("threads=%d: records %v, want %v", threads, got, w)
		}
	}
}

func TestBuildUndirectedBadIDs(t *testing.T) {
	n := int64(200)
	part, err := partition.NewBlock1D(n, 3)
	if err != nil {
		t.Fatal(err)
	}
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
	part, err := partition.NewBlock1D(100, 2)
	if err != nil {
		t.Fatal(err)
	}
	err = inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
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
	part, err := partition.NewBlock1D(100, 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = inproc.Run(ctx, 2, func(ctx context.Context, c comm.Comm) error {
		_, err := BuildUndirected(ctx, c, part, []Edge{{1, 2}}, 1)
		return err
	})
	if err == nil {
		t.Fatal("cancelled build succeeded")
	}
}

func TestDecodeCorruptMessages(t *testing.T) {
	for _, size := range []int{1, 11, 13, 25} {
		if _, err := messageRecords(make([]byte, size), 2); err == nil {
			t.Errorf("%d-byte message accepted", size)
		}
	}
	for _, size := range []int{0, 12, 24} {
		if k, err := messageRecords(make([]byte, size), 2); err != nil || k != size/RecordSize {
			t.Errorf("%d-byte message: %d records, %v", size, k, err)
		}
	}

	const first, n, nLocal = 128, 300, 64
	msg := func(local uint32, nbr uint64) []byte {
		b := make([]byte, 3*RecordSize)
		putRecord(b, 0, 0, 5)
		putRecord(b, RecordSize, 3, first+3) // self-loop marker
		binary.LittleEndian.PutUint32(b[2*RecordSize:], local)
		binary.LittleEndian.PutUint64(b[2*RecordSize+4:], nbr)
		return b
	}
	cnt := make([]int64, nLocal)
	loops, err := countRecords(msg(nLocal-1, n-1), 1, 0, 3, first, n, cnt)
	if err != nil || loops != 1 || cnt[0] != 1 || cnt[nLocal-1] != 1 || cnt[3] != 0 {
		t.Fatalf("valid message: loops %d, counts %v, error %v", loops, cnt, err)
	}
	for _, c := range []struct {
		local uint32
		nbr   uint64
	}{{nLocal, 1}, {1 << 31, 1}, {^uint32(0), 1}, {1, n}, {1, 1 << 63}, {1, ^uint64(0)}} {
		_, err := countRecords(msg(c.local, c.nbr), 1, 0, 3, first, n, make([]int64, nLocal))
		if err == nil || !strings.Contains(err.Error(), "record 2") {
			t.Errorf("record (%d,%d): error %v, want one naming record 2", c.local, c.nbr, err)
		}
	}
}

// TestAssembleCorruptMessage feeds a corrupt message to the receive side as a
// faulty network would.
func TestAssembleCorruptMessage(t *testing.T) {
	part, err := partition.NewBlock1D(256, 2)
	if err != nil {
		t.Fatal(err)
	}
	good := make([]byte, RecordSize)
	putRecord(good, 0, 1, 2)
	for _, recv := range [][][]byte{
		{good, good[:7]},
		{good, make([]byte, RecordSize+1)},
		{good, func() []byte { b := make([]byte, RecordSize); putRecord(b, 0, 200, 2); return b }()},
		{good},
	} {
		if _, err := assemble[uint32](context.Background(), part, 1, recv, 2); err == nil {
			t.Errorf("corrupt messages %v accepted", recv)
		}
	}
	if _, err := assemble[int64](context.Background(), part, 1, [][]byte{good, good}, 2); err != nil {
		t.Errorf("valid messages rejected: %v", err)
	}
}

func TestBuildUndirectedAbortedPeer(t *testing.T) {
	part, err := partition.NewBlock1D(100, 2)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("peer failed")
	err = inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
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

func TestAssembleCancelled(t *testing.T) {
	part, err := partition.NewBlock1D(256, 1)
	if err != nil {
		t.Fatal(err)
	}
	send, err := routeEdges(part, []Edge{{1, 2}, {3, 3}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := assemble[uint32](ctx, part, 0, send, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled assemble: %v", err)
	}
}

func TestBuildNarrowTooBig(t *testing.T) {
	part, err := partition.NewBlock1D(1<<33, 4)
	if err != nil {
		t.Fatal(err)
	}
	err = inproc.Run(context.Background(), 4, func(ctx context.Context, c comm.Comm) error {
		_, err := buildUndirected(ctx, c, part, nil, 1, false)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "32-bit") {
		t.Fatalf("2^33 vertices in 32-bit columns: %v", err)
	}
}
