// Tests of the dense relabelling (labels.go): the id collector, the
// distributed sample sort against the serial labelling on 1 to 6 ranks,
// Labels.Map, negative ids, the splitters, and RelabelLocal against a
// one-rank RelabelShare.

package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// distinctIDs returns the sorted distinct ids of edges.
func distinctIDs(edges []Edge) []int64 {
	ids := make([]int64, 0, 2*len(edges))
	for _, e := range edges {
		ids = append(ids, e.U, e.V)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// runRelabel runs Relabel with one rank per share.
func runRelabel(t *testing.T, shares [][]Edge) (dense [][]Edge, original [][]int64, n []int64) {
	t.Helper()
	p := len(shares)
	dense, original, n = make([][]Edge, p), make([][]int64, p), make([]int64, p)
	err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
		r := c.Rank()
		in := slices.Clone(shares[r])
		d, o, nv, err := Relabel(ctx, c, in)
		if err != nil {
			return err
		}
		if !slices.Equal(in, shares[r]) {
			return fmt.Errorf("rank %d: Relabel modified its input", r)
		}
		dense[r], original[r], n[r] = d, o, nv
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dense, original, n
}

// checkRelabel checks the vertex count and the inverse maps against the
// sorted distinct ids.
func checkRelabel(t *testing.T, what string, ids []int64, dense [][]Edge, original [][]int64, n []int64) {
	t.Helper()
	p := len(dense)
	for r := range p {
		if n[r] != int64(len(ids)) {
			t.Fatalf("%s: rank %d counts %d vertices, want %d", what, r, n[r], len(ids))
		}
	}
	if len(ids) == 0 {
		for r := range p {
			if len(original[r]) != 0 {
				t.Fatalf("%s: rank %d has original ids without vertices", what, r)
			}
		}
		return
	}
	part := block1D(t, int64(len(ids)), p)
	for r := range p {
		if len(original[r]) != part.Count(r) {
			t.Fatalf("%s: rank %d holds %d original ids, owns %d vertices", what, r, len(original[r]), part.Count(r))
		}
	}
	if got := slices.Concat(original...); !slices.Equal(got, ids) {
		t.Fatalf("%s: the original ids are not the sorted distinct ids", what)
	}
}

// TestRelabelRandom relabels random sparse graphs spread unevenly over 1 to
// 6 ranks and compares with the serial labelling.
func TestRelabelRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 60 {
		m := rng.IntN(2000)
		if iter%10 == 0 {
			m = rng.IntN(3)
		}
		edges := make([]Edge, m)
		spread := int64(1) << uint(rng.IntN(63))
		for i := range edges {
			edges[i] = Edge{rng.Int64N(spread), rng.Int64N(spread)}
			if rng.IntN(5) == 0 {
				edges[i].V = math.MaxInt64 - rng.Int64N(3)
			}
		}
		ids := distinctIDs(edges)
		p := 1 + rng.IntN(6)
		shares := make([][]Edge, p)
		for _, e := range edges {
			r := rng.IntN(p)
			if rng.IntN(2) == 0 {
				r = 0 // uneven
			}
			shares[r] = append(shares[r], e)
		}
		dense, original, n := runRelabel(t, shares)
		checkRelabel(t, fmt.Sprintf("iter %d, %d ranks", iter, p), ids, dense, original, n)
		for r := range p {
			for i, e := range shares[r] {
				d := dense[r][i]
				if original[0] != nil && (ids[d.U] != e.U || ids[d.V] != e.V) {
					t.Fatalf("iter %d rank %d edge %d: %v relabelled %v", iter, r, i, e, d)
				}
			}
		}
	}
}

func TestRelabelNegativeID(t *testing.T) {
	errs := make([]error, 3)
	err := inproc.Run(context.Background(), 3, func(ctx context.Context, c comm.Comm) error {
		edges := []Edge{{1, 2}}
		if c.Rank() == 1 {
			edges = append(edges, Edge{3, -4})
		}
		_, _, _, err := Relabel(ctx, c, edges)
		errs[c.Rank()] = err
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "negative vertex id") {
			t.Errorf("rank %d: %v, want a negative-id error", r, err)
		}
	}
	if !strings.Contains(errs[1].Error(), "edge 1 (3, -4)") {
		t.Errorf("rank 1: %v, want the bad edge named", errs[1])
	}
}

func TestRelabelSplitters(t *testing.T) {
	// Many equal samples still give p−1 sorted splitters.
	msg := []byte{0}
	for range 10 {
		msg = appendInt64s(msg, []int64{5, 1})
	}
	s := relabelSplitters([][]byte{msg, {0}}, 4)
	if len(s) != 3 || !slices.IsSorted(s) {
		t.Fatalf("splitters %v", s)
	}
	if s := relabelSplitters([][]byte{{0}, {0}}, 2); s != nil {
		t.Fatalf("splitters without samples: %v", s)
	}
}

// TestIDCollector checks both ways of collecting distinct ids, and the
// switch from the bitmap to the list in the middle of a share.
func TestIDCollector(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := range 40 {
		var edges []Edge
		for range rng.IntN(3000) {
			edges = append(edges, Edge{rng.Int64N(5000), rng.Int64N(5000)})
		}
		if iter%2 == 1 { // ids far beyond a bitmap: the list
			for range 1 + rng.IntN(50) {
				edges = append(edges, Edge{rng.Int64N(math.MaxInt64), rng.Int64N(100)})
			}
		}
		col := newIDCollector()
		for lo := 0; lo < len(edges); {
			hi := min(len(edges), lo+1+rng.IntN(700))
			col.add(edges[lo:hi])
			if rng.IntN(3) == 0 {
				col.merge() // as a full buffer would
			}
			lo = hi
		}
		var ids []uint64
		if col.list {
			col.merge()
			ids = col.ids
		} else {
			ids = bitmapIDs(col.bits, nil)
		}
		want := distinctIDs(edges)
		if len(ids) != len(want) {
			t.Fatalf("iter %d: %d ids, want %d", iter, len(ids), len(want))
		}
		for i, x := range want {
			if ids[i] != uint64(x) {
				t.Fatalf("iter %d: id %d is %d, want %d", iter, i, ids[i], x)
			}
		}
		if col.list != (iter%2 == 1) {
			t.Errorf("iter %d: list mode %v", iter, col.list)
		}
		if col.edges != int64(len(edges)) || col.bad >= 0 {
			t.Errorf("iter %d: %d edges, bad %d", iter, col.edges, col.bad)
		}
	}
}

// TestLabelsMap relabels dense and sparse ids on 3 ranks and checks the
// map of every rank's edges against the serial labelling, and that an id
// of another share is refused (the input changed between passes).
func TestLabelsMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sparse := range []bool{false, true} {
		edges := make([]Edge, 2000)
		for i := range edges {
			edges[i] = Edge{rng.Int64N(900), rng.Int64N(900)}
			if sparse {
				edges[i].U = rng.Int64N(1 << 60)
			}
		}
		ids := distinctIDs(edges)
		const p = 3
		err := inproc.Run(context.Background(), p, func(ctx context.Context, c comm.Comm) error {
			mine := edges[len(edges)*c.Rank()/p : len(edges)*(c.Rank()+1)/p]
			l, err := RelabelShare(ctx, c, EdgeChunks{mine[:100], mine[100:]})
			if err != nil {
				return err
			}
			if l.N != int64(len(ids)) || l.Edges != int64(len(mine)) {
				return fmt.Errorf("rank %d: %d vertices, %d edges", c.Rank(), l.N, l.Edges)
			}
			if (l.bits == nil) != sparse {
				return fmt.Errorf("rank %d: bitmap %v for sparse %v", c.Rank(), l.bits != nil, sparse)
			}
			out := make([]uint64, len(mine))
			if err := l.Map(mine, out); err != nil {
				return err
			}
			for i, e := range mine {
				u, _ := slices.BinarySearch(ids, e.U)
				v, _ := slices.BinarySearch(ids, e.V)
				if out[i] != uint64(u)<<32|uint64(v) {
					return fmt.Errorf("rank %d edge %v: mapped to %x", c.Rank(), e, out[i])
				}
			}
			for _, bad := range []Edge{{mine[0].U, 1 << 62}, {-1, mine[0].V}, {901, mine[0].V}} {
				if err := l.Map([]Edge{bad}, out); !errors.Is(err, ErrShareChanged) {
					return fmt.Errorf("rank %d: Map(%v) = %v, want ErrShareChanged", c.Rank(), bad, err)
				}
			}
			if l.Bytes() <= 0 {
				return fmt.Errorf("rank %d: labels of %d bytes", c.Rank(), l.Bytes())
			}
			return nil
		})
		if err != nil {
			t.Fatalf("sparse %v: %v", sparse, err)
		}
	}
}

