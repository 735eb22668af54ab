package sizeclaims

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm/tcp"
	"github.com/graphrun/graphrun/graph"
	"github.com/graphrun/graphrun/graph/edgelist"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/results/report"
)

// claimed is the size every input below claims: 2^40 vertices, entries,
// tuples, bytes or levels, far beyond what the inputs hold.
const claimed = uint64(1) << 40

// allocLimit bounds what reading one of these small inputs may allocate.
const allocLimit = 64 << 20

// claim is one reader fed one claim: read runs it on the input in dir and
// returns its error; want is a piece of that error (the input's name).
type claim struct {
	name string
	read func(t *testing.T, dir string) error
	want string
}

// TestClaimedSizesBounded runs every claim: each must fail, its error
// naming what it read, having allocated at most allocLimit.
func TestClaimedSizesBounded(t *testing.T) {
	dir := t.TempDir()
	for _, c := range claims() {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err := c.read(t, dir)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatalf("a claim of 2^40 read without an error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > allocLimit {
				t.Errorf("allocated %d MiB for a claim of 2^40 (limit %d MiB): %v", grew>>20, allocLimit>>20, err)
			}
		})
	}
}

// claims lists the readers and their claims.
func claims() []claim {
	var cs []claim
	// Graph files, read by every command: each header's count.
	for _, f := range []struct {
		name   string
		format edgelist.EdgeFormat
		data   []byte
		gz     bool // the format is also read gzipped
	}{
		{"vertices.grb", edgelist.EdgeFormatGRB, grbHeader(claimed, 1), false},
		{"tuples.grb", edgelist.EdgeFormatGRB, grbHeader(4, claimed), false},
		{"entries.sg", edgelist.EdgeFormatSG, sgHeader(claimed, 4), false},
		{"vertices.sg", edgelist.EdgeFormatSG, sgHeader(4, claimed), false},
		{"entries.wsg", edgelist.EdgeFormatWSG, sgHeader(claimed, 4), false},
		{"tuples.bel", edgelist.EdgeFormatBEL, belHeader(claimed), true},
		{"size.mtx", edgelist.EdgeFormatMTX, []byte("%%MatrixMarket matrix coordinate pattern general\n1099511627776 1099511627776 1099511627776\n1 2\n"), true},
	} {
		cs = append(cs, fileClaim(f.name, f.format, f.data))
		if f.gz {
			cs = append(cs, fileClaim(f.name+".gz", f.format, gzipped(f.data)))
		}
	}
	cs = append(cs,
		claim{"weighted entries.wsg", func(t *testing.T, dir string) error {
			_, err := edgelist.ReadWeightedEdges(write(t, dir, "weighted.wsg", sgHeader(claimed, 4)), edgelist.EdgeFormatWSG)
			return err
		}, "weighted.wsg"},
		// A stream (standard input, a pipe) read once.
		claim{"stream tuples.bel", func(*testing.T, string) error {
			_, err := edgelist.ReadStream(context.Background(), bytes.NewReader(belHeader(claimed)), "stdin", edgelist.EdgeFormatBEL)
			return err
		}, "stdin"},
		claim{"stream size.mtx", func(*testing.T, string) error {
			mtx := "%%MatrixMarket matrix coordinate pattern general\n1099511627776 1099511627776 1099511627776\n1 2\n"
			_, err := edgelist.ReadStream(context.Background(), strings.NewReader(mtx), "stdin", edgelist.EdgeFormatMTX)
			return err
		}, "stdin"},
		// A wire frame whose header announces 4 GiB of payload (its
		// largest) in a message of 2^40 bytes, followed by 1 MiB.
		claim{"tcp frame", func(*testing.T, string) error {
			f := tcp.AppendFrame(nil, tcp.Frame{Type: tcp.FrameData, Total: claimed}, []byte("x"))
			binary.LittleEndian.PutUint32(f[44:], math.MaxUint32)
			in := append(f[:tcp.HeaderSize], make([]byte, 1<<20)...)
			_, _, err := tcp.ReadFrame(bytes.NewReader(in), nil, math.MaxInt)
			return err
		}, "EOF"},
		// A packed row of graph.BuildPackedFrom whose degree is 2^40.
		claim{"packed row degree", func(*testing.T, string) error {
			row := binary.AppendUvarint(nil, claimed)
			row = append(row, bytes.Repeat([]byte{0x55}, 64)...)
			_, _, err := graph.DecodePackedRow[uint32](row, 0, 1<<20, nil)
			return err
		}, "degree"},
		// A run JSON of 2^40 bytes (a sparse file), read by graphrun report.
		claim{"run JSON size", func(t *testing.T, dir string) error {
			path := filepath.Join(dir, "huge.json")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(int64(claimed)); err != nil {
				f.Close()
				t.Skipf("no sparse file of 2^40 bytes here: %v", err)
			}
			f.Close()
			defer os.Remove(path)
			_, err = report.ReadRunFiles([]string{path})
			return err
		}, "huge.json"},
		// A run JSON whose level number is 2^40: the breakdown table is
		// indexed by it.
		claim{"run JSON level", func(*testing.T, string) error {
			doc := `{"SCALE": 4, "edgefactor": 16, "NBFS": 1, "num_ranks": 1, "threads": 1, "validation_skipped": true,
				"searches": [{"root": 0, "time": 0.1, "nedge": 10, "validate_time": -1, "levels": [{"level": 1099511627776, "frontier": 1, "time": 0.1}]}]}`
			run, err := results.ReadRunJSON(strings.NewReader(doc))
			if err == nil {
				err = run.WriteBreakdown(&bytes.Buffer{})
			}
			return err
		}, "level number 1099511627776"},
	)
	return cs
}

// fileClaim reads the file name holding data in format.
func fileClaim(name string, format edgelist.EdgeFormat, data []byte) claim {
	return claim{name, func(t *testing.T, dir string) error {
		_, err := edgelist.ReadEntries(write(t, dir, name, data), format)
		return err
	}, name}
}

// write writes data to dir/name and returns the path.
func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gzipped(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write(data)
	_ = w.Close()
	return b.Bytes()
}

// grbHeader is a valid .grb header (docs/formats.md) of n vertices and m
// tuples, with nothing after it.
func grbHeader(n, m uint64) []byte {
	le := binary.LittleEndian
	h := make([]byte, 64)
	copy(h, edgelist.GRBMagic)
	le.PutUint32(h[8:], edgelist.GRBVersion)
	le.PutUint64(h[16:], n)
	le.PutUint64(h[24:], m)
	le.PutUint32(h[40:], 1<<16)
	le.PutUint32(h[60:], crc32.Checksum(h[:60], crc32.MakeTable(crc32.Castagnoli)))
	return h
}

// sgHeader is a gapbs .sg header of e entries and n vertices (undirected)
// and 64 bytes.
func sgHeader(e, n uint64) []byte {
	h := make([]byte, 17+64)
	binary.LittleEndian.PutUint64(h[1:], e)
	binary.LittleEndian.PutUint64(h[9:], n)
	return h
}

// belHeader is a .bel header of count tuples and 32 bytes.
func belHeader(count uint64) []byte {
	h := make([]byte, 16+32)
	copy(h, edgelist.EdgeListMagic)
	binary.LittleEndian.PutUint64(h[8:], count)
	return h
}
