package edgelist

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// claimed is the size every header below claims: 2^40 vertices, entries
// or tuples, far beyond what the files hold.
const claimed = uint64(1) << 40

// allocLimit bounds what reading one of these small files may allocate.
const allocLimit = 64 << 20

// TestClaimedSizesBounded feeds every reader that takes a size from its
// input (the .grb, .sg, .wsg and .bel headers, the Matrix Market size
// line; plain and gzipped where the format allows) a claim of 2^40, and
// checks that it fails with an error naming the file, having allocated a
// bounded amount: sizes from the input are checked before they size an
// allocation.
func TestClaimedSizesBounded(t *testing.T) {
	le := binary.LittleEndian
	grb := func(n, m uint64) []byte {
		h := make([]byte, grbHeaderSize)
		copy(h, GRBMagic)
		le.PutUint32(h[8:], GRBVersion)
		le.PutUint64(h[16:], n)
		le.PutUint64(h[24:], m)
		le.PutUint32(h[40:], 1<<16)
		le.PutUint32(h[60:], crc32.Checksum(h[:60], castagnoli()))
		return h
	}
	sg := func(e, n uint64) []byte {
		h := make([]byte, sgHeaderSize+64)
		le.PutUint64(h[1:], e)
		le.PutUint64(h[9:], n)
		return h
	}
	bel := func(count uint64) []byte {
		h := make([]byte, edgeListHeaderSize+32)
		copy(h, EdgeListMagic)
		le.PutUint64(h[8:], count)
		return h
	}
	mtx := []byte("%%MatrixMarket matrix coordinate pattern general\n1099511627776 1099511627776 1099511627776\n1 2\n")
	cases := []struct {
		name   string
		format EdgeFormat
		data   []byte
	}{
		{"vertices.grb", EdgeFormatGRB, grb(claimed, 1)},
		{"tuples.grb", EdgeFormatGRB, grb(4, claimed)},
		{"entries.sg", EdgeFormatSG, sg(claimed, 4)},
		{"vertices.sg", EdgeFormatSG, sg(4, claimed)},
		{"entries.wsg", EdgeFormatWSG, sg(claimed, 4)},
		{"tuples.bel", EdgeFormatBEL, bel(claimed)},
		{"size.mtx", EdgeFormatMTX, mtx},
	}
	for _, c := range cases {
		gz := c
		gz.name += ".gz"
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = w.Write(c.data)
		_ = w.Close()
		gz.data = b.Bytes()
		if c.format == EdgeFormatBEL || c.format == EdgeFormatMTX {
			cases = append(cases, gz) // the random-access formats take no gzip
		}
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := ReadEntries(path, c.format)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatalf("a claim of 2^40 read without an error")
			}
			if !bytes.Contains([]byte(err.Error()), []byte(c.name)) {
				t.Errorf("error %q does not name the file", err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > allocLimit {
				t.Errorf("allocated %d MiB for a %d-byte file claiming 2^40 (limit %d MiB): %v", grew>>20, len(c.data), allocLimit>>20, err)
			}
		})
	}
}
