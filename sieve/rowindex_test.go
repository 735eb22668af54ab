package sieve

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// TestRowIndexCountsEveryPosition: on random rows of every density, Index(u)
// is the number of set bits before u, First and Ones cut the positions by
// owner, and Len is the total.
func TestRowIndexCountsEveryPosition(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 60 {
		n := int64(1 + rng.IntN(5000))
		p := 1 + rng.IntN(9)
		part, err := partition.NewBlock1D(n, p)
		if err != nil {
			t.Fatal(err)
		}
		rank := rng.IntN(p)
		row := frontier.NewBitmap(n)
		density := rng.Float64()
		for u := range n {
			if rng.Float64() < density {
				row.Set(u)
			}
		}
		x, err := NewRowIndex(row, part, rank)
		if err != nil {
			t.Fatal(err)
		}
		var before int64
		for u := range n {
			if got := x.Index(u); got != before {
				t.Fatalf("trial %d: Index(%d) = %d, want %d", trial, u, got, before)
			}
			if row.Test(u) {
				before++
			}
		}
		if x.Len() != before {
			t.Fatalf("trial %d: Len %d, want %d", trial, x.Len(), before)
		}
		var sum int64
		for j := range p {
			if x.First(j) != sum {
				t.Fatalf("trial %d: First(%d) = %d, want %d", trial, j, x.First(j), sum)
			}
			var ones int64
			for u := part.First(j); u < min(n, part.First(j)+int64(part.Count(j))); u++ {
				if row.Test(u) {
					ones++
				}
			}
			if x.Ones(j) != ones {
				t.Fatalf("trial %d: Ones(%d) = %d, want %d", trial, j, x.Ones(j), ones)
			}
			sum += ones
		}
	}
}

// TestBuildRowIsTheDirectoryTransposed: the directory row of rank i over
// rank j's vertices is V(i, j), which rank j's directory column holds: the
// same positions, so the levels rank j sends by its column land where rank i
// looks them up. The own vertices are left out, and a Packer's row indexes
// to the same positions of the other ranks.
func TestBuildRowIsTheDirectoryTransposed(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	for i := range 30 {
		g := csrtest.Random(rng, i)
		p := 1 + rng.IntN(6)
		part, csrs := csrtest.Build(t, g, p, 2)
		dirs := buildAll(t, part, csrs, 2)
		for r := range p {
			x, err := BuildRowIndex(csrs[r], part, r, 2)
			if err != nil {
				t.Fatal(err)
			}
			packer, err := NewPacker(dirs[r], csrs[r], 1)
			if err != nil {
				t.Fatal(err)
			}
			shared, err := NewRowIndex(packer.Row(), part, r)
			if err != nil {
				t.Fatal(err)
			}
			for j := range p {
				if j == r {
					if x.Ones(j) != 0 {
						t.Fatalf("graph %d: rank %d's row holds %d of its own vertices", i, r, x.Ones(j))
					}
					continue
				}
				col := dirs[j].Column(r)
				if x.Ones(j) != dirs[j].Ones(r) || shared.Ones(j) != dirs[j].Ones(r) {
					t.Fatalf("graph %d: row of %d over %d has %d positions (packer's %d), V(%d,%d) %d",
						i, r, j, x.Ones(j), shared.Ones(j), r, j, dirs[j].Ones(r))
				}
				k := int64(0)
				for w, word := range col {
					for ; word != 0; word &= word - 1 {
						u := part.First(j) + int64(w*64+bits.TrailingZeros64(word))
						if !x.Has(u) || x.Index(u) != x.First(j)+k || shared.Index(u) != shared.First(j)+k {
							t.Fatalf("graph %d: vertex %d, position %d of V(%d,%d), is at %d (packer's row %d), want %d",
								i, u, k, r, j, x.Index(u), shared.Index(u)-shared.First(j), x.First(j)+k)
						}
						k++
					}
				}
			}
		}
	}
}

// TestNewRowIndexRejectsBadRows: a row of the wrong length, with bits past
// the last vertex, or for a rank outside the partition is an error.
func TestNewRowIndexRejectsBadRows(t *testing.T) {
	part, err := partition.NewBlock1D(100, 2)
	if err != nil {
		t.Fatal(err)
	}
	long := frontier.NewBitmap(100)
	long[1] |= 1 << 40 // vertex 104
	for _, c := range []struct {
		name string
		row  frontier.Bitmap
		rank int
	}{
		{"short", frontier.NewBitmap(10), 0},
		{"bits past the end", long, 0},
		{"rank outside", frontier.NewBitmap(100), 2},
	} {
		if _, err := NewRowIndex(c.row, part, c.rank); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

// BenchmarkRowIndex times Index on a 2^22-vertex row of density 0.5, the
// ghost lookup of the validator on 2 ranks at scale 22.
func BenchmarkRowIndex(b *testing.B) {
	const n = 1 << 22
	part, err := partition.NewBlock1D(n, 2)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	row := frontier.NewBitmap(n)
	for u := range int64(n) {
		if rng.IntN(2) == 0 {
			row.Set(u)
		}
	}
	x, err := NewRowIndex(row, part, 0)
	if err != nil {
		b.Fatal(err)
	}
	probes := make([]int64, 1<<16)
	for i := range probes {
		probes[i] = rng.Int64N(n)
	}
	b.ResetTimer()
	var sum int64
	for i := 0; i < b.N; i++ {
		sum += x.Index(probes[i&(len(probes)-1)])
	}
	if sum < 0 {
		b.Fatal(sum)
	}
}
