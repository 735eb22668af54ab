// Tests of the edge-list writer and decoders: round trips in both formats,
// errors that name the file and line or offset, no output (not even a
// temporary file) left behind by a failed write, and a fuzz test of the
// decoders.

package edgelist

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// readEdgeListTest reads a whole edge list in format ("el" or "bel", or
// "text", "binary") from r with the production reader (ReadStream).
func readEdgeListTest(r io.Reader, name, format string) ([]graph.Edge, error) {
	f, err := EdgeListFormat(name, format)
	if err != nil {
		return nil, err
	}
	return ReadStream(context.Background(), r, name, EdgeFormat(f))
}

// readEdgeFileTest reads a whole .el or .bel file in format (as for
// readEdgeListTest; "" or "auto": from the name) with the production
// reader (ReadEdges).
func readEdgeFileTest(path, format string) ([]graph.Edge, error) {
	f, err := EdgeListFormat(path, format)
	if err != nil {
		return nil, err
	}
	ef, err := ReadEdges(path, EdgeFormat(f))
	if err != nil {
		return nil, err
	}
	return ef.Edges, nil
}

// sampleEdges is a small list with extremes, a self-loop and a duplicate.
func sampleEdges(n int) []graph.Edge {
	es := []graph.Edge{{U: 0, V: 0}, {U: 1, V: 2}, {U: 1, V: 2}, {U: math.MaxInt64, V: 0}, {U: 7, V: math.MaxInt64}}
	x := uint64(12345)
	for len(es) < n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		es = append(es, graph.Edge{U: int64(x >> 40), V: int64(x&0xffffff) << (x % 30)})
	}
	return es[:n]
}

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestEdgeListRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 5, 3000, decodeBatch + 17} {
		want := sampleEdges(n)
		for _, c := range []struct{ name, format string }{
			{"g.el", EdgeListAuto},
			{"g.bel", EdgeListAuto},
			{"g.txt", "text"},
			{"g.dat", "binary"},
			{"g.EL", "auto"},
		} {
			path := filepath.Join(dir, fmt.Sprintf("%d-%s", n, c.name))
			err := WriteEdgeList(path, c.format, func(yield func([]graph.Edge) error) error {
				// Uneven pieces, including an empty one.
				for i, k := 0, 1; i < len(want); i, k = i+k, k*3 {
					if err := yield(want[i:min(i+k, len(want))]); err != nil {
						return err
					}
				}
				return yield(nil)
			})
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			got, err := readEdgeFileTest(path, c.format)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("%s: read %d tuples, not the %d written", path, len(got), len(want))
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o644 {
				t.Errorf("%s: mode %v, want 0644", path, st.Mode().Perm())
			}
		}
	}
	// Only the outputs are left: no temporary files.
	for _, name := range dirEntries(t, dir) {
		if strings.HasPrefix(name, ".") {
			t.Errorf("leftover file %s", name)
		}
	}
}

