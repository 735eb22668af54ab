package graph

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/partition"
)

// runBuild2D builds the blocks of grid on its ranks, in rounds of a size
// that varies with the threads, so that most builds take several rounds.
func runBuild2D(grid partition.Grid, perRank [][]Edge, threads int) ([]*Block2D, error) {
	out := make([]*Block2D, grid.P())
	largest := 0
	for _, es := range perRank {
		largest = max(largest, len(es))
	}
	chunk := int64(1 + largest/threads)
	err := inproc.Run(context.Background(), grid.P(), func(ctx context.Context, c comm.Comm) error {
		b, _, err := buildUndirected2D(ctx, c, grid, EdgeSlice(perRank[c.Rank()]), threads, chunk)
		out[c.Rank()] = b
		return err
	})
	return out, err
}

// checkBuild2D compares every block with the reference: block (i, j) holds,
// for each vertex u of R_i, exactly u's neighbours in C_j (descending by
// rows, ascending by columns), and owners get the whole graph's degrees.
func checkBuild2D(t *testing.T, grid partition.Grid, bs []*Block2D, ref reference) {
	t.Helper()
	var stored, loops, wantLoops int64
	for _, l := range ref.loops {
		wantLoops += l
	}
	for r, b := range bs {
		i, j := grid.Coords(r)
		if b.Row != i || b.Col != j || b.RowFirst != grid.RowFirst(i) || b.NumRows != grid.RowCount(i) ||
			b.OwnedFirst != grid.Part.First(r) || b.NumOwned != grid.Part.Count(r) {
			t.Fatalf("rank %d: header %+v", r, b)
		}
		// Rows.
		byCol := map[uint32][]uint32{}
		for l := 0; l < b.NumRows; l++ {
			u := b.RowFirst + int64(l)
			var want []int64
			for _, v := range ref.adj[u] {
				if grid.ColOf(v) == j {
					want = append(want, v)
				}
			}
			var got []int64
			for _, c := range b.RowEntries(uint32(l)) {
				got = append(got, grid.ColGlobal(j, c))
				byCol[c] = append(byCol[c], uint32(l))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("rank %d (%d,%d) row %d (vertex %d): %v, want %v", r, i, j, l, u, got, want)
			}
		}
		// Columns: the same entries, rows ascending.
		nonEmpty := 0
		for c := uint32(0); int64(c) < grid.ColSpan(); c++ {
			got := b.ColEntries(c)
			if !slices.Equal(got, byCol[c]) {
				t.Fatalf("rank %d column %d: rows %v, want %v", r, c, got, byCol[c])
			}
			if len(got) > 0 {
				nonEmpty++
			}
		}
		if nonEmpty != len(b.ColOffsets)-1 || int64(len(b.RowIDs)) != b.NumEdges() {
			t.Fatalf("rank %d: %d non-empty columns, %d offsets; %d row ids, %d entries", r, nonEmpty, len(b.ColOffsets), len(b.RowIDs), b.NumEdges())
		}
		for x := range b.NumOwned {
			v := b.OwnedFirst + int64(x)
			if int(b.Degree[x]) != len(ref.adj[v]) || int64(b.TupleDegree[x]) != ref.tupleDeg[v] {
				t.Fatalf("rank %d vertex %d: degree %d tuples %d, want %d %d", r, v, b.Degree[x], b.TupleDegree[x], len(ref.adj[v]), ref.tupleDeg[v])
			}
		}
		var ownLoops int64
		for x := range b.NumOwned {
			ownLoops += ref.loops[b.OwnedFirst+int64(x)]
		}
		if b.SelfLoops != ownLoops {
			t.Fatalf("rank %d: %d self-loops, want %d", r, b.SelfLoops, ownLoops)
		}
		loops += b.SelfLoops
		stored += b.NumEdges()
		if b.Bytes() <= 0 {
			t.Fatalf("rank %d: Bytes %d", r, b.Bytes())
		}
	}
	if stored != 2*ref.undirected || loops != wantLoops {
		t.Fatalf("stored %d entries (want %d), %d self-loops (want %d)", stored, 2*ref.undirected, loops, wantLoops)
	}
}

var testGrids = [][2]int{{1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 2}, {2, 3}, {4, 1}, {1, 4}, {3, 3}, {4, 4}}

func TestBuildUndirected2DRandom(t *testing.T) {
	sizes := []int64{1, 2, 63, 64, 65, 100, 129, 500, 1000, 2000}
	seeds := 20
	if testing.Short() {
		seeds = 8
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x2d))
		n := sizes[seed%len(sizes)]
		edges := randomGraph(rng, n, rng.IntN(int(4*n)+10))
		ref := buildReference(n, edges)
		for gi, rc := range testGrids {
			if (gi+seed)%3 != 0 && rc[0]*rc[1] > 4 && testing.Short() {
				continue
			}
			grid, err := partition.NewGrid(n, rc[0], rc[1])
			if err != nil {
				t.Fatal(err)
			}
			perRank := splitEdges(rng, edges, grid.P())
			bs, err := runBuild2D(grid, perRank, 1+seed%3)
			if err != nil {
				t.Fatalf("n=%d grid %s: %v", n, grid, err)
			}
			checkBuild2D(t, grid, bs, ref)
		}
	}
}

