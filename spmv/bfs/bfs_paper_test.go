package bfs

// Tests named after what they check in the sources this package follows:
// Lv et al.'s sections and algorithms (the level-synchronous SpMV of §III,
// BIT of Alg. 1, the compressed exchange of Alg. 2, the sieve of Alg. 3 with
// Lemma V.2, the breakdown of Fig. 7), Beamer et al.'s direction
// optimisation, and the validation rules of the Graph500 spec. The sources
// are cited in full in the package documentation (doc.go).

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/gen/kronecker"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
	"github.com/graphrun/graphrun/spmv"
)

// paperRun is one distributed search's gathered tree, rank 0's steps and
// the bytes every rank encoded for the frontier exchanges, summed.
type paperRun struct {
	parent  []int64
	level   []int32
	steps   []spmv.LevelStats // rank 0's
	encoded int64             // EncodedBytes over all ranks and steps
	raw     int64             // RawBytes over all ranks and steps
}

// searchWith runs one search from root on p ranks of g with mode (one
// thread per rank) and gathers its result.
func searchWith(t *testing.T, g csrtest.Graph, root int64, p int, mode Config) paperRun {
	t.Helper()
	mode.Threads = 1
	out := paperRun{parent: make([]int64, g.N), level: make([]int32, g.N)}
	var mu sync.Mutex
	csrtest.OnRanks(t, g, p, 1, func(ctx context.Context, c comm.Comm, csr *graph.CSR, part partition.Block1D) error {
		b, err := New(c, csr, part, mode)
		if err != nil {
			return err
		}
		res, err := b.Run(ctx, root)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		copy(out.parent[csr.FirstGlobal:], res.Parent)
		copy(out.level[csr.FirstGlobal:], res.Level)
		if c.Rank() == 0 {
			out.steps = slices.Clone(res.Steps)
		}
		for _, s := range res.Steps {
			out.encoded += s.EncodedBytes
			out.raw += s.RawBytes
		}
		return nil
	})
	return out
}

// kroneckerGraph is the Graph500 graph of the given scale as an edge list,
// and a root of degree ≥ 1 (an end of its first non-loop tuple).
func kroneckerGraph(t *testing.T, scale int) (csrtest.Graph, int64) {
	t.Helper()
	params := kronecker.DefaultParams(scale)
	edges := make([]graph.Edge, params.NumEdges())
	params.GenerateParallel(0, edges, 2)
	for _, e := range edges {
		if e.U != e.V {
			return csrtest.Graph{Name: fmt.Sprintf("kronecker-%d", scale), N: params.NumVertices(), Edges: edges}, e.U
		}
	}
	t.Fatal("a Kronecker graph of self-loops only")
	return csrtest.Graph{}, 0
}

// requireSameTree fails t unless got's parents and levels are want's.
func requireSameTree(t *testing.T, what string, got, want paperRun) {
	t.Helper()
	if !slices.Equal(got.parent, want.parent) || !slices.Equal(got.level, want.level) {
		t.Fatalf("%s: the tree differs", what)
	}
}

// TestSemiringSelectMaxPicksTheLargestFrontierNeighbour_SecIII: Lv et al.
// §III's level is t = A ⊗ f over the (select, max) semiring, so a vertex
// with several frontier neighbours takes the largest as parent, whatever the
// exchange, codec, direction or rank count.
func TestSemiringSelectMaxPicksTheLargestFrontierNeighbour_SecIII(t *testing.T) {
	// Level 1 is {1, 2, 5}; 3 sees 1 and 5, 4 sees 1 and 2, 6 sees 2 and 5.
	g := csrtest.Graph{Name: "select-max", N: 7}
	for _, e := range [][2]int64{{0, 1}, {0, 2}, {0, 5}, {3, 1}, {3, 5}, {4, 1}, {4, 2}, {6, 5}, {6, 2}} {
		g.Edges = append(g.Edges, graph.Edge{U: e[0], V: e[1]})
	}
	want := map[int64]int64{3: 5, 4: 2, 6: 5}
	for _, p := range []int{1, 2, 3} {
		for _, mode := range allModes() {
			parent, level, _, verr := distributedBFS(t, g, 0, p, 1, mode)
			if verr != nil {
				t.Fatalf("%d ranks, %v: %v", p, mode, verr)
			}
			for v, par := range want {
				if parent[v] != par || level[v] != 2 {
					t.Fatalf("%d ranks, %v: vertex %d has parent %d at level %d, want parent %d at level 2", p, mode, v, parent[v], level[v], par)
				}
			}
		}
	}
}