func TestEdgeListFormats(t *testing.T) {
	dir := t.TempDir()
	es := []graph.Edge{{U: 3, V: 4}, {U: 0, V: 12345678901}}
	text := filepath.Join(dir, "a.el")
	bin := filepath.Join(dir, "a.bel")
	for _, p := range []string{text, bin} {
		w, err := CreateEdgeList(p, EdgeListAuto)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(es); err != nil {
			t.Fatal(err)
		}
		if w.Count() != 2 {
			t.Fatalf("Count = %d", w.Count())
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		w.Abort() // no effect after Close
		if err := w.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
	if got, _ := os.ReadFile(text); string(got) != "3 4\n0 12345678901\n" {
		t.Errorf("text file holds %q", got)
	}
	want := []byte("GRUNEL01")
	want = binary.LittleEndian.AppendUint64(want, 2)
	for _, x := range []uint64{3, 4, 0, 12345678901} {
		want = binary.LittleEndian.AppendUint64(want, x)
	}
	if got, _ := os.ReadFile(bin); !bytes.Equal(got, want) {
		t.Errorf("binary file holds % x,\nwant % x", got, want)
	}
	// Unknown extensions: named formats only.
	if _, err := CreateEdgeList(filepath.Join(dir, "a.txt"), EdgeListAuto); err == nil {
		t.Error("CreateEdgeList accepted an unknown extension without a format")
	}
	if _, err := CreateEdgeList(filepath.Join(dir, "a.el"), "csv"); err == nil {
		t.Error("CreateEdgeList accepted format csv")
	}
	for name, data := range map[string][]byte{"text": []byte("3 4\n0 12345678901\n"), "binary": want} {
		p := filepath.Join(dir, name+".data")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := readEdgeFileTest(p, name); err != nil || !slices.Equal(got, es) {
			t.Errorf("%s: %v, %v", name, got, err)
		}
	}
	if got, err := readEdgeListTest(strings.NewReader("# c\n\n 1\t2 # x\r\n5 6"), "in", "text"); err != nil ||
		!slices.Equal(got, []graph.Edge{{U: 1, V: 2}, {U: 5, V: 6}}) {
		t.Errorf("ReadEdgeList with comments, blanks, tabs, CRLF, no final newline: %v, %v", got, err)
	}
}

func TestReadEdgeListTextErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		data string
		want string
	}{
		{"1 2\n3 x\n", ":2: bad vertex id \"x\""},
		{"1 2\n# comment\n\n3\n", ":4: want 2 columns (u v), got 1"},
		{"1 2 3\n", ":1: want 2 columns (u v), got 3"},
		{"1 2\n-5 3\n", ":2: negative vertex id \"-5\""},
		{"1 -0x1\n", ":1: bad vertex id \"-0x1\""},
		{"9223372036854775807 9223372036854775808\n", ":1: vertex id \"9223372036854775808\" out of range"},
		{"1 2\n1.5 2\n", ":2: bad vertex id \"1.5\""},
		{"+1 2\n", ":1: bad vertex id \"+1\""},
		{"1 2\n" + strings.Repeat("9", edgeReadBufSize+5) + "\n", ":2: line longer than"},
	} {
		p := filepath.Join(dir, "bad.el")
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readEdgeFileTest(p, "")
		if err == nil || !strings.Contains(err.Error(), p+c.want) {
			t.Errorf("%.30q: got error %v, want %q", c.data, err, p+c.want)
			continue
		}
		var ele *EdgeListError
		if !errors.As(err, &ele) || ele.Name != p || ele.Line == 0 {
			t.Errorf("%.30q: error %#v is not an *EdgeListError with a line", c.data, err)
		}
	}
}

