package sieve

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/frontier"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/internal/testgraph"
	"github.com/graphrun/graphrun/internal/testgraph/csrtest"
	"github.com/graphrun/graphrun/partition"
)

// buildPackers builds every rank's Directory and Packer.
func buildPackers(t *testing.T, g csrtest.Graph, p int) (partition.Block1D, []*Directory, []*Packer) {
	t.Helper()
	part, csrs := csrtest.Build(t, g, p, 2)
	dirs := make([]*Directory, p)
	packers := make([]*Packer, p)
	for j := range p {
		d, err := Build(csrs[j], part, j, 2)
		if err != nil {
			t.Fatal(err)
		}
		pk, err := NewPacker(d, csrs[j], 2)
		if err != nil {
			t.Fatal(err)
		}
		dirs[j], packers[j] = d, pk
	}
	return part, dirs, packers
}

// disjointFrontiers splits a random subset of each rank's vertices into
// levels: every vertex is in at most one level's frontier, as in a search.
// Bits beyond the rank's vertices are set at random, to check they are
// ignored.
func disjointFrontiers(rng *rand.Rand, part partition.Block1D, rank, levels int) []frontier.Bitmap {
	fs := make([]frontier.Bitmap, levels)
	for l := range fs {
		fs[l] = make(frontier.Bitmap, part.Words(rank))
	}
	for v := range part.Count(rank) {
		if l := rng.IntN(levels + 1); l < levels {
			fs[l].Set(int64(v))
		}
	}
	if w := part.Words(rank); w > 0 {
		fs[0][w-1] |= rng.Uint64() &^ tailMask(part.Count(rank))
	}
	return fs
}

// TestPackedEqualsSieve checks the packed sieve against the plain one: over
// a search's levels of disjoint frontiers, every receiver unpacks exactly
// the sender's sieved frontier, the messages shrink as positions are sent,
// and Reset starts a second search from the full directory.
func TestPackedEqualsSieve(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for gi := range testgraph.Shapes * graphsPerShape {
		g := csrtest.Random(rng, gi)
		for p := 1; p <= 6; p++ {
			part, dirs, packers := buildPackers(t, g, p)
			for search := range 2 {
				levels := 1 + rng.IntN(5)
				fs := make([][]frontier.Bitmap, p)
				for j := range p {
					fs[j] = disjointFrontiers(rng, part, j, levels)
				}
				var packed, got frontier.Bitmap
				for l := range levels {
					for j := range p {
						for i := range p {
							if i == j {
								continue
							}
							live := packers[j].Live(i)
							if packers[i].Expected(j) != frontier.WordsFor(int64(live)) {
								t.Fatalf("%s p=%d: rank %d expects %d words from %d, which has %d live positions",
									g.Name, p, i, packers[i].Expected(j), j, live)
							}
							packed = packers[j].Pack(packed, fs[j][l], i)
							got = slices.Grow(got[:0], part.Words(j))[:part.Words(j)]
							for k := range got {
								got[k] = rng.Uint64() // Unpack must overwrite
							}
							if err := packers[i].Unpack(got, packed, j); err != nil {
								t.Fatalf("%s p=%d search %d level %d %d→%d: %v", g.Name, p, search, l, j, i, err)
							}
							want := dirs[j].Sieve(nil, fs[j][l], i)
							if !slices.Equal(got, want) {
								t.Fatalf("%s p=%d search %d level %d %d→%d: unpacked %x, sieved %x", g.Name, p, search, l, j, i, got, want)
							}
							if sent := int(want.Count()); packers[j].Live(i) != live-sent {
								t.Fatalf("%s p=%d: %d live positions after sending %d of %d", g.Name, p, packers[j].Live(i), sent, live)
							}
						}
					}
				}
				for j := range p {
					packers[j].Reset()
					for i := range p {
						if i != j && int64(packers[j].Live(i)) != dirs[j].Ones(i) {
							t.Fatalf("%s p=%d: after Reset %d live positions towards %d, directory has %d", g.Name, p, packers[j].Live(i), i, dirs[j].Ones(i))
						}
					}
				}
			}
		}
	}
}

