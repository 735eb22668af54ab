// Tests of build_rows.go: the divider, the radix sort with deduplication and
// the row offsets kernel 1 fills its CSR rows with.

package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

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
