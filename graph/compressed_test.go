package graph

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// descendingRow returns d distinct ids of [0, n) other than src, descending.
func descendingRow(r *rand.Rand, src, n int64, d int) []int64 {
	seen := map[int64]bool{src: true}
	row := make([]int64, 0, d)
	for len(row) < d && int64(len(seen)) < n {
		u := r.Int64N(n)
		if !seen[u] {
			seen[u] = true
			row = append(row, u)
		}
	}
	slices.Sort(row)
	slices.Reverse(row)
	return row
}

// TestPackedRowRoundTrip codes rows of every shape (empty, one entry above
// and below the vertex, dense, sparse, ids near 2^32 and beyond) and decodes
// them back, through both column widths.
func TestPackedRowRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int64{2, 3, 100, 1 << 20, 1<<32 + 7, 1 << 40} {
		for _, d := range []int{0, 1, 2, 5, 64, 300} {
			for range 5 {
				src := r.Int64N(n)
				row := descendingRow(r, src, n, d)
				b := AppendPackedRow([]byte{0xEE}, src, row)[1:]
				if int64(len(b)) > packedRowBound(int64(len(row)), n) {
					t.Fatalf("n %d, row %v: %d bytes above the bound %d", n, row, len(b), packedRowBound(int64(len(row)), n))
				}
				got, k, err := DecodePackedRow(append(b, 0xFF), src, n, []int64(nil))
				if err != nil || k != len(b) || !slices.Equal(got, row) {
					t.Fatalf("n %d src %d: decoded %v (%d of %d bytes, %v), want %v", n, src, got, k, len(b), err, row)
				}
				if n <= 1<<32 {
					row32 := make([]uint32, len(row))
					for i, u := range row {
						row32[i] = uint32(u)
					}
					if b32 := AppendPackedRow(nil, src, row32); !slices.Equal(b32, b) {
						t.Fatalf("uint32 and int64 rows code differently: %x, %x", b32, b)
					}
					got32, _, err := DecodePackedRow(b, src, n, []uint32(nil))
					if err != nil || !slices.Equal(got32, row32) {
						t.Fatalf("uint32 decode %v, %v; want %v", got32, err, row32)
					}
				}
				if d, next := PackedDegree(b, 0); d != int64(len(row)) || next != int64(uvarintLen(uint64(len(row)))) {
					t.Fatalf("PackedDegree = %d, %d", d, next)
				}
			}
		}
	}
}

// TestPackedRowMalformed: every way a row can be wrong is an error that
// wraps errPacked.
func TestPackedRowMalformed(t *testing.T) {
	for name, tc := range map[string]struct {
		b      []byte
		src, n int64
	}{
		"empty":               {nil, 0, 10},
		"truncated degree":    {[]byte{0x80}, 0, 10},
		"degree beyond bits":  {[]byte{20, 2, 0}, 0, 100},
		"first below 0":       {[]byte{1, 5}, 1, 10},  // 1 + (−3)
		"first beyond n":      {[]byte{1, 40}, 1, 10}, // 1 + 20
		"first is the vertex": {[]byte{1, 0}, 4, 10},
		"no parameter":        {[]byte{2, 4}, 0, 10},
		"parameter above 57":  {[]byte{2, 4, 58, 0xFF}, 0, 10},
		"gap below 0":         {[]byte{2, 4, 0, 4}, 0, 10}, // 2, then a gap of 2
		"gap to the vertex":   {[]byte{2, 4, 0, 2}, 1, 10}, // 3, then 3 − 1 − 1
		"truncated code":      {[]byte{2, 8, 0, 0}, 0, 100},
		"overlong varint":     {[]byte{1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, 0, 10},
	} {
		if _, _, err := DecodePackedRow(tc.b, tc.src, tc.n, []int64(nil)); !errors.Is(err, errPacked) {
			t.Errorf("%s: error %v, want errPacked", name, err)
		}
	}
}

// TestRiceNextMatchesDecode: the hot loops' decoder (PackedNext, RiceNext)
// reads every row as the checked decoder does, long codes (parameters up
// to 57, quotients beyond a word) included.
func TestRiceNextMatchesDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int64{100, 1 << 20, 1 << 40, 1 << 62} {
		for _, d := range []int{2, 3, 17, 200} {
			for range 20 {
				src := r.Int64N(n)
				row := descendingRow(r, src, n, d)
				if d > 3 && r.IntN(2) == 0 { // a dense run and one far neighbour: a long quotient
					for i := 1; i < len(row)-1; i++ {
						row[i] = row[0] - int64(i)
					}
					row[len(row)-1] = min(row[len(row)-2]-1, r.Int64N(row[len(row)-2]))
					if row[len(row)-1] < 0 {
						continue
					}
				}
				if slices.Contains(row, src) {
					continue
				}
				b := append(AppendPackedRow(nil, src, row), make([]byte, PackedPad)...)
				deg, at := PackedNext(b, 0)
				z, at := PackedNext(b, at)
				u := src + Unzigzag(z)
				k := uint(b[at])
				bp, mask := uint64(at+1)*8, uint64(1)<<k-1
				got := []int64{u}
				for range deg - 1 {
					bp0 := bp
					xw, nw, ok := RiceWord(binary.LittleEndian.Uint64(b[bp>>3:])>>(bp&7), k, mask)
					var x uint64
					x, bp = RiceNext(b, bp, k, mask)
					if ok && (xw != x || bp0+nw != bp) {
						t.Fatalf("n %d src %d k %d: RiceWord read %d in %d bits, RiceNext %d in %d", n, src, k, xw, nw, x, bp-bp0)
					}
					u -= int64(x) + 1
					got = append(got, u)
				}
				if !slices.Equal(got, row) {
					t.Fatalf("n %d src %d k %d: RiceNext read %v, want %v", n, src, k, got, row)
				}
			}
		}
	}
}

