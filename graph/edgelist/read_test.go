// Tests of the real-edge-list readers (read.go): the two shared graphs of
// Kylix §VII-style PageRank runs with their traps, byte-range and gzip
// line-share splitting that concatenates to the whole file for any rank
// count, and every malformed input. The relabelling of the Slashdot graph
// is graph's labels_slashdot_test.go.

package edgelist

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/graphrun/graphrun/graph"

	"github.com/klauspost/compress/gzip"

	"github.com/graphrun/graphrun/internal/testgraph"
)

// memSource is an edge source over data in memory (compressed when gz).
func memSource(name string, data []byte, format EdgeFormat, gz bool, bufSize int) *edgeSource {
	return &edgeSource{name: name, format: format, gzipped: gz, ra: bytes.NewReader(data), size: int64(len(data)), bufSize: bufSize}
}

// gzipBytes compresses data.
func gzipBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeFile writes data to name in a fresh temporary directory.
func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readAllRanks reads path with ReadEdgesRange on size ranks and returns
// the shares concatenated in rank order.
func readAllRanks(t testing.TB, path string, format EdgeFormat, size int) []graph.Edge {
	t.Helper()
	var all []graph.Edge
	for r := range size {
		es, err := ReadEdgesRange(path, format, r, size)
		if err != nil {
			t.Fatalf("rank %d of %d: %v", r, size, err)
		}
		all = append(all, es...)
	}
	return all
}

func TestDetectEdgeFormat(t *testing.T) {
	for _, c := range []struct {
		path, explicit string
		format         EdgeFormat
		gz             bool
	}{
		{"twitter.edges", "", EdgeFormatSNAP, false},
		{"soc-Slashdot0902.txt.gz", "", EdgeFormatSNAP, true},
		{"a/B.TXT", "auto", EdgeFormatSNAP, false},
		{"g.el", "", EdgeFormatEL, false},
		{"g.wel.gz", "", EdgeFormatWEL, true},
		{"road.mtx", "", EdgeFormatMTX, false},
		{"road.mtx.gz", "", EdgeFormatMTX, true},
		{"g.bel", "", EdgeFormatBEL, false},
		{"data.csv", "snap", EdgeFormatSNAP, false},
		{"data", "mtx.gz", EdgeFormatMTX, true},
		{"data.gz", "matrixmarket", EdgeFormatMTX, true},
		{"x.bin", "binary", EdgeFormatBEL, false},
		{"x", "text", EdgeFormatEL, false},
	} {
		f, gz, err := DetectEdgeFormat(c.path, c.explicit)
		if err != nil || f != c.format || gz != c.gz {
			t.Errorf("DetectEdgeFormat(%q, %q) = %q, %v, %v; want %q, %v", c.path, c.explicit, f, gz, err, c.format, c.gz)
		}
	}
	for _, c := range [][2]string{{"data.csv", ""}, {"noext", ""}, {"x.gz", ""}, {"x.txt", "json"}} {
		if f, _, err := DetectEdgeFormat(c[0], c[1]); err == nil {
			t.Errorf("DetectEdgeFormat(%q, %q) = %q, want an error", c[0], c[1], f)
		}
	}
}

func TestReadSlashdot(t *testing.T) {
	path := testgraph.RealFile(t, "soc-Slashdot0902.txt.gz")
	ef, err := ReadEdges(path, "")
	if err != nil {
		t.Fatal(err)
	}
	loops := selfLoops(ef.Edges)
	ids := distinctIDs(ef.Edges)
	if len(ef.Edges) != 948464 || len(ids) != 82168 || loops != 78303 {
		t.Fatalf("read %d edges, %d distinct vertices, %d self-loops; want 948464, 82168, 78303", len(ef.Edges), len(ids), loops)
	}
	if !ef.Directed || ef.Vertices != 82168 || ef.Format != EdgeFormatSNAP {
		t.Fatalf("Directed %v, Vertices %d, Format %q; want true, 82168, snap", ef.Directed, ef.Vertices, ef.Format)
	}
	if ef.Edges[0] != (graph.Edge{U: 0, V: 0}) || ef.Edges[1] != (graph.Edge{U: 0, V: 1}) || ef.Edges[len(ef.Edges)-1] != (graph.Edge{U: 82166, V: 82166}) {
		t.Fatalf("first edges %v, last %v", ef.Edges[:2], ef.Edges[len(ef.Edges)-1])
	}
	// The same bytes uncompressed split by byte ranges, and the gzip stream
	// split by line shares, both concatenate to ReadEdges' list.
	plain := writeFile(t, "slashdot.txt", gunzipFile(t, path))
	checkSharesConcatenate(t, ef.Edges, "gz", path, "plain", plain)
}

