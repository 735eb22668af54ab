package sieve

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// buildAll runs Build for every rank's CSR.
func buildAll(t testing.TB, part partition.Block1D, csrs []*graph.CSR, threads int) []*Directory {
	t.Helper()
	dirs := make([]*Directory, len(csrs))
	for j, g := range csrs {
		d, err := Build(g, part, j, threads)
		if err != nil {
			t.Fatal(err)
		}
		dirs[j] = d
	}
	return dirs
}

// buildExchangedAll runs BuildExchanged on p in-process ranks.
func buildExchangedAll(t testing.TB, part partition.Block1D, csrs []*graph.CSR, threads int) []*Directory {
	t.Helper()
	dirs := make([]*Directory, part.P)
	err := inproc.Run(context.Background(), part.P, func(ctx context.Context, c comm.Comm) error {
		d, err := BuildExchanged(ctx, c, csrs[c.Rank()], part, threads)
		dirs[c.Rank()] = d
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// wide returns a copy of g with its columns in Cols64.
func wide(g *graph.CSR) *graph.CSR {
	w := *g
	w.Cols64 = make([]int64, len(g.Cols32))
	for k, c := range g.Cols32 {
		w.Cols64[k] = int64(c)
	}
	w.Cols32 = nil
	return &w
}

// neighbourOwners returns, per vertex, the set of ranks owning one of its
// neighbours (self-loops are not adjacency), straight from the edge list.
func neighbourOwners(g csrtest.Graph, part partition.Block1D) [][]bool {
	owners := make([][]bool, g.N)
	for v := range owners {
		owners[v] = make([]bool, part.P)
	}
	for _, e := range g.Edges {
		if e.U != e.V {
			owners[e.U][part.Owner(e.V)] = true
			owners[e.V][part.Owner(e.U)] = true
		}
	}
	return owners
}

// checkAgainstEdges compares every vector of rank j's directory with the
// definition, evaluated by brute force, and checks the directory's
// bookkeeping (kinds, counts, density, padding, Bytes).
func checkAgainstEdges(t *testing.T, d *Directory, owners [][]bool, part partition.Block1D, j int) {
	t.Helper()
	if d.Rank() != j || d.Peers() != part.P || d.Words() != part.Words(j) {
		t.Fatalf("rank %d: directory says rank %d, %d peers, %d words", j, d.Rank(), d.Peers(), d.Words())
	}
	first, count := part.First(j), part.Count(j)
	var stored int64
	for i := range part.P {
		col := d.Column(i)
		if len(col) != part.Words(j) {
			t.Fatalf("V(%d,%d) has %d words, want %d", i, j, len(col), part.Words(j))
		}
		var ones int64
		for l := 0; l < len(col)*64; l++ {
			got := col.Test(int64(l))
			want := l < count && owners[first+int64(l)][i]
			if got != want {
				t.Fatalf("V(%d,%d) bit %d (vertex %d) = %v, want %v", i, j, l, first+int64(l), got, want)
			}
			if want {
				ones++
			}
		}
		if d.Ones(i) != ones {
			t.Fatalf("Ones(%d) on rank %d = %d, want %d", i, j, d.Ones(i), ones)
		}
		wantKind := Mixed
		switch {
		case ones == 0:
			wantKind = Empty
		case ones == int64(count):
			wantKind = Full
		default:
			stored += int64(len(col)) * 8
		}
		if d.Kind(i) != wantKind {
			t.Fatalf("Kind(%d) on rank %d = %v, want %v (%d of %d set)", i, j, d.Kind(i), wantKind, ones, count)
		}
		wantDensity := 0.0
		if count > 0 {
			wantDensity = float64(ones) / float64(count)
		}
		if d.Density(i) != wantDensity {
			t.Fatalf("Density(%d) on rank %d = %v, want %v", i, j, d.Density(i), wantDensity)
		}
	}
	if b := d.Bytes(); b < stored || b > stored+2*int64(part.Words(j))*8+int64(part.P)*perPeerBytes {
		t.Fatalf("Bytes() on rank %d = %d, stored vectors take %d", j, b, stored)
	}
}

// equalDirectories reports the first difference between two directories.
func equalDirectories(t *testing.T, what string, a, b *Directory) {
	t.Helper()
	if a.Rank() != b.Rank() || a.Peers() != b.Peers() || a.Words() != b.Words() {
		t.Fatalf("%s: shapes differ: rank %d/%d, peers %d/%d, words %d/%d", what, a.Rank(), b.Rank(), a.Peers(), b.Peers(), a.Words(), b.Words())
	}
	for i := range a.Peers() {
		if a.Kind(i) != b.Kind(i) || a.Ones(i) != b.Ones(i) || !slices.Equal(a.Column(i), b.Column(i)) {
			t.Fatalf("%s: V(%d,%d) differs: %v/%v, %d/%d bits", what, i, a.Rank(), a.Kind(i), b.Kind(i), a.Ones(i), b.Ones(i))
		}
	}
}

// randomFrontier returns a bitmap over count vertices (words words) with
// each bit set with probability density.
func randomFrontier(rng *rand.Rand, words, count int, density float64) frontier.Bitmap {
	f := make(frontier.Bitmap, words)
	for l := 0; l < count; l++ {
		if rng.Float64() < density {
			f.Set(int64(l))
		}
	}
	return f
}
