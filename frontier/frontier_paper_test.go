package frontier

// Tests named for what Lv et al. (Compression and Sieve, 2012; cited in
// full in the package doc) ask of the frontier and its codecs: the bitmap
// frontier of Alg. 1 (BIT) and its Allgatherv, the Compress/Uncompress pair
// of Alg. 2 and Alg. 3, and graphrun's auto rule on top of them.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBitmapFrontierIsOneBitPerVertex_Alg1 checks the frontier f of Lv et
// al. Alg. 1 (§III-B): one bit per vertex, n vertices in ⌈n/64⌉ words, and a
// wire form in which vertex v is bit v mod 8 of byte v/8 on every host.
func TestBitmapFrontierIsOneBitPerVertex_Alg1(t *testing.T) {
	for _, n := range []int64{1, 63, 64, 65, 1000} {
		f := NewBitmap(n)
		if len(f) != int((n+63)/64) {
			t.Fatalf("%d vertices: %d words", n, len(f))
		}
		for v := int64(0); v < n; v += 7 {
			f.Set(v)
		}
		wire := f.AppendBytes(nil)
		for v := range n {
			if got, want := wire[v/8]>>(v%8)&1 == 1, v%7 == 0; got != want || f.Test(v) != want {
				t.Fatalf("%d vertices: vertex %d is %v on the wire, %v in the bitmap, want %v", n, v, got, f.Test(v), want)
			}
		}
		if f.Count() != (n+6)/7 {
			t.Fatalf("%d vertices: Count %d, want %d", n, f.Count(), (n+6)/7)
		}
	}
}

// TestAllgatherConcatenatesRankBitmaps_Alg1 checks Alg. 1 line 7 (f ←
// Allgatherv(f_i)) on graphrun's layout: ranks own blocks of whole words,
// so every rank's message, decoded into its word range of the global
// bitmap, rebuilds the global frontier with no bit shifting, for every
// codec; with raw (BIT) the messages, concatenated, are the global
// frontier's wire form byte for byte.
func TestAllgatherConcatenatesRankBitmaps_Alg1(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 1))
	words := []int{2, 3, 0, 1} // per rank: 128, 192, 0 and 64 vertices
	parts := make([]Bitmap, len(words))
	var global Bitmap
	for i, w := range words {
		parts[i] = randomBitmap(rng, w, 0.2)
		global = append(global, parts[i]...)
	}
	for _, name := range Names() {
		c := mustNew(t, name)
		got := make(Bitmap, len(global))
		var wire []byte
		off := 0
		for i, p := range parts {
			msg, err := c.Encode(nil, p)
			if err != nil {
				t.Fatal(err)
			}
			wire = append(wire, msg...)
			if err := c.DecodeOr(got[off:off+len(p)], msg); err != nil {
				t.Fatalf("%s: rank %d's message: %v", name, i, err)
			}
			off += len(p)
		}
		if !slices.Equal(got, global) {
			t.Fatalf("%s: the decoded messages do not concatenate into the global frontier", name)
		}
		if name == nameRaw && !bytes.Equal(wire, global.AppendBytes(nil)) {
			t.Fatalf("raw: the concatenated messages are not the global frontier's bytes")
		}
	}
}

// TestEveryCodecRoundTrips_Alg2 checks Uncompress(Compress(f)) = f (Lv et
// al. Alg. 2 lines 7 and 9, Alg. 3 lines 10 and 14) for every codec, on
// frontiers from empty to full, and that the compressing codecs (wah, zlib
// as in §VII-B, and the others) carry a frontier of density 1/1000 in under
// a quarter of the bitmap's bytes, the point of §IV.
func TestEveryCodecRoundTrips_Alg2(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 2))
	for _, name := range Names() {
		c := mustNew(t, name)
		for _, d := range []float64{0, 1e-3, 0.1, 0.5, 1} {
			f := randomBitmap(rng, 1<<10, d)
			msg, err := c.Encode(nil, f)
			if err != nil {
				t.Fatal(err)
			}
			got := make(Bitmap, len(f))
			for i := range got {
				got[i] = rng.Uint64() // Decode must overwrite
			}
			if err := c.Decode(got, msg); err != nil || !slices.Equal(got, f) {
				t.Fatalf("%s density %g: Decode(Encode(f)) ≠ f (err %v)", name, d, err)
			}
			if raw := 8 * len(f); d == 1e-3 && name != nameRaw && 4*len(msg) > raw {
				t.Errorf("%s density %g: %d bytes, over a quarter of the bitmap's %d", name, d, len(msg), raw)
			}
		}
	}
}

// TestListBeatsRawBelowAutoDensity_Auto checks graphrun's auto rule: a
// sorted list of vertex ids costs at least a byte per vertex, so it can
// only be smaller than the bitmap below a density of 1/autoListDensity;
// below that (on uniform frontiers, as after Graph500's permutation) it is
// smaller and auto sends it, and above it auto never does.
func TestListBeatsRawBelowAutoDensity_Auto(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 3))
	limit := 1 / float64(autoListDensity)
	for _, d := range []float64{1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.15, 0.3, 0.5} {
		f := randomBitmap(rng, 1<<12, d)
		list, err := mustNew(t, nameList).Encode(nil, f)
		if err != nil {
			t.Fatal(err)
		}
		auto := mustNew(t, nameAuto)
		if _, err := auto.Encode(nil, f); err != nil {
			t.Fatal(err)
		}
		choice := auto.(Chooser).LastChoice()
		what := fmt.Sprintf("density %g: list %d bytes, raw %d, auto sends %s", d, len(list), 8*len(f), choice)
		switch {
		case d < limit && (len(list) >= 8*len(f) || choice != nameList):
			t.Errorf("%s; below 1/%d, want list, smaller", what, autoListDensity)
		case d > limit && choice == nameList:
			t.Errorf("%s; above 1/%d, want no list", what, autoListDensity)
		}
	}
}
