package radix

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortMatchesSlicesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 47, 48, 49, 300, 5000, 1 << 17} {
		for _, width := range []uint{1, 7, 8, 9, 21, 42, 63, 64} {
			for _, threads := range []int{1, 2, 5} {
				keys := make([]uint64, n)
				for i := range keys {
					switch i % 5 {
					case 0: // duplicates
						keys[i] = uint64(i/7) & (1<<min(width, 63) - 1)
					default:
						keys[i] = rng.Uint64() >> (64 - width)
					}
				}
				want := slices.Clone(keys)
				slices.Sort(want)
				Sort(keys, width, threads)
				if !slices.Equal(keys, want) {
					t.Fatalf("n %d width %d threads %d: not sorted like slices.Sort", n, width, threads)
				}
			}
		}
	}
}

func TestSortSkewed(t *testing.T) {
	// One top digit for nearly all keys, all equal keys, and keys that
	// differ only in the lowest bit: the levels that move nothing.
	n := 1 << 16
	cases := map[string]func(i int) uint64{
		"equal":      func(int) uint64 { return 12345 },
		"low bit":    func(i int) uint64 { return 1<<40 | uint64(i&1) },
		"one bucket": func(i int) uint64 { return 3<<34 | uint64(i*7919%n) },
		"descending": func(i int) uint64 { return uint64(n - i) },
	}
	for name, gen := range cases {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = gen(i)
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		Sort(keys, 64, 2)
		if !slices.Equal(keys, want) {
			t.Errorf("%s: not sorted", name)
		}
	}
}

func TestDedupeAndWidth(t *testing.T) {
	got := Dedupe([]uint64{1, 1, 2, 3, 3, 3, 9})
	if !slices.Equal(got, []uint64{1, 2, 3, 9}) {
		t.Errorf("Dedupe = %v", got)
	}
	if got := Dedupe(nil); len(got) != 0 {
		t.Errorf("Dedupe(nil) = %v", got)
	}
	for max, want := range map[uint64]uint{0: 0, 1: 1, 255: 8, 256: 9, 1<<63 + 5: 64} {
		if got := Width(max); got != want {
			t.Errorf("Width(%d) = %d, want %d", max, got, want)
		}
	}
}

func BenchmarkSort(b *testing.B) {
	const n = 1 << 22
	rng := rand.New(rand.NewPCG(3, 4))
	src := make([]uint64, n)
	for i := range src {
		src[i] = rng.Uint64() >> 22
	}
	keys := make([]uint64, n)
	for _, threads := range []int{1, 2} {
		b.Run(map[int]string{1: "1thread", 2: "2threads"}[threads], func(b *testing.B) {
			b.SetBytes(8 * n)
			for b.Loop() {
				copy(keys, src)
				Sort(keys, 42, threads)
			}
		})
	}
}