// distinctIDs returns the sorted distinct ids of edges.
func distinctIDs(edges []graph.Edge) []int64 {
	ids := make([]int64, 0, 2*len(edges))
	for _, e := range edges {
		ids = append(ids, e.U, e.V)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// selfLoops counts the edges u→u.
func selfLoops(edges []graph.Edge) int {
	loops := 0
	for _, e := range edges {
		if e.U == e.V {
			loops++
		}
	}
	return loops
}

// checkSharesConcatenate checks that each named file (label, path pairs)
// read by 1, 2, 3 and 7 ranks at once concatenates to want.
func checkSharesConcatenate(t *testing.T, want []graph.Edge, labelPaths ...string) {
	t.Helper()
	for _, size := range []int{1, 2, 3, 7} {
		for i := 0; i+1 < len(labelPaths); i += 2 {
			if got := readRanksConcurrently(t, labelPaths[i+1], size); !slices.Equal(got, want) {
				t.Errorf("%s, %d ranks: concatenated shares differ from ReadEdges (%d vs %d edges)", labelPaths[i], size, len(got), len(want))
			}
		}
	}
}

// readRanksConcurrently is readAllRanks with the ranks reading at the same
// time, as they do in a job.
func readRanksConcurrently(t testing.TB, path string, size int) []graph.Edge {
	t.Helper()
	shares, errs := make([][]graph.Edge, size), make([]error, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Go(func() { shares[r], errs[r] = ReadEdgesRange(path, "", r, size) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("%d ranks: %v", size, err)
	}
	return slices.Concat(shares...)
}

// gunzipFile returns the decompressed content of a .gz file.
func gunzipFile(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestReadLuxembourg(t *testing.T) {
	path := testgraph.RealFile(t, "road-luxembourg-osm.mtx")
	ef, err := ReadEdges(path, "")
	if err != nil {
		t.Fatal(err)
	}
	diag := selfLoops(ef.Edges)
	// Every stored entry gives two edges, a diagonal one only one.
	if entries := (len(ef.Edges) + diag) / 2; entries != 119666 {
		t.Fatalf("%d edges with %d self-loops: %d entries, want 119666", len(ef.Edges), diag, entries)
	}
	if len(ef.Edges) != 2*119666-diag {
		t.Fatalf("%d edges, want 2·119666 − %d", len(ef.Edges), diag)
	}
	if ids := distinctIDs(ef.Edges); len(ids) != 114599 || ids[0] != 0 || ids[len(ids)-1] != 114598 {
		t.Fatalf("%d distinct vertices in [%d, %d], want 114599 in [0, 114598]", len(ids), ids[0], ids[len(ids)-1])
	}
	if ef.Directed || ef.Vertices != 114599 || ef.Format != EdgeFormatMTX {
		t.Fatalf("Directed %v, Vertices %d, Format %q; want false, 114599, mtx", ef.Directed, ef.Vertices, ef.Format)
	}
	// The first entry "2 1" is the edge 1→0 and its mirror 0→1.
	if ef.Edges[0] != (graph.Edge{U: 1, V: 0}) || ef.Edges[1] != (graph.Edge{U: 0, V: 1}) {
		t.Fatalf("first edges %v, want [{1 0} {0 1}]", ef.Edges[:2])
	}
	// Mirrored: the edge set is symmetric.
	set := make(map[graph.Edge]bool, len(ef.Edges))
	for _, e := range ef.Edges {
		set[e] = true
	}
	for _, e := range ef.Edges {
		if !set[graph.Edge{U: e.V, V: e.U}] {
			t.Fatalf("edge %v has no mirror", e)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gz := writeFile(t, "lux.mtx.gz", gzipBytes(t, raw))
	checkSharesConcatenate(t, ef.Edges, "mtx", path, "mtx.gz", gz)
}

// TestReadTraps covers each trap of the shared graphs' README on small
// files: gzip, '#' headers, tabs, CRLF, self-loops and sparse 64-bit ids for
// SNAP text; 1-based indices, one stored triangle, '%' comments and the size
// line for Matrix Market.
func TestReadTraps(t *testing.T) {
	snap := "# Directed graph: x.txt\r\n# Nodes: 4 Edges: 5\r\n# FromNodeId\tToNodeId\r\n" +
		"0\t0\r\n0\t9223372036854775807\r\n5\t3\r\n\r\n3 \t 5\r\n4000000000000\t0\r\n"
	mtx := "%%MatrixMarket matrix coordinate pattern symmetric\n% comment\n%\n\n 3 3 4 \n2 1\n3 3\n% between\n3 1\n1 2\n"
	for _, c := range []struct {
		data     string
		names    []string
		want     []graph.Edge
		directed bool
		vertices int64
	}{
		{snap, []string{"g.txt", "g.txt.gz", "g.edges", "g.el"}, []graph.Edge{{U: 0, V: 0}, {U: 0, V: math.MaxInt64}, {U: 5, V: 3}, {U: 3, V: 5}, {U: 4000000000000, V: 0}}, true, math.MaxInt64},
		{mtx, []string{"g.mtx", "g.mtx.gz"}, []graph.Edge{{U: 1, V: 0}, {U: 0, V: 1}, {U: 2, V: 2}, {U: 2, V: 0}, {U: 0, V: 2}, {U: 0, V: 1}, {U: 1, V: 0}}, false, 3},
	} {
		for _, name := range c.names {
			data := []byte(c.data)
			if strings.HasSuffix(name, ".gz") {
				data = gzipBytes(t, data)
			}
			path := writeFile(t, name, data)
			ef, err := ReadEdges(path, "")
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !slices.Equal(ef.Edges, c.want) || ef.Directed != c.directed || ef.Vertices != c.vertices {
				t.Errorf("%s: %v, directed %v, vertices %d; want %v, %v, %d", name, ef.Edges, ef.Directed, ef.Vertices, c.want, c.directed, c.vertices)
			}
			for size := 1; size <= 6; size++ {
				if got := readAllRanks(t, path, "", size); !slices.Equal(got, c.want) {
					t.Errorf("%s, %d ranks: %v, want %v", name, size, got, c.want)
				}
			}
		}
	}

	general := "%%MatrixMarket matrix coordinate real general\r\n2 5 3\r\n1 5 0.5\r\n2 2 -1e3\r\n1 1 7\r\n"
	ef, err := ReadEdges(writeFile(t, "g.mtx", []byte(general)), "")
	if err != nil {
		t.Fatal(err)
	}
	if wantG := []graph.Edge{{U: 0, V: 4}, {U: 1, V: 1}, {U: 0, V: 0}}; !slices.Equal(ef.Edges, wantG) || !ef.Directed || ef.Vertices != 5 {
		t.Errorf("general: %v, directed %v, vertices %d; want %v, true, 5", ef.Edges, ef.Directed, ef.Vertices, wantG)
	}
	integer := "%%matrixmarket MATRIX Coordinate INTEGER General\n2 2 2\n1 2 -3\n2 1 +4\n"
	if ef, err := ReadEdges(writeFile(t, "g.mtx", []byte(integer)), ""); err != nil || !slices.Equal(ef.Edges, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 0}}) {
		t.Errorf("integer: %v, %v", ef, err)
	}
	wel := "# weighted\n1 2 0.5\n3\t4\t-2e-3 # c\n5 6 7\n"
	if ef, err := ReadEdges(writeFile(t, "g.wel", []byte(wel)), ""); err != nil || !slices.Equal(ef.Edges, []graph.Edge{{U: 1, V: 2}, {U: 3, V: 4}, {U: 5, V: 6}}) {
		t.Errorf("wel: %v, %v", ef, err)
	}
	// The last line may lack its newline.
	if ef, err := ReadEdges(writeFile(t, "g.txt", []byte("1 2\n3 4")), ""); err != nil || !slices.Equal(ef.Edges, []graph.Edge{{U: 1, V: 2}, {U: 3, V: 4}}) {
		t.Errorf("no final newline: %v, %v", ef, err)
	}
}

// TestReadEmpty pins down the choice: a text file without edges is a valid
// empty graph, a Matrix Market file needs its banner and size line.
func TestReadEmpty(t *testing.T) {
	for _, c := range []struct{ name, data string }{
		{"e.txt", ""},
		{"e.txt", "# only\n# comments\r\n\n   \n"},
		{"e.el", "\n"},
		{"e.wel", "#\n"},
		{"e.mtx", "%%MatrixMarket matrix coordinate pattern general\n% none\n0 0 0\n"},
		{"e.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n5 5 0"},
	} {
		for _, gz := range []bool{false, true} {
			data, name := []byte(c.data), c.name
			if gz {
				data, name = gzipBytes(t, data), name+".gz"
			}
			path := writeFile(t, name, data)
			ef, err := ReadEdges(path, "")
			if err != nil || len(ef.Edges) != 0 {
				t.Errorf("%s %q: %v, %v; want no edges", name, c.data, ef, err)
				continue
			}
			if got := readAllRanks(t, path, "", 3); len(got) != 0 {
				t.Errorf("%s %q, 3 ranks: %v", name, c.data, got)
			}
		}
	}
}

// malformedCases are invalid inputs with the line and the text their error
// must name.
var malformedCases = []struct {
	name, data string
	line       int64
	msg        string
}{
	{"one field", "1 2\n3\n", 2, "want 2 columns (u v), got 1"},
	{"one field before comment", "1 2\n3 # 4\n", 2, "got 1"},
	{"three fields", "# h\n1 2 3\n", 2, "want 2 columns (u v), got 3"},
	{"non-numeric", "1 2\n3 x\n", 2, `bad vertex id "x"`},
	{"hex", "0x1 2\n", 1, `bad vertex id "0x1"`},
	{"plus sign", "+1 2\n", 1, `bad vertex id "+1"`},
	{"float id", "1.0 2\n", 1, `bad vertex id "1.0"`},
	{"negative", "1 2\r\n-3 4\r\n", 2, `negative vertex id "-3"`},
	{"2^63", "1 9223372036854775808\n", 1, `vertex id "9223372036854775808" out of range`},
	{"huge", "\n\n99999999999999999999999 1\n", 3, "out of range"},
	{"vertical tab", "1\v2\n", 1, "bad vertex id"},
	{"nul", "1 2\x00\n", 1, "bad vertex id"},
	{"weight missing.wel", "1 2 3\n1 2\n", 2, "want 3 columns (u v weight), got 2"},
	{"weight bad.wel", "1 2 abc\n", 1, `bad weight "abc"`},
	{"weight nan.wel", "1 2 NaN\n", 1, "not a finite number"},
	{"weight overflow.wel", "1 2 1e999\n", 1, "bad weight"},
	{"weight extra.wel", "1 2 3 4\n", 1, "got 4"},
	{"empty.mtx", "", 1, "missing the Matrix Market banner"},
	{"no banner.mtx", "3 3 1\n1 1\n", 1, "bad banner"},
	{"bad banner.mtx", "%%MatrixMarket matrix coordinate pattern\n1 1 0\n", 1, "bad banner"},
	{"array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, `unsupported Matrix Market format "array"`},
	{"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, `unsupported Matrix Market field "complex"`},
	{"hermitian.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1, `unsupported Matrix Market symmetry "hermitian"`},
	{"skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", 1, "unsupported Matrix Market symmetry"},
	{"vector.mtx", "%%MatrixMarket vector coordinate real general\n2 1\n", 1, "unsupported Matrix Market object"},
	{"no size line.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n", 3, "missing the size line"},
	{"short size line.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3\n1 1\n", 3, "bad size line"},
	{"long size line.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1 1\n1 1\n", 2, "bad size line"},
	{"negative size.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 -3 1\n1 1\n", 2, "negative size"},
	{"non-square symmetric.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 4 1\n1 1\n", 2, "must be square"},
	{"one field.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n2\n", 4, "want 2 fields (row col) for a pattern matrix, got 1"},
	{"three fields.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3, "got 3"},
	{"no value.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1\n", 3, "want 3 fields (row col value) for a real matrix, got 2"},
	{"bad value.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 x\n", 3, `bad real value "x"`},
	{"bad integer.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3, `bad integer value "1.5"`},
	{"index 0.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n0 2\n", 4, "index 0"},
	{"column 0.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n1 0\n", 3, "index 0"},
	{"row too big.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n4 1\n", 3, "row index 4 > 3 rows"},
	{"column too big.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 5\n", 3, "column index 5 > 4 columns"},
	{"negative index.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n-1 1\n", 3, "negative row index"},
	{"bad index.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 a\n", 3, `bad column index "a"`},
	{"too few.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 3\n1 1\n2 2\n", 3, "announces 3 entries but the file has 2"},
	{"too many.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n2 2\n% c\n3 3\n1 2\n", 6, "more entries than the 2 announced by the size line (line 2)"},
}

func TestReadMalformed(t *testing.T) {
	for _, c := range malformedCases {
		for _, gz := range []bool{false, true} {
			name := c.name
			if !strings.Contains(name, ".") {
				name += ".txt"
			}
			data := []byte(c.data)
			if gz {
				name += ".gz"
				data = gzipBytes(t, data)
			}
			path := writeFile(t, name, data)
			_, err := ReadEdges(path, "")
			var ele *EdgeListError
			if !errors.As(err, &ele) {
				t.Errorf("%s: error %v is not an *EdgeListError", name, err)
				continue
			}
			prefix := fmt.Sprintf("%s:%d: ", path, c.line)
			if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: error %q; want %q…%q", name, err, prefix, c.msg)
			}
			// Split between ranks, some rank reports the same error.
			for size := 2; size <= 4; size++ {
				var errs []string
				for r := range size {
					if _, err := ReadEdgesRange(path, "", r, size); err != nil {
						errs = append(errs, err.Error())
					}
				}
				if !slices.Contains(errs, err.Error()) {
					t.Errorf("%s, %d ranks: errors %q do not include %q", name, size, errs, err)
				}
			}
		}
	}
}

func TestReadLongLine(t *testing.T) {
	long := "1 2\n# " + strings.Repeat("x", edgeReadBufSize) + "\n3 4\n"
	path := writeFile(t, "long.txt", []byte(long))
	_, err := ReadEdges(path, "")
	if err == nil || !strings.HasPrefix(err.Error(), path+":2: line longer than") {
		t.Fatalf("error %v, want a long line at line 2", err)
	}
	// A line just short enough is fine.
	ok := "1 2\n# " + strings.Repeat("x", edgeReadBufSize-3) + "\n3 4\n"
	if ef, err := ReadEdges(writeFile(t, "ok.txt", []byte(ok)), ""); err != nil || len(ef.Edges) != 2 {
		t.Fatalf("%v, %v", ef, err)
	}
}

func TestReadTruncatedGzip(t *testing.T) {
	var sb strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&sb, "%d\t%d\r\n", i, i*7%1000)
	}
	z := gzipBytes(t, []byte(sb.String()))
	for _, cut := range []int{len(z) / 2, len(z) - 4, 5} {
		path := writeFile(t, "cut.txt.gz", z[:cut])
		_, err := ReadEdges(path, "")
		if err == nil || !strings.HasPrefix(err.Error(), path+":") || !errors.Is(err, io.ErrUnexpectedEOF) && cut > 10 {
			t.Errorf("cut at %d: error %v; want one naming %s and wrapping io.ErrUnexpectedEOF", cut, err, path)
		}
		// Every rank reads the whole stream and fails.
		for r := range 3 {
			if _, err := ReadEdgesRange(path, "", r, 3); err == nil || !strings.HasPrefix(err.Error(), path+":") {
				t.Errorf("cut at %d, rank %d of 3: error %v, want one naming the file", cut, r, err)
			}
		}
	}
	path := writeFile(t, "not.txt.gz", []byte("1 2\n"))
	if _, err := ReadEdges(path, ""); err == nil || !strings.HasPrefix(err.Error(), path+":1: not a valid gzip stream") {
		t.Errorf("plain text named .gz: %v", err)
	}
	path = writeFile(t, "hidden.txt", z)
	if _, err := ReadEdges(path, ""); err == nil || !strings.Contains(err.Error(), "gzip-compressed") {
		t.Errorf("gzip named .txt: %v", err)
	}
}

func TestReadErrorsOpen(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadEdges(filepath.Join(dir, "missing.txt"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := ReadEdges(dir+"/x.unknown", ""); err == nil {
		t.Error("unknown extension: no error")
	}
	if _, err := ReadEdgesRange(writeFile(t, "a.txt", nil), "", 3, 3); err == nil {
		t.Error("rank 3 of 3: no error")
	}
}

// TestReadMatchesEdgeListFile checks that .el and .bel files written by the
// edge-list writer read back as the tuples written, whole and split.
func TestReadMatchesEdgeListFile(t *testing.T) {
	es := sampleEdges(5000)
	for _, ext := range []string{"el", "bel"} {
		path := filepath.Join(t.TempDir(), "g."+ext)
		if err := WriteEdgeList(path, EdgeListAuto, func(yield func([]graph.Edge) error) error { return yield(es) }); err != nil {
			t.Fatal(err)
		}
		want := es
		ef, err := ReadEdges(path, "")
		if err != nil || !slices.Equal(ef.Edges, want) {
			t.Fatalf("%s: ReadEdges differs from the tuples written: %v", ext, err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		gz := writeFile(t, "g."+ext+".gz", gzipBytes(t, raw))
		for _, size := range []int{1, 2, 3, 7} {
			if got := readAllRanks(t, path, "", size); !slices.Equal(got, want) {
				t.Errorf("%s, %d ranks: shares differ", ext, size)
			}
			if got := readAllRanks(t, gz, "", size); !slices.Equal(got, want) {
				t.Errorf("%s.gz, %d ranks: shares differ", ext, size)
			}
		}
	}
	// A .bel whose count disagrees with its size fails on every rank.
	bin := append(binaryHeader(3), make([]byte, 16*2)...)
	path := writeFile(t, "short.bel", bin)
	for r := range 2 {
		var ele *EdgeListError
		if _, err := ReadEdgesRange(path, "", r, 2); !errors.As(err, &ele) || !strings.Contains(err.Error(), "count mismatch") {
			t.Errorf("short .bel, rank %d: %v", r, err)
		}
	}
	bin = append(binaryHeader(2), make([]byte, 16*2)...)
	bin[16+16+7] = 0x80 // second tuple's u negative
	path = writeFile(t, "neg.bel", bin)
	if _, err := ReadEdges(path, ""); err == nil || !strings.Contains(err.Error(), "offset 32: tuple 1") {
		t.Errorf("negative .bel: %v", err)
	}
	if _, err := ReadEdgesRange(path, "", 1, 2); err == nil || !strings.Contains(err.Error(), "offset 32: tuple 0") {
		t.Errorf("negative .bel, rank 1 of 2: %v", err)
	}
}

// randomEdgeText writes edges in a random layout of format: comments,
// blank lines, CRLF, tabs, mixed spacing, and for mtx a random header.
func randomEdgeText(rng *rand.Rand, format EdgeFormat, m int) ([]byte, []graph.Edge) {
	var b []byte
	var want []graph.Edge
	sep := func() {
		for k := 1 + rng.IntN(3); k > 0; k-- {
			b = append(b, " \t"[rng.IntN(2)])
		}
	}
	eol := func() {
		if rng.IntN(3) == 0 {
			b = append(b, '\r')
		}
		b = append(b, '\n')
	}
	comment := byte('#')
	var symmetric bool
	n := int64(1 + rng.IntN(50))
	if format == EdgeFormatMTX {
		comment = '%'
		symmetric = rng.IntN(2) == 0
		sym := "general"
		if symmetric {
			sym = "symmetric"
		}
		b = fmt.Appendf(b, "%%%%MatrixMarket matrix coordinate pattern %s\n%% c\n", sym)
		b = fmt.Appendf(b, "%d %d %d", n, n, m)
		eol()
	}
	for i := 0; i < m; {
		switch rng.IntN(8) {
		case 0:
			b = append(b, comment)
			b = append(b, " note"...)
			eol()
			continue
		case 1:
			if rng.IntN(2) == 0 {
				sep()
			}
			eol()
			continue
		}
		var u, v int64
		if format == EdgeFormatMTX {
			u, v = rng.Int64N(n), rng.Int64N(n)
		} else {
			u, v = rng.Int64N(1<<uint(rng.IntN(63))), rng.Int64N(100)
		}
		if rng.IntN(4) == 0 {
			sep()
		}
		if format == EdgeFormatMTX {
			b = fmt.Appendf(b, "%d", u+1)
			sep()
			b = fmt.Appendf(b, "%d", v+1)
		} else {
			b = fmt.Appendf(b, "%d", u)
			sep()
			b = fmt.Appendf(b, "%d", v)
		}
		if format == EdgeFormatWEL {
			sep()
			b = fmt.Appendf(b, "%g", rng.NormFloat64())
		}
		if rng.IntN(4) == 0 {
			sep()
		}
		if format != EdgeFormatMTX && rng.IntN(6) == 0 {
			b = append(b, "# tail"...)
		}
		want = append(want, graph.Edge{U: u, V: v})
		if symmetric && u != v {
			want = append(want, graph.Edge{U: v, V: u})
		}
		i++
		if i < m || rng.IntN(2) == 0 {
			eol()
		}
	}
	return b, want
}

// TestReadSplitRandom reads random files of every text format with tiny
// buffers (so lines straddle buffer refills) on up to 7 ranks, by byte
// range and by gzip line share.
func TestReadSplitRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 160 {
		format := []EdgeFormat{EdgeFormatSNAP, EdgeFormatEL, EdgeFormatWEL, EdgeFormatMTX}[iter%4]
		data, want := randomEdgeText(rng, format, rng.IntN(60))
		z := gzipBytes(t, data)
		for _, bufSize := range []int{64, 97, 4096} {
			for size := 1; size <= 7; size++ {
				for _, gz := range []bool{false, true} {
					in := data
					if gz {
						in = z
					}
					src := memSource("rand", in, format, gz, bufSize)
					var got []graph.Edge
					for r := range size {
						p, err := src.read(r, size)
						if err != nil {
							t.Fatalf("iter %d %s buf %d gz %v rank %d/%d: %v\n%s", iter, format, bufSize, gz, r, size, err, data)
						}
						got = append(got, p.edges...)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("iter %d %s buf %d gz %v, %d ranks: got %v, want %v\n%q", iter, format, bufSize, gz, size, got, want, data)
					}
				}
			}
		}
	}
}
