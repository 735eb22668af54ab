package sssp

// Compact relaxation requests (Config.Compact): per destination and phase,
// the requests are sorted by target and combined, one per target, the one
// apply would keep (the smallest distance, then the largest parent: the
// combination is associative, so the outcome is the same as applying them
// all), and each is written as
//
//	uvarint(target − previous target)   (the first: the target itself)
//	4 bytes                             the distance's float32 bits, little-endian
//	uvarint(parent's local id at the sender)
//
// Sorting costs O(m log m) for m requests, which pays where bytes are dear
// (processes on a network), as the compact top-down records of BFS do.

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// compactRequests writes the fixed requests in raw to dst in the compact
// form, using keys as scratch; it returns both for reuse.
func compactRequests(dst, raw []byte, keys []uint64) ([]byte, []uint64) {
	keys = keys[:0]
	for i := 0; i+RequestSize <= len(raw); i += RequestSize {
		keys = append(keys, uint64(binary.LittleEndian.Uint32(raw[i:]))<<32|uint64(i/RequestSize))
	}
	slices.Sort(keys)
	dst = dst[:0]
	prev := uint32(0)
	for j := 0; j < len(keys); {
		t := uint32(keys[j] >> 32)
		rec := raw[int(uint32(keys[j]))*RequestSize:]
		best, parent := binary.LittleEndian.Uint32(rec[4:]), binary.LittleEndian.Uint32(rec[8:])
		k := j + 1
		for ; k < len(keys) && uint32(keys[k]>>32) == t; k++ {
			rec := raw[int(uint32(keys[k]))*RequestSize:]
			d, p := binary.LittleEndian.Uint32(rec[4:]), binary.LittleEndian.Uint32(rec[8:])
			// Distances are non-negative: their bits order as they do.
			if d < best || d == best && p > parent {
				best, parent = d, p
			}
		}
		dst = binary.AppendUvarint(dst, uint64(t-prev))
		dst = binary.LittleEndian.AppendUint32(dst, best)
		dst = binary.AppendUvarint(dst, uint64(parent))
		prev, j = t, k
	}
	return dst, keys
}

// applyCompact applies the compact requests rank src sent to the owned
// vertices in [lo, hi) into b, checking every target against the owned
// vertices, every parent against src's and that targets strictly
// increase.
func (s *SSSP) applyCompact(b *buckets, src int, msg []byte, lo, hi uint32) error {
	n, senders := uint64(len(s.dist)), uint64(s.part.Count(src))
	first := s.part.First(src)
	inf := math.Float32bits(float32(math.Inf(1)))
	var t uint64
	for i, k := 0, 0; i < len(msg); k++ {
		delta, m := binary.Uvarint(msg[i:])
		if m <= 0 || i+m+4 > len(msg) {
			return fmt.Errorf("corrupt request at byte %d", i)
		}
		bits := binary.LittleEndian.Uint32(msg[i+m:])
		p, m2 := binary.Uvarint(msg[i+m+4:])
		if m2 <= 0 {
			return fmt.Errorf("corrupt request at byte %d", i)
		}
		i += m + 4 + m2
		if k > 0 && delta == 0 {
			return fmt.Errorf("request %d repeats target %d", k, t)
		}
		t += delta
		if t >= n || p >= senders || bits >= inf || t < delta {
			return fmt.Errorf("request (%d, %#x, %d) out of range [0, %d) × [0, ∞) × [0, %d)", t, bits, p, n, senders)
		}
		if uint32(t) >= lo && uint32(t) < hi {
			s.offer(b, uint32(t), math.Float32frombits(bits), first+int64(p))
		}
	}
	return nil
}
