package graph

import (
	"testing"
)

// FuzzRouteMessage decodes arbitrary bytes as a kernel 1 message, as a rank
// receives them from a peer, in both passes: parseRouteHeader and the
// segment decoder must return an error or entries inside the bucket and the
// vertex range, never panic or read past the message.
func FuzzRouteMessage(f *testing.F) {
	const rowCap, nbrBits = 16, 10
	// Seeds: real messages of both passes.
	recs := []uint64{0<<nbrBits | 5, 3<<nbrBits | 999, 3<<nbrBits | 7, 15<<nbrBits | 0}
	for _, nb := range []uint{0, nbrBits} {
		k, size := segmentSize(recs, nbrBits, nb)
		seg := make([]byte, size)
		encodeSegment(seg, recs, nbrBits, k, nb)
		msg := []byte{2, 4, byte(size), 0}
		f.Add(append(msg, seg...), nb > 0)
	}
	f.Add([]byte{0, 0, 0}, false)
	f.Add([]byte{0x80, 0x80}, true)
	f.Fuzz(func(t *testing.T, msg []byte, fill bool) {
		nb := uint(0)
		if fill {
			nb = nbrBits
		}
		segs := make([]segRef, 2)
		if _, err := parseRouteHeader(msg, segs, nb); err != nil {
			return
		}
		for _, s := range segs {
			if s.entries == 0 {
				continue
			}
			if s.off < 0 || s.off+s.size > len(msg) {
				t.Fatalf("segment %+v outside a message of %d bytes", s, len(msg))
			}
			d, err := newSegmentDecoder(msg[s.off:s.off+s.size], s.entries, rowCap, nb)
			if err != nil {
				continue
			}
			// The batch decoder, then the entry decoder, must agree.
			db := d
			ls, vs := make([]uint64, 64), make([]uint64, 64)
			k, errBatch := db.decodeBatch(ls, vs)
			prev := uint64(0)
			for i := range s.entries {
				row, nbr, err := d.next()
				if err != nil {
					if i < k {
						t.Fatalf("entry %d: the batch decoded (%d, %d), next fails: %v", i, ls[i], vs[i], err)
					}
					break
				}
				if row >= rowCap || row < prev || nbr >= 1<<nb {
					t.Fatalf("entry (%d, %d) after row %d", row, nbr, prev)
				}
				if i < k && (ls[i] != row || vs[i] != nbr) {
					t.Fatalf("entry %d: batch (%d, %d), next (%d, %d)", i, ls[i], vs[i], row, nbr)
				}
				if i == k && i < min(64, s.entries) && errBatch == nil {
					t.Fatalf("the batch stopped at %d of %d without an error", k, s.entries)
				}
				prev = row
			}
		}
	})
}
