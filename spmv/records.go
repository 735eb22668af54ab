package spmv

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Compact top-down records. When a codec other than raw is chosen, a
// top-down step compresses its (vertex, parent) records too: per destination
// they are sorted by vertex, only the largest parent of each vertex is kept
// (the only one the (select, max) rule can pick), and each record is written
// as uvarint(vertex − previous vertex) followed by uvarint(parent's local id
// at the sender). Sorting costs O(m log m) for m records, which is why raw
// keeps the fixed 8-byte records.

// RecordSize is the wire size of one fixed (vertex, parent) record: the
// uint32 local id of the vertex at its owner and the uint32 local id of the
// parent at the sender, little-endian.
const RecordSize = 8

// CompactRecords rewrites the fixed-size records in raw into dst in the
// compact form, using keys as scratch. It returns dst and keys for reuse.
func CompactRecords(dst []byte, raw []byte, keys []uint64) ([]byte, []uint64) {
	keys = keys[:0]
	for i := 0; i+RecordSize <= len(raw); i += RecordSize {
		u := binary.LittleEndian.Uint32(raw[i:])
		p := binary.LittleEndian.Uint32(raw[i+4:])
		// Ascending vertex, then descending parent: the first of a run wins.
		keys = append(keys, uint64(u)<<32|uint64(^p))
	}
	slices.Sort(keys)
	dst = dst[:0]
	prev, have := uint32(0), false
	for _, k := range keys {
		u, p := uint32(k>>32), ^uint32(k)
		if have && u == prev {
			continue
		}
		delta := u - prev
		if !have {
			delta = u
		}
		dst = binary.AppendUvarint(dst, uint64(delta))
		dst = binary.AppendUvarint(dst, uint64(p))
		prev, have = u, true
	}
	return dst, keys
}

// ForEachCompactRecord decodes a compact message, checking every vertex
// against n and every parent against senders, and calls fn for each record.
func ForEachCompactRecord(msg []byte, n, senders uint32, fn func(u, p uint32)) error {
	var u uint64
	for i, first := 0, true; i < len(msg); first = false {
		delta, k := binary.Uvarint(msg[i:])
		if k <= 0 {
			return fmt.Errorf("corrupt record at byte %d", i)
		}
		i += k
		p, k := binary.Uvarint(msg[i:])
		if k <= 0 {
			return fmt.Errorf("corrupt record at byte %d", i)
		}
		i += k
		if first {
			u = delta
		} else {
			u += delta
		}
		if u >= uint64(n) || p >= uint64(senders) || (!first && delta == 0) {
			return fmt.Errorf("record (%d, %d) out of range [0, %d) × [0, %d) or repeated", u, p, n, senders)
		}
		fn(uint32(u), uint32(p))
	}
	return nil
}
