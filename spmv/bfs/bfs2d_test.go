package bfs

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/testgraph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
)

// search2D is one 2D search's gathered output.
type search2D struct {
	parent []int64
	level  []int32
	nedge  int64
	verr   error
	steps  []spmv.LevelStats // rank 0's
}

// distributedBFS2D runs one search on an r×c grid and validates it with the
// 2D validator on the blocks, sharing the engine's groups and directories,
// and with the 1D validator on the 1D CSR of the same tuples (the 2D result
// is in the 1D layout already): both must agree, and nedge from the blocks'
// tuple degrees must equal the CSR's.
func distributedBFS2D(t *testing.T, g csrtest.Graph, root int64, r, c, threads int, mode Config) search2D {
	t.Helper()
	p := r * c
	out := search2D{parent: make([]int64, g.N), level: make([]int32, g.N)}
	verrs := make([]error, p)
	nedges := make([]int64, p)
	mode.Threads = threads
	csrtest.OnGrid(t, g, r, c, threads, func(ctx context.Context, cm comm.Comm, blk *graph.Block2D, grid partition.Grid, mine []graph.Edge) error {
		rank := cm.Rank()
		csr, err := graph.BuildUndirected(ctx, cm, grid.Part, mine, threads)
		if err != nil {
			return err
		}
		b, err := New2D(ctx, cm, blk, mode)
		if err != nil {
			return err
		}
		var res *Result
		for range 2 { // the second search must not see the first's state
			if res, err = b.Run(ctx, root); err != nil {
				return err
			}
		}
		copy(out.parent[csr.FirstGlobal:], res.Parent)
		copy(out.level[csr.FirstGlobal:], res.Level)
		if rank == 0 {
			out.steps = slices.Clone(res.Steps)
		}
		ne, err := ComponentEdges(ctx, cm, blk.TupleDegree, res.Parent)
		if err != nil {
			return err
		}
		ne1D, err := ComponentEdges(ctx, cm, csr.TupleDegree, res.Parent)
		if err != nil {
			return err
		}
		if ne != ne1D {
			return fmt.Errorf("nedge %d from the blocks, %d from the CSR", ne, ne1D)
		}
		nedges[rank] = ne
		v, err := NewValidator2D(ctx, cm, blk, Validator2DConfig{Threads: threads, Share: b})
		if err != nil {
			return err
		}
		got2D, verr2D := v.Validate(ctx, root, res.Parent, res.Level, ne)
		got1D, verr1D := Validate(ctx, cm, csr, grid.Part, root, res.Parent, res.Level, ne, threads)
		if (verr2D == nil) != (verr1D == nil) || got2D != got1D {
			return fmt.Errorf("the 2D validator says %d, %v; the 1D validator %d, %v", got2D, verr2D, got1D, verr1D)
		}
		verrs[rank] = verr2D
		return nil
	})
	for k := 1; k < p; k++ {
		if nedges[k] != nedges[0] || (verrs[k] == nil) != (verrs[0] == nil) {
			t.Fatalf("ranks disagree: nedge %v, validation %v", nedges, verrs)
		}
	}
	out.nedge, out.verr = nedges[0], verrs[0]
	return out
}

// grids2D are the shapes the 2D tests run: 1..16 ranks, square and not.
var grids2D = [][2]int{{1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 1}, {1, 3}, {3, 2}, {2, 3}, {4, 2}, {2, 4}, {3, 3}, {5, 2}, {4, 3}, {2, 7}, {4, 4}, {8, 2}}

// TestBFS2DMatchesSerialReference: random graphs of every nasty shape on
// every grid of grids2D: levels, parents and nedge equal the serial
// reference (hence the 1D engine), and the 1D validator accepts them.
func TestBFS2DMatchesSerialReference(t *testing.T) {
	checkRandomSearches(t, 2, 160, 32, func(i int) int { return 7 * i }, func(i int, g csrtest.Graph, root int64, threads int, mode Config) (string, searchResult) {
		shape := grids2D[i%len(grids2D)]
		got := distributedBFS2D(t, g, root, shape[0], shape[1], threads, mode)
		return fmt.Sprintf("%dx%d", shape[0], shape[1]), searchResult{got.parent, got.level, got.nedge, got.verr}
	})
}

