package edgelist

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/graphrun/graphrun/graph"

	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/comm/inproc"
)

// grbBytes converts edges to a .grb image.
func grbBytes(t testing.TB, edges []graph.Edge, directed bool, offset int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := WriteGRB(context.Background(), &buf, graph.EdgeChunks{edges}, directed, false, offset); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGRBRoundTrip writes edges with sparse ids as a .grb and reads them
// back whole and split over 1 to 7 ranks: the same edges, in order, with
// their original ids; the header says the counts.
func TestGRBRoundTrip(t *testing.T) {
	es := sampleEdges(20000)
	for i := range es {
		es[i].U = es[i].U%5000*1_000_003 + 7 // sparse ids
		es[i].V = es[i].V%5000*1_000_003 + 7
	}
	data := grbBytes(t, es, true, 0)
	path := writeFile(t, "g.grb", data)
	ef, err := ReadEdges(path, "")
	if err != nil || !slices.Equal(ef.Edges, es) || !ef.Directed || ef.Format != EdgeFormatGRB {
		t.Fatalf("read back %d edges (directed %v), %v", len(ef.Edges), ef.Directed, err)
	}
	for _, size := range []int{1, 2, 3, 7} {
		if got := readAllRanks(t, path, "", size); !slices.Equal(got, es) {
			t.Errorf("%d ranks: shares differ", size)
		}
	}
	g, closer, err := OpenGRB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	distinct := map[int64]bool{}
	for _, e := range es {
		distinct[e.U], distinct[e.V] = true, true
	}
	if g.Vertices != int64(len(distinct)) || g.Tuples != int64(len(es)) || !g.Directed || g.IDOffset != 0 {
		t.Fatalf("header %+v", g.GRBHeader)
	}
	ids := make([]int64, g.Vertices)
	if err := g.ReadIDs(context.Background(), 0, ids); err != nil || !slices.Equal(ids, slices.Sorted(maps.Keys(distinct))) {
		t.Fatalf("ids: %v", err)
	}
	// Undirected, 1-based: the flags and the offset survive.
	u := grbBytes(t, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 0}}, false, 1)
	g2, err := NewGRB(bytes.NewReader(u), int64(len(u)), "u.grb")
	if err != nil || g2.Directed || g2.IDOffset != 1 || g2.Vertices != 2 {
		t.Fatalf("undirected header %+v, %v", g2, err)
	}
	// No edges: a valid empty graph.
	empty := writeFile(t, "e.grb", grbBytes(t, nil, true, 0))
	if ef, err := ReadEdges(empty, ""); err != nil || len(ef.Edges) != 0 {
		t.Fatalf("empty graph: %v, %v", ef, err)
	}
}