func TestReadEdgeListBinaryErrors(t *testing.T) {
	dir := t.TempDir()
	rec := func(hdrCount uint64, vals ...uint64) []byte {
		b := binary.LittleEndian.AppendUint64([]byte(EdgeListMagic), hdrCount)
		for _, v := range vals {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		return b
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, ": offset 0: truncated header: 0 of 16 bytes"},
		{"short header", []byte("GRUNEL01\x01"), ": offset 9: truncated header: 9 of 16 bytes"},
		{"bad magic", append([]byte("GRUNEL02"), make([]byte, 8)...), ": offset 0: bad magic \"GRUNEL02\""},
		{"truncated", rec(2, 1, 2, 3), ": offset 8: count mismatch: header says 2 tuples, the file holds 1 tuples and 8 bytes"},
		{"too many", rec(1, 1, 2, 3, 4), ": offset 8: count mismatch: header says 1 tuples, the file holds 2 tuples"},
		{"huge count", rec(math.MaxUint64), ": offset 8: count mismatch: header says 18446744073709551615 tuples"},
		{"negative", rec(2, 1, 2, 3, math.MaxUint64), ": offset 32: tuple 1 (3, -1): negative vertex id"},
	} {
		p := filepath.Join(dir, "bad.bel")
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readEdgeFileTest(p, "")
		if err == nil || !strings.Contains(err.Error(), p+c.want) {
			t.Errorf("%s: got error %v, want %q", c.name, err, p+c.want)
		}
	}
	if _, err := readEdgeFileTest(filepath.Join(dir, "missing.el"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestWriteEdgeListFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	// Into a directory that does not exist: an error, and nothing created.
	missing := filepath.Join(dir, "no", "such", "dir", "g.el")
	err := WriteEdgeList(missing, EdgeListAuto, func(yield func([]graph.Edge) error) error {
		return yield(sampleEdges(10))
	})
	if err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("something was created: %v", err)
	}

	// A producer that fails midway: its error, no output, no temporary file,
	// and an existing file at the destination is left as it was.
	dst := filepath.Join(dir, "g.bel")
	if err := os.WriteFile(dst, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err = WriteEdgeList(dst, EdgeListAuto, func(yield func([]graph.Edge) error) error {
		if err := yield(sampleEdges(100000)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the producer's error", err)
	}
	// Negative ids are refused.
	err = WriteEdgeList(filepath.Join(dir, "n.el"), EdgeListAuto, func(yield func([]graph.Edge) error) error {
		return yield([]graph.Edge{{U: 1, V: 2}, {U: 3, V: -4}})
	})
	if err == nil || !strings.Contains(err.Error(), "tuple 1 (3, -4): negative vertex id") {
		t.Fatalf("negative id: got %v", err)
	}
	// Abort before Close.
	w, err := CreateEdgeList(filepath.Join(dir, "a.el"), EdgeListAuto)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(sampleEdges(10)); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if err := w.Write(sampleEdges(1)); err == nil {
		t.Error("Write after Abort succeeded")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
	if got, _ := os.ReadFile(dst); string(got) != "old" {
		t.Errorf("destination changed to %q", got)
	}
	if names := dirEntries(t, dir); !slices.Equal(names, []string{"g.bel"}) {
		t.Errorf("directory holds %v, want only the old g.bel", names)
	}
}

// checkDecoder runs one decoder on data and, when it succeeds, checks that
// re-encoding gives back what it read (and, for binary, the very bytes).
func checkDecoder(t *testing.T, data []byte, format string) {
	got, err := readEdgeListTest(bytes.NewReader(data), "fuzz", format)
	if err != nil {
		var ele *EdgeListError
		if !errors.As(err, &ele) {
			t.Fatalf("%s: error %v is not an *EdgeListError", format, err)
		}
		if !strings.HasPrefix(err.Error(), "fuzz:") {
			t.Fatalf("%s: error %q does not name the input", format, err)
		}
		return
	}
	for _, e := range got {
		if e.U < 0 || e.V < 0 {
			t.Fatalf("%s: decoded negative id %v", format, e)
		}
	}
	var enc []byte
	if format == EdgeListBinary {
		enc = binary.LittleEndian.AppendUint64([]byte(EdgeListMagic), uint64(len(got)))
		enc = appendBinaryEdges(enc, got)
		if !bytes.Equal(enc, data) {
			t.Fatalf("binary: re-encoding %d tuples does not give the input back", len(got))
		}
		return
	}
	enc = appendTextEdges(nil, got)
	again, err := readEdgeListTest(bytes.NewReader(enc), "again", format)
	if err != nil || !slices.Equal(again, got) && !(len(again) == 0 && len(got) == 0) {
		t.Fatalf("text: re-encoded list reads back as %v, %v; want %v", again, err, got)
	}
}

func FuzzReadEdgeList(f *testing.F) {
	f.Add([]byte("1 2\n3 4\n"))
	f.Add([]byte("# header\n0 0\n\n 5\t6 # tail\r\n7 8"))
	f.Add([]byte("1 2 3\n-4 5\n9223372036854775808 1\n"))
	f.Add([]byte{})
	bin := binary.LittleEndian.AppendUint64([]byte(EdgeListMagic), 2)
	bin = appendBinaryEdges(bin, []graph.Edge{{U: 1, V: 2}, {U: math.MaxInt64, V: 0}})
	f.Add(bin)
	f.Add(bin[:20])
	f.Add(append(slices.Clone(bin), 0))
	f.Add(binary.LittleEndian.AppendUint64([]byte(EdgeListMagic), math.MaxUint64))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecoder(t, data, EdgeListText)
		checkDecoder(t, data, EdgeListBinary)
	})
}

func BenchmarkWriteEdgeList(b *testing.B) {
	es := sampleEdges(1 << 16)
	for i := range es {
		es[i].U &= 1<<26 - 1 // Graph500-sized ids
		es[i].V &= 1<<26 - 1
	}
	for _, format := range []string{EdgeListText, EdgeListBinary} {
		b.Run(format, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "g."+format)
			b.SetBytes(16 * 16 * int64(len(es)))
			for b.Loop() {
				w, err := CreateEdgeList(path, EdgeListAuto)
				if err != nil {
					b.Fatal(err)
				}
				for range 16 {
					if err := w.Write(es); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReadEdgeList(b *testing.B) {
	es := sampleEdges(1 << 18)
	for _, format := range []string{EdgeListText, EdgeListBinary} {
		b.Run(format, func(b *testing.B) {
			var data []byte
			if format == EdgeListBinary {
				data = binary.LittleEndian.AppendUint64([]byte(EdgeListMagic), uint64(len(es)))
				data = appendBinaryEdges(data, es)
			} else {
				data = appendTextEdges(nil, es)
			}
			b.SetBytes(16 * int64(len(es)))
			for b.Loop() {
				_, err := readEdgeListTest(bytes.NewReader(data), "bench", format)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
