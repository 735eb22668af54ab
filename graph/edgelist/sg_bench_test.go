package edgelist

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadSG reads a gapbs .sg of 2^20 vertices of degree 16 (a
// 68 MiB file) on 1 and 4 ranks: the offsets read through sgOffsets'
// window, the entries in chunks.
func BenchmarkReadSG(b *testing.B) {
	const n, deg = int64(1) << 20, int64(16)
	path := filepath.Join(b.TempDir(), "bench.sg")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	le := binary.LittleEndian
	var h [sgHeaderSize]byte
	le.PutUint64(h[1:], uint64(n*deg))
	le.PutUint64(h[9:], uint64(n))
	w.Write(h[:])
	for u := range n + 1 {
		w.Write(le.AppendUint64(nil, uint64(u*deg)))
	}
	for u := range n {
		for j := range deg {
			w.Write(le.AppendUint32(nil, uint32((u*7+j*104729)%n)))
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	for _, ranks := range []int{1, 4} {
		b.Run(map[int]string{1: "ranks=1", 4: "ranks=4"}[ranks], func(b *testing.B) {
			b.SetBytes(sgHeaderSize + 8*(n+1) + 4*n*deg)
			for b.Loop() {
				for rank := range ranks {
					if _, err := ReadEdgesRange(path, EdgeFormatSG, rank, ranks); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