// TestGRBDetectsCorruption flips every byte of a small .grb in turn (and
// cuts it short): every damaged file fails to read, with an
// *EdgeListError naming it, never a panic or wrong edges.
func TestGRBDetectsCorruption(t *testing.T) {
	data := grbBytes(t, []graph.Edge{{U: 10, V: 20}, {U: 20, V: 30}, {U: 30, V: 10}, {U: 10, V: 10}}, true, 0)
	read := func(b []byte) error {
		src := memSource("bad.grb", b, EdgeFormatGRB, false, edgeReadBufSize)
		_, err := src.read(0, 1)
		return err
	}
	if err := read(data); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		bad := slices.Clone(data)
		bad[i] ^= 0x40
		err := read(bad)
		var ele *EdgeListError
		if err == nil || !errors.As(err, &ele) || ele.Name != "bad.grb" {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
	for _, n := range []int{0, 10, 64, len(data) - 1} {
		if err := read(data[:n]); err == nil {
			t.Errorf("cut to %d bytes: no error", n)
		}
	}
	// A stream or a gzipped .grb cannot be read by share.
	if _, err := ReadStream(context.Background(), bytes.NewReader(data), "-", EdgeFormatGRB); err == nil {
		t.Error("a .grb stream was read")
	}
}

// TestGRBWriterChecks checks the writer's refusals.
func TestGRBWriterChecks(t *testing.T) {
	var buf bytes.Buffer
	gw, err := NewGRBWriter(&buf, GRBHeader{Vertices: 2, Tuples: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := gw.WriteIDs([]int64{5, 3}); err == nil {
		t.Error("decreasing ids accepted")
	}
	gw, _ = NewGRBWriter(&buf, GRBHeader{Vertices: 2, Tuples: 1})
	if err := gw.WriteTuples([]uint64{0}); err == nil {
		t.Error("tuples before the ids accepted")
	}
	gw, _ = NewGRBWriter(&buf, GRBHeader{Vertices: 2, Tuples: 1})
	if err := gw.WriteIDs([]int64{3, 5}); err != nil {
		t.Fatal(err)
	}
	if err := gw.WriteTuples([]uint64{2 << 32}); err == nil {
		t.Error("a dense id beyond the vertices accepted")
	}
	gw, _ = NewGRBWriter(&buf, GRBHeader{Vertices: 2, Tuples: 1})
	_ = gw.WriteIDs([]int64{3, 5})
	if err := gw.Close(); err == nil {
		t.Error("Close with a tuple missing succeeded")
	}
	if _, err := NewGRBWriter(&buf, GRBHeader{Vertices: 1, IDOffset: 2}); err == nil {
		t.Error("id offset 2 accepted")
	}
}

func FuzzReadGRB(f *testing.F) {
	f.Add(grbBytes(f, []graph.Edge{{U: 10, V: 20}, {U: 20, V: 30}, {U: 30, V: 10}}, true, 0))
	f.Add(grbBytes(f, nil, false, 1))
	f.Add([]byte(GRBMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkReadTuples(t, data)
		for _, size := range []int{1, 3} {
			var got []graph.Edge
			var failed error
			for r := range size {
				src := memSource("fuzz.grb", data, EdgeFormatGRB, false, edgeReadBufSize)
				p, err := src.read(r, size)
				if err != nil {
					var ele *EdgeListError
					if !errors.As(err, &ele) {
						t.Fatalf("error %v is not an *EdgeListError", err)
					}
					failed = err
					break
				}
				got = append(got, p.edges...)
			}
			if failed != nil {
				continue
			}
			// What reads back re-encodes to a graph with the same edges.
			again := grbBytes(t, got, true, 0)
			src := memSource("again.grb", again, EdgeFormatGRB, false, edgeReadBufSize)
			p, err := src.read(0, 1)
			if err != nil || !slices.Equal(p.edges, got) && len(got)+len(p.edges) > 0 {
				t.Fatalf("%d ranks: re-encoded graph reads back as %v, %v; want %v", size, p, err, got)
			}
		}
	})
}

// checkReadTuples checks that ReadTuples, a few tuples at a time, gives
// what ScanTuples gives of a .grb file, or fails where it fails.
func checkReadTuples(t *testing.T, data []byte) {
	g, err := NewGRB(bytes.NewReader(data), int64(len(data)), "fuzz.grb")
	if err != nil || g.Tuples > 1<<16 {
		return
	}
	ctx := context.Background()
	var scanned []graph.Edge
	errS := g.ScanTuples(ctx, 0, g.Tuples, func(packed []uint64) error {
		for _, k := range packed {
			scanned = append(scanned, graph.Edge{U: int64(k >> 32), V: int64(k & 0xffffffff)})
		}
		return nil
	})
	read := make([]graph.Edge, g.Tuples)
	var errR error
	for first := int64(0); first < g.Tuples && errR == nil; first += 3 {
		errR = g.ReadTuples(ctx, first, read[first:min(first+3, g.Tuples)])
	}
	if (errS == nil) != (errR == nil) || errS == nil && !slices.Equal(scanned, read) {
		t.Fatalf("ReadTuples: %v, %v; ScanTuples: %v, %v", read, errR, scanned, errS)
	}
}

// TestConvertToEdgeList writes a share as text with the id offset added.
func TestConvertToEdgeList(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteEdgeListOf(context.Background(), &buf, graph.EdgeChunks{{{U: 0, V: 1}, {U: 2, V: 0}}}, EdgeListText, 2, 1); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "1 2\n3 1\n" {
		t.Errorf("got %q", buf.String())
	}
}

// TestEntriesOfSymmetric checks the one-edge-per-entry reading of a
// symmetric Matrix Market file (ReadEntries, Input.Entries on every
// path) and its .grb: the readers of edges mirror the entries as for the
// file; the entries stay the file's lines.
func TestEntriesOfSymmetric(t *testing.T) {
	mtx := writeFile(t, "s.mtx", []byte("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 3\n4 2\n"))
	entries := []graph.Edge{{U: 1, V: 0}, {U: 2, V: 2}, {U: 3, V: 1}}
	mirrored := []graph.Edge{{U: 1, V: 0}, {U: 0, V: 1}, {U: 2, V: 2}, {U: 3, V: 1}, {U: 1, V: 3}}
	ef, err := ReadEntries(mtx, "")
	if err != nil || !slices.Equal(ef.Edges, entries) || !ef.Symmetric || ef.Directed {
		t.Fatalf("ReadEntries: %+v, %v", ef, err)
	}
	if ef, err := ReadEdges(mtx, ""); err != nil || !slices.Equal(ef.Edges, mirrored) || ef.Symmetric {
		t.Fatalf("ReadEdges: %+v, %v", ef, err)
	}
	for _, stream := range []bool{false, true} {
		in, err := NewInput(mtx, "mtx", stream, nil)
		if err != nil {
			t.Fatal(err)
		}
		in.Entries = true
		if stream {
			data, _ := os.ReadFile(mtx)
			in, _ = NewInput(StdinName, "mtx", true, bytes.NewReader(data))
			in.Entries = true
		}
		var got []graph.Edge
		err = inproc.Run(context.Background(), 2, func(ctx context.Context, c comm.Comm) error {
			share, err := in.Share(ctx, c)
			if err != nil {
				return err
			}
			var mine []graph.Edge
			if err := share.Scan(ctx, func(es []graph.Edge) error { mine = append(mine, es...); return nil }); err != nil {
				return err
			}
			all, err := c.Allgatherv(ctx, "test", appendEdgesTest(nil, mine), nil)
			if c.Rank() == 0 {
				for _, b := range all {
					got = append(got, edgesOfTest(b)...)
				}
			}
			return err
		})
		if err != nil || !slices.Equal(got, entries) {
			t.Fatalf("stream %v: %v, %v", stream, got, err)
		}
	}
	var buf bytes.Buffer
	if _, err := WriteGRB(context.Background(), &buf, graph.EdgeChunks{entries}, false, true, 1); err != nil {
		t.Fatal(err)
	}
	grb := writeFile(t, "s.grb", buf.Bytes())
	if ef, err := ReadEdges(grb, ""); err != nil || !slices.Equal(ef.Edges, mirrored) {
		t.Fatalf(".grb ReadEdges: %+v, %v", ef, err)
	}
	if ef, err := ReadEntries(grb, ""); err != nil || !slices.Equal(ef.Edges, entries) || !ef.Symmetric {
		t.Fatalf(".grb ReadEntries: %+v, %v", ef, err)
	}
	if _, err := NewGRBWriter(&buf, GRBHeader{Directed: true, Symmetric: true}); err == nil {
		t.Error("directed and symmetric accepted")
	}
}

func appendEdgesTest(b []byte, es []graph.Edge) []byte {
	for _, e := range es {
		b = binary.LittleEndian.AppendUint64(b, uint64(e.U))
		b = binary.LittleEndian.AppendUint64(b, uint64(e.V))
	}
	return b
}

func edgesOfTest(b []byte) []graph.Edge {
	var es []graph.Edge
	for i := 0; i+16 <= len(b); i += 16 {
		es = append(es, graph.Edge{U: int64(binary.LittleEndian.Uint64(b[i:])), V: int64(binary.LittleEndian.Uint64(b[i+8:]))})
	}
	return es
}