// TestBFS2DEveryModeCodecAndDirection: every exchange × codec × direction on
// a Kronecker graph and a path, on square and non-square grids of 1..16
// ranks, gives the serial reference's levels and parents, and validates.
func TestBFS2DEveryModeCodecAndDirection(t *testing.T) {
	params := kronecker.DefaultParams(9)
	kron := csrtest.Graph{Name: "kronecker", N: params.NumVertices(), Edges: make([]graph.Edge, params.NumEdges())}
	params.Generate(0, kron.Edges)
	path := csrtest.Random(rand.New(rand.NewPCG(5, 6)), testgraph.ShapePath)
	shapes := [][2]int{{1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 2}, {2, 5}, {4, 4}}
	if testing.Short() {
		shapes = [][2]int{{1, 2}, {3, 2}, {4, 4}}
	}
	for _, g := range []csrtest.Graph{kron, path} {
		root := g.Edges[0].U
		wantParent, wantLevel, wantNEdge := serialBFS(g, root)
		for _, shape := range shapes {
			for _, mode := range allModes() {
				got := distributedBFS2D(t, g, root, shape[0], shape[1], 2, mode)
				if got.verr != nil || got.nedge != wantNEdge || !slices.Equal(got.level, wantLevel) || !slices.Equal(got.parent, wantParent) {
					t.Fatalf("%s on %dx%d, %v: nedge %d (want %d), levels equal %v, parents equal %v, validation %v",
						g.Name, shape[0], shape[1], mode, got.nedge, wantNEdge, slices.Equal(got.level, wantLevel),
						slices.Equal(got.parent, wantParent), got.verr)
				}
			}
		}
	}
}

// TestBFS2DSameStepsAs1D: on a Kronecker graph the 2D engine takes the same
// direction and finds the same number of vertices at every level as the 1D
// engine, and sends fewer messages per rank.
func TestBFS2DSameStepsAs1D(t *testing.T) {
	params := kronecker.DefaultParams(11)
	kron := csrtest.Graph{Name: "kronecker", N: params.NumVertices(), Edges: make([]graph.Edge, params.NumEdges())}
	params.Generate(0, kron.Edges)
	root := kron.Edges[3].U
	for _, mode := range []Config{{Exchange: spmv.ExchangeAllgather, Codec: "raw"}, {Exchange: spmv.ExchangeSieve, Codec: "wah", Direction: spmv.DirectionBottomUp},
		{Exchange: spmv.ExchangePacked, Codec: "auto"}} {
		var steps1D []spmv.LevelStats
		csrtest.OnRanks(t, kron, 16, 1, func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error {
			m := mode
			m.Threads = 1
			b, err := New(c, csr, part, m)
			if err != nil {
				return err
			}
			res, err := b.Run(ctx, root)
			if err == nil && c.Rank() == 0 {
				steps1D = slices.Clone(res.Steps)
			}
			return err
		})
		got := distributedBFS2D(t, kron, root, 4, 4, 1, mode)
		if len(got.steps) != len(steps1D) {
			t.Fatalf("%v: %d steps in 2D, %d in 1D", mode, len(got.steps), len(steps1D))
		}
		var msg1, msg2 int64
		for k := range steps1D {
			a, b := steps1D[k], got.steps[k]
			if a.Direction != b.Direction || a.Frontier != b.Frontier {
				t.Fatalf("%v level %d: 1D %v %d, 2D %v %d", mode, k, a.Direction, a.Frontier, b.Direction, b.Frontier)
			}
			msg1 += a.Messages
			msg2 += b.Messages
			// Fold, row update and row reduce: 3(c−1); expand and column reduce: 2(r−1).
			if k > 0 && b.Messages > 3*3+2*3 {
				t.Fatalf("%v level %d: rank 0 sent %d messages on a 4x4 grid", mode, k, b.Messages)
			}
		}
		if 2*msg2 > msg1 {
			t.Fatalf("%v: 2D sent %d messages on rank 0, 1D %d", mode, msg2, msg1)
		}
	}
}