// TestPackedHeadMatchesPackedNext: the one-load head decoder reads the
// degree and first neighbour PackedNext reads, for degrees around the
// varint's 128 and first neighbours of 1 to 10 bytes, and declines
// (ok false) exactly the heads that do not fit it.
func TestPackedHeadMatchesPackedNext(t *testing.T) {
	const n = int64(1) << 62
	for _, d := range []int{0, 1, 2, 3, 127, 128, 300} {
		for bytes := 1; bytes <= 9; bytes++ {
			// A first neighbour whose zigzag takes bytes bytes.
			src := n / 2
			off := int64(1) << (7*bytes - 2)
			if bytes == 1 {
				off = 1
			}
			row := make([]int64, d)
			for i := range row { // 3i is never the power of two off
				row[i] = src + off - 3*int64(i)
			}
			b := append(AppendPackedRow(nil, src, row), make([]byte, PackedPad)...)
			wantD, at := PackedNext(b, 0)
			hd, z, hn, ok := PackedHead(binary.LittleEndian.Uint64(b))
			fits := d < 128 && (d == 0 || at+int64(uvarintLen(zigzag(row[0]-src))) <= 8)
			if ok != fits {
				t.Fatalf("degree %d, first neighbour of %d bytes: PackedHead ok %v, want %v", d, bytes, ok, fits)
			}
			if !ok || d == 0 {
				if ok && hd != 0 {
					t.Fatalf("empty row: PackedHead read degree %d", hd)
				}
				continue
			}
			wantZ, end := PackedNext(b, at)
			if hd != wantD || z != wantZ || int64(hn/8) != end {
				t.Fatalf("degree %d, first neighbour of %d bytes: PackedHead (%d, %d, %d bits), PackedNext (%d, %d, %d bytes)", d, bytes, hd, z, hn, wantD, wantZ, end)
			}
		}
	}
}

// TestPackCSR packs kernel 1's rows and checks every row, degree and edge
// query against the plain CSR.
func TestPackCSR(t *testing.T) {
	const scale = 12
	n := int64(1) << scale
	edges := rmatEdges(scale, int(n)*16, 7)
	gs, err := runBuild(block1D(t, n, 1), [][]Edge{edges}, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	g := gs[0]
	pg := PackCSR(g, 3)
	if err := CheckPacked(pg); err != nil {
		t.Fatal(err)
	}
	if pg.NumEdges() != g.NumEdges() || pg.Bytes() >= g.Bytes() {
		t.Fatalf("packed: %d entries in %d bytes, plain %d in %d", pg.NumEdges(), pg.Bytes(), g.NumEdges(), g.Bytes())
	}
	var a, b []int64
	r := rand.New(rand.NewPCG(3, 4))
	for l := range uint32(g.NumLocal) {
		a, b = g.Row(l, a), pg.Row(l, b)
		if !slices.Equal(a, b) || pg.Degree(l) != g.Degree(l) {
			t.Fatalf("row %d: packed %v (degree %d), plain %v", l, b, pg.Degree(l), a)
		}
		u := r.Int64N(n)
		if len(a) > 0 && r.IntN(2) == 0 {
			u = a[r.IntN(len(a))]
		}
		if pg.HasEdge(l, u) != g.HasEdge(l, u) {
			t.Fatalf("HasEdge(%d, %d): packed %v", l, u, pg.HasEdge(l, u))
		}
	}
	pg.PackedEdges++
	if err := CheckPacked(pg); err == nil {
		t.Fatal("CheckPacked accepted a wrong entry count")
	}
}

// FuzzDecodePackedRow: arbitrary bytes decode to a valid row or an error,
// never a panic, and a valid row codes back to the bytes it took.
func FuzzDecodePackedRow(f *testing.F) {
	f.Add(AppendPackedRow(nil, 5, []int64{9, 7, 1}), int64(5), int64(10))
	f.Add([]byte{1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, int64(0), int64(1)<<62)
	f.Add([]byte{0x80}, int64(0), int64(1))
	f.Fuzz(func(t *testing.T, b []byte, src, n int64) {
		if n < 1 || src < 0 || src >= n {
			return
		}
		row, k, err := DecodePackedRow(b, src, n, []int64(nil))
		if err != nil {
			if !errors.Is(err, errPacked) {
				t.Fatalf("error %v does not wrap errPacked", err)
			}
			return
		}
		for i, u := range row {
			if u < 0 || u >= n || u == src || (i > 0 && u >= row[i-1]) {
				t.Fatalf("decoded row %v of vertex %d in [0, %d) is not valid", row, src, n)
			}
		}
		if again := AppendPackedRow(nil, src, row); !slices.Equal(again, b[:k]) {
			// A varint may carry redundant zero high groups: the value,
			// not the bytes, must survive.
			if back, _, err := DecodePackedRow(again, src, n, []int64(nil)); err != nil || !slices.Equal(back, row) {
				t.Fatalf("row %v codes to %x, which decodes to %v, %v", row, again, back, err)
			}
		}
	})
}
