// Tests of route.go: the Rice-coded segments kernel 1 routes tuples in
// round-trip for every width and gap, stay compact, and reject corrupt
// headers and segments.

package graph

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRouteSegmentsRoundTrip codes random sorted records of every width
// (neighbours up to 40 bits, as at scale 40) and gap distribution and decodes
// them back.
func TestRouteSegmentsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, w := range []uint{1, 7, 22, 33, 40} {
		for _, rowBits := range []uint{0, 1, 5, 13, 24} {
			if rowBits+w > 64 {
				continue
			}
			for _, e := range []int{1, 2, 3, 47, 48, 49, 1000, 20000} {
				for _, spread := range []uint64{1, 7, 1 << rowBits} {
					recs := make([]uint64, e)
					rowMax := min(spread, uint64(1)<<rowBits)
					for i := range recs {
						recs[i] = rng.Uint64N(rowMax)<<w | rng.Uint64N(uint64(1)<<w)
					}
					want := slices.Clone(recs)
					slices.SortStableFunc(want, func(a, b uint64) int { return int(a>>w) - int(b>>w) })
					new(rowSorter).sort(recs, w)
					for i := range recs {
						if recs[i]>>w != want[i]>>w {
							t.Fatalf("w=%d rows=%d e=%d: sorted rows differ at %d", w, rowBits, e, i)
						}
					}
					for _, nbrBits := range []uint{0, w} {
						k, size := segmentSize(recs, w, nbrBits)
						seg := make([]byte, size)
						encodeSegment(seg, recs, w, k, nbrBits)
						d, err := newSegmentDecoder(seg, e, uint64(1)<<rowBits, nbrBits)
						if err != nil {
							t.Fatal(err)
						}
						for i, r := range recs {
							row, nbr, err := d.next()
							wantNbr := r & (uint64(1)<<w - 1)
							if nbrBits == 0 {
								wantNbr = 0
							}
							if err != nil || row != r>>w || nbr != wantNbr {
								t.Fatalf("w=%d rows=%d e=%d nbrBits=%d entry %d: (%d,%d) %v, want (%d,%d)",
									w, rowBits, e, nbrBits, i, row, nbr, err, r>>w, wantNbr)
							}
						}
						if err := d.done(); err != nil {
							t.Fatal(err)
						}
						// The batch decoder, in batches that end anywhere.
						d, err = newSegmentDecoder(seg, e, uint64(1)<<rowBits, nbrBits)
						if err != nil {
							t.Fatal(err)
						}
						var got []uint64
						ls, vs := make([]uint64, 5), make([]uint64, 5)
						for d.left > 0 {
							k, err := d.decodeBatch(ls[:1+len(got)%5], vs)
							if err != nil {
								t.Fatal(err)
							}
							for i := range k {
								got = append(got, ls[i]<<w|vs[i])
							}
						}
						for i, r := range recs {
							want := r
							if nbrBits == 0 {
								want = r >> w << w
							}
							if got[i] != want {
								t.Fatalf("w=%d rows=%d e=%d nbrBits=%d: batch entry %d is %x, want %x", w, rowBits, e, nbrBits, i, got[i], want)
							}
						}
						if err := d.done(); err != nil {
							t.Fatal(err)
						}
						if _, _, err := d.next(); err == nil && size*8 < riceParamBits+(e+1)*int(1+nbrBits) {
							t.Fatal("an entry read past the segment's last one")
						}
					}
				}
			}
		}
	}
}

// TestRouteBytesPerHalfEdge checks the compactness that motivates the
// format: random rows of a scale-22 rank at chunk density cost at most 26
// bits per half-edge with the neighbour, 4 without.
func TestRouteBytesPerHalfEdge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const w, rowBits, e = 22, 13, 4096 // a bucket of 8192 rows, 4096 half-edges
	recs := make([]uint64, e)
	for i := range recs {
		recs[i] = rng.Uint64N(1<<rowBits)<<w | rng.Uint64N(1<<w)
	}
	new(rowSorter).sort(recs, w)
	for _, c := range []struct {
		nbrBits uint
		maxBits float64
	}{{w, 26}, {0, 4}} {
		_, size := segmentSize(recs, w, c.nbrBits)
		if bits := float64(8*size) / e; bits > c.maxBits {
			t.Errorf("nbrBits %d: %.2f bits per half-edge, want ≤ %v", c.nbrBits, bits, c.maxBits)
		}
	}
}

func TestParseRouteHeaderRejects(t *testing.T) {
	segs := make([]segRef, 2)
	good := []byte{3, 1, 1, 0, 0x10} // 3 loops; bucket 0: 1 entry in 1 byte; bucket 1 empty; segment
	if loops, err := parseRouteHeader(good, segs, 0); err != nil || loops != 3 || segs[0] != (segRef{off: 4, size: 1, entries: 1}) {
		t.Fatalf("valid header: loops %d, segs %v, %v", loops, segs, err)
	}
	for _, msg := range [][]byte{
		{},
		{0x80},                // truncated varint
		{0, 1},                // no size
		{0, 1, 2, 0, 0},       // segment shorter than its size
		{0, 1, 1, 0, 0, 0},    // a byte after the last segment
		{0, 3, 1, 0, 0},       // 3 entries of ≥ 1 bit in 2 bits
		{0, 1, 0, 0},          // an entry in a 0-byte segment
		{0, 1, 1, 1, 1, 0x10}, // a second bucket's segment missing
		{0, 1, 200, 1, 0},     // size beyond the message
	} {
		if _, err := parseRouteHeader(msg, segs, 0); !errors.Is(err, errRoute) {
			t.Errorf("header % x accepted (%v)", msg, err)
		}
	}
	// With 22-bit neighbours, a byte holds no entry.
	if _, err := parseRouteHeader([]byte{0, 1, 1, 0, 0}, segs, 22); !errors.Is(err, errRoute) {
		t.Errorf("a 22-bit neighbour in one byte accepted: %v", err)
	}
}

func TestSegmentDecoderRejects(t *testing.T) {
	// k = 0 then entry gaps; rowCap 4.
	enc := func(bitsLSB string) []byte {
		out := make([]byte, (len(bitsLSB)+7)/8)
		for i, c := range bitsLSB {
			if c == '1' {
				out[i/8] |= 1 << (i % 8)
			}
		}
		return out
	}
	cases := []struct {
		name    string
		seg     []byte
		entries int
	}{
		{"truncated gap", enc("000000" + "00"), 1},
		{"row beyond the bucket", enc("000000" + "00001"), 1},
		{"second row beyond the bucket", enc("000000" + "0001" + "0001"), 2},
		{"Rice parameter above 56", enc("111111"), 1},
		{"missing neighbour", enc("000000" + "1" + "1"), 1},
	}
	for _, c := range cases {
		nbrBits := uint(0)
		if c.name == "missing neighbour" {
			nbrBits = 22
		}
		d, err := newSegmentDecoder(c.seg, c.entries, 4, nbrBits)
		for i := 0; err == nil && i < c.entries; i++ {
			_, _, err = d.next()
		}
		if !errors.Is(err, errRoute) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	d, err := newSegmentDecoder(enc("000000"+"1"+"00000000000"), 1, 4, 0)
	if err == nil {
		_, _, err = d.next()
	}
	if err == nil {
		err = d.done()
	}
	if !errors.Is(err, errRoute) {
		t.Errorf("a byte of unused bits accepted: %v", err)
	}
}