func TestBuildUndirected2DSpecialGraphs(t *testing.T) {
	var star, path []Edge
	for v := int64(1); v < 700; v++ {
		star = append(star, Edge{0, v}, Edge{v, 0})
		path = append(path, Edge{v - 1, v})
	}
	cases := []struct {
		name  string
		n     int64
		edges []Edge
	}{
		{"empty", 10, nil},
		{"one vertex loops", 1, []Edge{{0, 0}, {0, 0}}},
		{"only loops", 300, []Edge{{0, 0}, {299, 299}, {150, 150}}},
		{"star", 700, star},
		{"path", 700, path},
	}
	for _, tc := range cases {
		ref := buildReference(tc.n, tc.edges)
		for _, rc := range [][2]int{{1, 1}, {2, 2}, {4, 2}, {2, 4}, {3, 5}} {
			grid, err := partition.NewGrid(tc.n, rc[0], rc[1])
			if err != nil {
				t.Fatal(err)
			}
			for _, threads := range []int{1, 3} {
				bs, err := runBuild2D(grid, splitEdges(rand.New(rand.NewPCG(1, 2)), tc.edges, grid.P()), threads)
				if err != nil {
					t.Fatalf("%s grid %s: %v", tc.name, grid, err)
				}
				checkBuild2D(t, grid, bs, ref)
			}
		}
	}
}

func TestBuildUndirected2DRejects(t *testing.T) {
	grid, err := partition.NewGrid(100, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Bad ids name the tuple; a grid of the wrong size is refused.
	perRank := [][]Edge{{{0, 1}}, {{5, 100}}, nil, nil}
	if _, err := runBuild2D(grid, perRank, 1); err == nil || !strings.Contains(err.Error(), "tuple 0 (5,100)") {
		t.Fatalf("bad id: %v", err)
	}
	err = inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		_, err := BuildUndirected2D(ctx, c, grid, nil, 1)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "ranks") {
		t.Fatalf("wrong rank count: %v", err)
	}
}

func TestRecordChecker(t *testing.T) {
	grid, err := partition.NewGrid(1000, 3, 2) // Block 192: pieces 0..5, the last short
	if err != nil {
		t.Fatal(err)
	}
	for r := range grid.P() {
		i, j := grid.Coords(r)
		b := &Block2D{Grid: grid, Rank: r, Row: i, Col: j, NumRows: grid.RowCount(i), NumOwned: grid.Part.Count(r)}
		rc := newRecordChecker(b)
		for u := grid.RowFirst(i); u < grid.RowFirst(i)+int64(b.NumRows); u++ {
			for v := int64(0); v < grid.Part.N; v++ {
				if grid.ColOf(v) != j {
					continue
				}
				ok, loop := rc.check(uint32(u-grid.RowFirst(i)), grid.ColLocal(v))
				if !ok || loop != (u == v) {
					t.Fatalf("rank %d: (%d,%d) ok=%v loop=%v", r, u, v, ok, loop)
				}
			}
		}
		if ok, _ := rc.check(uint32(b.NumRows), 0); ok {
			t.Fatalf("rank %d: row past the end accepted", r)
		}
		// A column past the short last piece of the column.
		if a := grid.R - 1; grid.Part.Count(grid.Rank(a, j)) < int(grid.Part.Block) {
			if ok, _ := rc.check(0, uint32(int64(a)*grid.Part.Block+grid.Part.Block-1)); ok {
				t.Fatalf("rank %d: column beyond the graph accepted", r)
			}
		}
	}
}

// TestBuild2DCorruptMessages: damaged 2D kernel 1 messages are errors (an
// entry outside the block, a self-loop entry), never a panic.
func TestBuild2DCorruptMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	n := int64(400)
	edges := randomGraph(rng, n, 3000)
	grid, err := partition.NewGrid(n, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	perRank := splitEdges(rng, edges, 2)
	for trial := range 120 {
		phase := []string{RoutePhaseCount, RoutePhaseFill}[trial%2]
		mrng := rand.New(rand.NewPCG(uint64(trial), 5))
		var corrupted bool
		err := inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
			cc := corruptingComm{Comm: c, phase: phase, mangle: func(m []byte) []byte {
				corrupted = true
				switch trial % 3 {
				case 0:
					return m[:len(m)-1]
				case 1:
					return append(m, 1)
				}
				m[mrng.IntN(len(m))] ^= byte(1 + mrng.IntN(255))
				return m
			}}
			_, _, err := buildUndirected2D(ctx, cc, grid, EdgeSlice(perRank[c.Rank()]), 2, 0)
			return err
		})
		if corrupted && trial%3 != 2 && err == nil {
			t.Fatalf("trial %d (%s): a truncated or extended message was accepted", trial, phase)
		}
	}
}