// TestBITAndSieveGiveTheSameTree_Alg1Alg2Alg3: BIT (Alg. 1: the bitmap by
// Allgatherv), its compressed form (Alg. 2) and the sieve (Alg. 3, and the
// packed sieve past it) give one tree, because sieving keeps every frontier
// bit a receiver's rows can test (Lemma V.2: Σ_j A_{i,j} ⊗ f_{j→i} = A_i ⊗ f).
func TestBITAndSieveGiveTheSameTree_Alg1Alg2Alg3(t *testing.T) {
	g, root := kroneckerGraph(t, 10)
	bit := searchWith(t, g, root, 4, Config{Exchange: spmv.ExchangeAllgather, Direction: spmv.DirectionBottomUp})
	wantParent, wantLevel, _ := serialBFS(g, root)
	if !slices.Equal(bit.parent, wantParent) || !slices.Equal(bit.level, wantLevel) {
		t.Fatal("BIT's tree is not the serial reference's")
	}
	for _, mode := range []Config{
		{Exchange: spmv.ExchangeAllgather, Codec: "wah", Direction: spmv.DirectionBottomUp},
		{Exchange: spmv.ExchangeSieve, Codec: "raw", Direction: spmv.DirectionBottomUp},
		{Exchange: spmv.ExchangeSieve, Codec: "wah", Direction: spmv.DirectionBottomUp},
		{Exchange: spmv.ExchangePacked, Codec: "wah", Direction: spmv.DirectionBottomUp},
	} {
		requireSameTree(t, mode.String(), searchWith(t, g, root, 4, mode), bit)
	}
}

// TestCompressionShrinksASparseFrontier_Alg2: Alg. 2 compresses the bitmap
// before the Allgatherv; on a path every level's frontier is one vertex, so
// WAH sends far fewer bytes than BIT's raw bitmap for the same raw bytes.
func TestCompressionShrinksASparseFrontier_Alg2(t *testing.T) {
	g := csrtest.Graph{Name: "path", N: 4096}
	for v := int64(1); v < g.N; v++ {
		g.Edges = append(g.Edges, graph.Edge{U: v - 1, V: v})
	}
	raw := searchWith(t, g, 0, 2, Config{Exchange: spmv.ExchangeAllgather, Codec: "raw", Direction: spmv.DirectionBottomUp})
	wah := searchWith(t, g, 0, 2, Config{Exchange: spmv.ExchangeAllgather, Codec: "wah", Direction: spmv.DirectionBottomUp})
	requireSameTree(t, "wah", wah, raw)
	if wah.raw != raw.raw || raw.encoded != raw.raw {
		t.Fatalf("raw bytes %d (wah) and %d (raw), raw's encoded %d: want all equal", wah.raw, raw.raw, raw.encoded)
	}
	if wah.encoded*4 > raw.encoded {
		t.Fatalf("WAH sent %d bytes for one-vertex frontiers, raw %d: want under a quarter", wah.encoded, raw.encoded)
	}
}

// TestSieveSendsOnlyWhatPeersCanUse_Alg3: with the cross directory a rank
// sends a peer only the frontier vertices with an edge into the peer's rows
// (Alg. 3 line 9). Two communities joined by one edge, one per rank: the
// sieved exchange carries almost nothing, BIT the whole frontier.
func TestSieveSendsOnlyWhatPeersCanUse_Alg3(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := csrtest.Graph{Name: "two communities", N: 8192}
	for half := int64(0); half < 2; half++ {
		for range 16384 {
			g.Edges = append(g.Edges, graph.Edge{U: half*4096 + rng.Int64N(4096), V: half*4096 + rng.Int64N(4096)})
		}
	}
	g.Edges = append(g.Edges, graph.Edge{U: 0, V: 4096})
	bit := searchWith(t, g, 0, 2, Config{Exchange: spmv.ExchangeAllgather, Codec: "wah", Direction: spmv.DirectionBottomUp})
	sieved := searchWith(t, g, 0, 2, Config{Exchange: spmv.ExchangeSieve, Codec: "wah", Direction: spmv.DirectionBottomUp})
	packed := searchWith(t, g, 0, 2, Config{Exchange: spmv.ExchangePacked, Codec: "raw", Direction: spmv.DirectionBottomUp})
	requireSameTree(t, "sieve", sieved, bit)
	requireSameTree(t, "packed", packed, bit)
	if sieved.encoded*4 > bit.encoded {
		t.Fatalf("the sieve sent %d bytes, BIT %d: want under a quarter", sieved.encoded, bit.encoded)
	}
	if packed.encoded*4 > bit.raw {
		t.Fatalf("the packed sieve sent %d bytes of %d raw: want under a quarter", packed.encoded, bit.raw)
	}
}

