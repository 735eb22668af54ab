package sssp

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Compact requests give the same distances and parents as the fixed ones,
// on any rank and thread count, in fewer bytes.
func TestCompactRequestsSameResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for trial := range 3 {
		g := randomWeighted(rng, int64(200+rng.IntN(300)), 3000)
		root := g.edges[0].U
		for p := 2; p <= 4; p++ {
			for _, threads := range []int{1, 3} {
				plain, err := search(t, g, p, root, Config{Threads: threads}, nil)
				if err != nil {
					t.Fatal(err)
				}
				errs := make([]error, p)
				compact, err := search(t, g, p, root, Config{Threads: threads, Compact: true}, validateAfter(root, nil, errs))
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(plain.dist, compact.dist) || !slices.Equal(plain.parent, compact.parent) {
					t.Fatalf("trial %d, %d ranks, %d threads: compact requests change the result", trial, p, threads)
				}
				for r, err := range errs {
					if err != nil {
						t.Fatalf("trial %d, %d ranks, rank %d: %v", trial, p, r, err)
					}
				}
				var pb, cb int64
				for r := range plain.stats {
					pb += plain.stats[r].BytesSent
					cb += compact.stats[r].BytesSent
				}
				if cb >= pb {
					t.Errorf("trial %d, %d ranks: compact requests sent %d bytes, fixed ones %d", trial, p, cb, pb)
				}
			}
		}
	}
}

// FuzzApplyCompact feeds arbitrary bytes to the decoder of compact
// requests: it must never panic; and fixed requests made from the same
// bytes, compacted and decoded, leave the same state as applied as they
// are.
func FuzzApplyCompact(f *testing.F) {
	s := fuzzEngine(f)
	f.Add([]byte{3, 0, 0, 0, 63, 5}, uint8(1))
	f.Add([]byte{0x80}, uint8(0))
	f.Add([]byte{1, 0, 0, 0x80, 0x7f, 2, 0, 0, 0, 0, 0, 1}, uint8(1))
	f.Fuzz(func(t *testing.T, msg []byte, src uint8) {
		from := int(src % 2)
		s.Prepare()
		_ = s.applyAll(from, msg, true) // must not panic
		// The same bytes as fixed requests, made valid.
		var raw []byte
		for i := 0; i+RequestSize <= len(msg); i += RequestSize {
			tg := binary.LittleEndian.Uint32(msg[i:]) % 64
			d := math.Float32bits(float32(binary.LittleEndian.Uint16(msg[i+4:])) / 1024)
			p := binary.LittleEndian.Uint32(msg[i+8:]) % 64
			raw = binary.LittleEndian.AppendUint32(raw, tg)
			raw = binary.LittleEndian.AppendUint32(raw, d)
			raw = binary.LittleEndian.AppendUint32(raw, p)
		}
		s.Prepare()
		if err := s.applyAll(from, raw, false); err != nil {
			t.Fatal(err)
		}
		wantD, wantP := slices.Clone(s.dist), slices.Clone(s.parent)
		enc, _ := compactRequests(nil, raw, nil)
		s.Prepare()
		if err := s.applyAll(from, enc, true); err != nil {
			t.Fatalf("decoding what compactRequests wrote: %v", err)
		}
		if !slices.Equal(s.dist, wantD) || !slices.Equal(s.parent, wantP) {
			t.Fatalf("compact requests leave %v %v, fixed ones %v %v", s.dist, s.parent, wantD, wantP)
		}
	})
}
