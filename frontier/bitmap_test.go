package frontier

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBitmapSetTestCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int64{1, 63, 64, 65, 1000} {
		b := NewBitmap(n)
		want := map[int64]bool{}
		for i := 0; i < int(n); i++ {
			x := rng.Int64N(n)
			b.Set(x)
			want[x] = true
			if rng.IntN(4) == 0 {
				y := rng.Int64N(n)
				b.Unset(y)
				delete(want, y)
			}
		}
		if b.Count() != int64(len(want)) {
			t.Fatalf("n=%d: count %d, want %d", n, b.Count(), len(want))
		}
		var got []int64
		b.ForEach(func(i int64) { got = append(got, i) })
		if !slices.IsSorted(got) || len(got) != len(want) {
			t.Fatalf("n=%d: ForEach gave %v", n, got)
		}
		for _, i := range got {
			if !want[i] || !b.Test(i) {
				t.Fatalf("n=%d: %d should not be set", n, i)
			}
		}
		b.Clear()
		if b.Count() != 0 {
			t.Fatal("Clear left bits")
		}
	}
}

func TestBitmapWireRoundTrip(t *testing.T) {
	b := NewBitmap(200)
	for _, i := range []int64{0, 1, 63, 64, 127, 199} {
		b.Set(i)
	}
	wire := b.AppendBytes(nil)
	if len(wire) != 8*len(b) || wire[0] != 0b11 || wire[7] != 0x80 {
		t.Fatalf("wire form %x is not little-endian words", wire[:8])
	}
	c := NewBitmap(200)
	if err := c.LoadBytes(wire); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b, c) {
		t.Fatal("round trip changed the bitmap")
	}
	if err := c.LoadBytes(wire[:5]); err == nil {
		t.Fatal("short input accepted")
	}
	if got := Bitmap(nil).AppendBytes([]byte{9}); len(got) != 1 {
		t.Fatal("empty bitmap appended bytes")
	}
}