// TestBreakdownPhasesAreAllMeasured_Fig7: every search times Lv et al.'s
// four phases (Fig. 7: traversing, reducing, communication, compression &
// sieve) and counts what it sends, and its steps' frontiers add up to the
// vertices it reached.
func TestBreakdownPhasesAreAllMeasured_Fig7(t *testing.T) {
	g, root := kroneckerGraph(t, 10)
	run := searchWith(t, g, root, 3, Config{Exchange: spmv.ExchangeSieve, Codec: "wah", Direction: spmv.DirectionBottomUp})
	var traverse, reduce, communicate, compress time.Duration
	var frontier, sent int64
	for _, s := range run.steps {
		traverse += s.Traverse
		reduce += s.Reduce
		communicate += s.Communicate
		compress += s.Compress
		frontier += s.Frontier
		sent += s.BytesSent
	}
	if traverse <= 0 || reduce <= 0 || communicate <= 0 || compress <= 0 {
		t.Fatalf("traversing %v, reducing %v, communication %v, compression & sieve %v: want every phase measured", traverse, reduce, communicate, compress)
	}
	if sent <= 0 || run.encoded <= 0 {
		t.Fatalf("%d bytes sent, %d encoded: want both counted", sent, run.encoded)
	}
	var reached int64
	for _, l := range run.level {
		if l >= 0 {
			reached++
		}
	}
	if frontier != reached {
		t.Fatalf("the steps' frontiers add up to %d, the search reached %d", frontier, reached)
	}
}

// TestDirectionOptimizationSwitchesAndKeepsTheTree_Beamer: with
// DirectionAuto the search goes top-down while the frontier is small and
// bottom-up while it is large (Beamer et al.), and the tree is the one
// either fixed direction finds.
func TestDirectionOptimizationSwitchesAndKeepsTheTree_Beamer(t *testing.T) {
	g, root := kroneckerGraph(t, 10)
	auto := searchWith(t, g, root, 2, Config{Exchange: spmv.ExchangeAllgather, Direction: spmv.DirectionAuto})
	used := map[spmv.Direction]bool{}
	for _, s := range auto.steps[1:] {
		used[s.Direction] = true
	}
	if !used[spmv.DirectionTopDown] || !used[spmv.DirectionBottomUp] {
		t.Fatalf("directions used %v: want both top-down and bottom-up steps", used)
	}
	for _, dir := range []spmv.Direction{spmv.DirectionTopDown, spmv.DirectionBottomUp} {
		requireSameTree(t, dir.String(), searchWith(t, g, root, 2, Config{Exchange: spmv.ExchangeAllgather, Direction: dir}), auto)
	}
}

// TestGraph500EachCheckRejectsATreeThatBreaksIt: for each of the Graph500
// spec's five validation checks, a result that breaks that check is
// rejected with that check counted, on 1 and 3 ranks.
func TestGraph500EachCheckRejectsATreeThatBreaksIt(t *testing.T) {
	mc := newMutationCase(t)
	for check := 1; check <= 5; check++ {
		name := fmt.Sprintf("check %d", check)
		var tried int
		for _, m := range mc.ruleMutations() {
			if m.want != name {
				continue
			}
			tried++
			for _, ranks := range []int{1, 3} {
				p, l := slices.Clone(mc.parent), slices.Clone(mc.level)
				claimed := m.apply(p, l)
				err := validateGlobal(t, mc.g, ranks, mc.root, p, l, claimed)
				var verr *ValidationError
				if !errors.As(err, &verr) || verr.Counts[name] == 0 {
					t.Errorf("%s (%s) on %d ranks: %v, want a violation of %s", m.name, name, ranks, err, name)
				}
			}
		}
		if tried == 0 {
			t.Errorf("no mutation breaks %s", name)
		}
	}
}

// TestGraph500NedgeCountsTheComponentsInputEdges: nedge, the edge count of
// TEPS, is the number of input tuples (duplicates included, self-loops not)
// with an end in the searched component, and the validator recounts it.
func TestGraph500NedgeCountsTheComponentsInputEdges(t *testing.T) {
	mc := newMutationCase(t)
	for _, ranks := range []int{1, 3} {
		_, _, nedge, verr := distributedBFS(t, mc.g, mc.root, ranks, 1, Config{Exchange: spmv.ExchangePush})
		if verr != nil || nedge != mc.nedge {
			t.Fatalf("%d ranks: nedge %d (%v), want %d", ranks, nedge, verr, mc.nedge)
		}
	}
}