func TestBFS2DRejects(t *testing.T) {
	g := csrtest.Graph{Name: "pair", N: 2, Edges: []graph.Edge{{U: 0, V: 1}}}
	grid, err := partition.NewGrid(g.N, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	err = inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		blk, err := graph.BuildUndirected2D(ctx, c, grid, g.Edges[:c.Rank()], 1)
		if err != nil {
			return err
		}
		if _, err := New2D(ctx, c, blk, Config{Threads: 0}); fielderr.Field(err) != "Threads" {
			return fmt.Errorf("0 threads: %v, want an error of Threads", err)
		}
		if _, err := New2D(ctx, c, blk, Config{Threads: 1, Codec: "nonsense"}); fielderr.Field(err) != "Codec" {
			return fmt.Errorf("bad codec: %v, want an error of Codec", err)
		}
		b, err := New2D(ctx, c, blk, Config{Threads: 1})
		if err != nil {
			return err
		}
		for _, root := range []int64{-1, 2} {
			if _, err := b.Run(ctx, root); err == nil {
				return fmt.Errorf("root %d accepted", root)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFoldMessageCorrupt: a damaged fold message is an error, not a panic.
func TestFoldMessageCorrupt(t *testing.T) {
	grid, err := partition.NewGrid(300, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	err = inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
		blk, err := graph.BuildUndirected2D(ctx, c, grid, []graph.Edge{{U: 1, V: 299}, {U: 5, V: 200}}, 1)
		if err != nil {
			return err
		}
		b, err := New2D(ctx, c, blk, Config{Threads: 1, Codec: "list"})
		if err != nil {
			return err
		}
		// A message about this rank's own piece decodes as if a peer had sent it.
		b.found.Set(int64(b.gj) * grid.Part.Block)
		good, _, _, err := b.foldMessage(nil, b.gj, 0)
		if err != nil {
			return err
		}
		if err := b.decodeFold(b.gj^1, good, 0); err != nil {
			return fmt.Errorf("good message rejected: %w", err)
		}
		for _, bad := range [][]byte{{0xff}, good[:len(good)-1], append(slices.Clone(good), 0, 0, 0, 0), binary.AppendUvarint(nil, 1<<40)} {
			if err := b.decodeFold(b.gj^1, bad, 0); err == nil {
				return fmt.Errorf("corrupt message %v accepted", bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPackOpenRoundTrip: packOpen and unpackInto are inverse on the open
// positions, whatever lies outside them.
func TestPackOpenRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 300 {
		words := 1 + rng.IntN(6)
		rnd := func(density int) frontier.Bitmap {
			b := make(frontier.Bitmap, words)
			for w := range b {
				for range density {
					b[w] |= 1 << rng.IntN(64)
				}
			}
			return b
		}
		next, visited, dir, known := rnd(rng.IntN(40)), rnd(rng.IntN(40)), rnd(rng.IntN(60)), rnd(rng.IntN(10))
		if trial%3 == 0 {
			known = nil
		}
		for w := range visited {
			visited[w] |= next[w] // the new vertices are visited
		}
		packed, _ := packOpen(nil, nil, next, visited, dir, known)
		// The receiver's closed positions: not in dir, or visited before, or known.
		closed := make(frontier.Bitmap, words)
		want := make(frontier.Bitmap, words)
		for w := range closed {
			closed[w] = visited[w] &^ next[w]
			if known != nil {
				closed[w] |= known[w]
				want[w] = next[w] & dir[w] &^ known[w]
			} else {
				want[w] = next[w] & dir[w]
			}
		}
		codec, _ := frontier.New("raw")
		msg, err := codec.Encode(nil, packed)
		if err != nil {
			t.Fatal(err)
		}
		b := &BFS2D{codecs: []frontier.Codec{codec}, use: []frontier.Codec{codec}, scratch: []frontier.Bitmap{nil}, open: []frontier.Bitmap{nil}}
		got := make(frontier.Bitmap, words)
		if err := b.unpackInto(got, msg, dir, closed, 0); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: unpacked %x, want %x", trial, got, want)
		}
		open := 0
		for w := range dir {
			open += bits.OnesCount64(dir[w] &^ closed[w])
		}
		if len(packed) != frontier.WordsFor(int64(open)) {
			t.Fatalf("trial %d: %d packed words for %d open positions", trial, len(packed), open)
		}
	}
}