// TestUnpackRejectsBadMessages checks the length and padding checks, and that
// a rejected message leaves the live positions as they were.
func TestUnpackRejectsBadMessages(t *testing.T) {
	g := csrtest.Graph{Name: "path", N: 300}
	for v := int64(0); v+1 < g.N; v++ {
		g.Edges = append(g.Edges, graph.Edge{U: v, V: (v*7 + 1) % g.N})
	}
	part, _, packers := buildPackers(t, g, 2)
	want := packers[0].Expected(1)
	live := packers[0].inOnes[1]
	if live%64 == 0 || want == 0 {
		t.Fatalf("test graph gives %d live positions; want a partial last word", live)
	}
	dst := make(frontier.Bitmap, part.Words(1))
	cases := []struct {
		name   string
		dst    frontier.Bitmap
		packed frontier.Bitmap
		msg    string
	}{
		{"short", dst, make(frontier.Bitmap, want-1), "expected"},
		{"long", dst, make(frontier.Bitmap, want+1), "expected"},
		{"padding", dst, append(make(frontier.Bitmap, want-1), ^uint64(0)), "beyond"},
		{"destination", dst[:len(dst)-1], make(frontier.Bitmap, want), "unpacking into"},
	}
	for _, c := range cases {
		err := packers[0].Unpack(c.dst, c.packed, 1)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.msg)
		}
		if packers[0].inOnes[1] != live {
			t.Fatalf("%s: a rejected message changed the live count to %d", c.name, packers[0].inOnes[1])
		}
	}
}

// TestPackPanicsOnWrongLength mirrors Sieve's contract.
func TestPackPanicsOnWrongLength(t *testing.T) {
	g := csrtest.Graph{Name: "pair", N: 200, Edges: []graph.Edge{{U: 0, V: 199}}}
	_, _, packers := buildPackers(t, g, 2)
	defer func() {
		if recover() == nil {
			t.Fatal("Pack accepted a frontier of the wrong length")
		}
	}()
	packers[0].Pack(nil, make(frontier.Bitmap, 1000), 1)
}

func TestWindow(t *testing.T) {
	b := frontier.Bitmap{0xfedcba9876543210, 0x0123456789abcdef}
	for off := 0; off < 128; off++ {
		for c := 1; c <= 64 && off+c <= 128; c++ {
			var want uint64
			for k := range c {
				if b.Test(int64(off + k)) {
					want |= 1 << uint(k)
				}
			}
			if got := window(b, off, c); got != want {
				t.Fatalf("window(%d, %d) = %#x, want %#x", off, c, got, want)
			}
		}
	}
}

// TestPextPdep checks the byte-table PEXT and PDEP against bit loops.
func TestPextPdep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 200000 {
		x, m := rng.Uint64(), rng.Uint64()
		switch i % 4 {
		case 1:
			m &= rng.Uint64() & rng.Uint64() // sparse mask
		case 2:
			m |= rng.Uint64() | rng.Uint64() // dense mask
		case 3:
			m &= ^uint64(0) << rng.UintN(64) >> rng.UintN(64) // a run
		}
		var ext, dep uint64
		k := 0
		for b := 0; b < 64; b++ {
			if m&(1<<b) == 0 {
				continue
			}
			if x&(1<<b) != 0 {
				ext |= 1 << k
			}
			if x&(1<<k) != 0 {
				dep |= 1 << b
			}
			k++
		}
		if got := pext64(x, m); got != ext {
			t.Fatalf("pext64(%#x, %#x) = %#x, want %#x", x, m, got, ext)
		}
		if got := pdep64(x, m); got != dep {
			t.Fatalf("pdep64(%#x, %#x) = %#x, want %#x", x, m, got, dep)
		}
	}
}