// TestRelabelLocalIsOneRankRelabelShare: labelling a whole input in one
// process gives the labels RelabelShare gives on a job of one rank (dense
// and sparse ids, and none), and the same errors.
func TestRelabelLocalIsOneRankRelabelShare(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, spread := range []int64{0, 900, 1 << 60} {
		var edges []Edge
		if spread > 0 {
			edges = make([]Edge, 3000)
			for i := range edges {
				edges[i] = Edge{U: rng.Int64N(spread), V: rng.Int64N(900)}
			}
		}
		share := EdgeChunks{edges}
		local, err := RelabelLocal(context.Background(), share)
		if err != nil {
			t.Fatal(err)
		}
		var shared *Labels
		err = inproc.Run(context.Background(), 1, func(ctx context.Context, c comm.Comm) error {
			shared, err = RelabelShare(ctx, c, share)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if local.N != shared.N || local.Edges != shared.Edges || !slices.Equal(local.Original, shared.Original) ||
			(local.Original == nil) != (shared.Original == nil) {
			t.Fatalf("spread %d: local %d vertices %d edges, shared %d %d", spread, local.N, local.Edges, shared.N, shared.Edges)
		}
		a, b := make([]uint64, len(edges)), make([]uint64, len(edges))
		if err := local.Map(edges, a); err != nil {
			t.Fatal(err)
		}
		if err := shared.Map(edges, b); err != nil || !slices.Equal(a, b) {
			t.Fatalf("spread %d: the maps differ (%v)", spread, err)
		}
	}
	_, err := RelabelLocal(context.Background(), EdgeChunks{{{U: 1, V: 2}, {U: 3, V: -4}}})
	if err == nil || !strings.Contains(err.Error(), "edge 1 (3, -4): negative vertex id") {
		t.Fatalf("negative id: %v", err)
	}
}
