package edgelist

import (
	"encoding/binary"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph"

	"github.com/graphrun/graphrun/internal/testgraph"
)

// edgeSet is the set of edges without self-loops, both directions when
// undirected.
func edgeSet(es []graph.Edge, undirected bool) map[graph.Edge]bool {
	set := map[graph.Edge]bool{}
	for _, e := range es {
		if e.U == e.V {
			continue
		}
		set[e] = true
		if undirected {
			set[graph.Edge{U: e.V, V: e.U}] = true
		}
	}
	return set
}

// bfsLevels is a plain serial BFS over the undirected view of es.
func bfsLevels(es []graph.Edge, root int64) map[int64]int32 {
	adj := map[int64][]int64{}
	for _, e := range es {
		adj[e.U] = append(adj[e.U], e.V)
		adj[e.V] = append(adj[e.V], e.U)
	}
	return testgraph.Levels(adj, root)
}

// TestGapbsSerialized reads the .sg and .wsg files gapbs's converter made
// from testdata/gapbs/small.el (see the README there): their edges are the
// text's without self-loops and duplicates (both directions for the
// symmetrized ones), their BFS levels the text's, whole and split over
// ranks.
func TestGapbsSerialized(t *testing.T) {
	dir := filepath.Join("testdata", "gapbs")
	text, err := ReadEdges(filepath.Join(dir, "small.el"), "")
	if err != nil {
		t.Fatal(err)
	}
	root := text.Edges[0].U
	want := bfsLevels(text.Edges, root)
	for _, c := range []struct {
		file     string
		directed bool
	}{{"small.sg", false}, {"small-directed.sg", true}, {"small.wsg", false}} {
		path := filepath.Join(dir, c.file)
		ef, err := ReadEdges(path, "")
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if ef.Directed != c.directed {
			t.Errorf("%s: directed %v", c.file, ef.Directed)
		}
		got := edgeSet(ef.Edges, false)
		if exp := edgeSet(text.Edges, !c.directed); len(got) != len(ef.Edges) || !maps.Equal(got, exp) {
			t.Errorf("%s: %d edges (%d distinct), want the text's %d", c.file, len(ef.Edges), len(got), len(exp))
		}
		if lv := bfsLevels(ef.Edges, root); !maps.Equal(lv, want) {
			t.Errorf("%s: BFS levels differ from the text's", c.file)
		}
		for _, size := range []int{2, 3, 5} {
			if shares := readAllRanks(t, path, "", size); !slices.Equal(shares, ef.Edges) {
				t.Errorf("%s, %d ranks: shares differ", c.file, size)
			}
		}
	}
}

// TestGapbsSerializedEntries reads the .sg files as an undirected view
// does (ReadEntries): an undirected graph gives each edge once, as (u, v)
// with u ≤ v, and says it is symmetric; a directed one gives every
// out-entry, as ReadEdges does.
func TestGapbsSerializedEntries(t *testing.T) {
	dir := filepath.Join("testdata", "gapbs")
	for _, c := range []struct {
		file     string
		directed bool
	}{{"small.sg", false}, {"small-directed.sg", true}, {"small.wsg", false}} {
		path := filepath.Join(dir, c.file)
		all, err := ReadEdges(path, "")
		if err != nil {
			t.Fatal(err)
		}
		ef, err := ReadEntries(path, "")
		if err != nil {
			t.Fatal(err)
		}
		if c.directed {
			if ef.Symmetric || !slices.Equal(ef.Edges, all.Edges) {
				t.Errorf("%s: symmetric %v, %d entries of %d", c.file, ef.Symmetric, len(ef.Edges), len(all.Edges))
			}
			continue
		}
		if !ef.Symmetric || ef.Directed || 2*len(ef.Edges) != len(all.Edges) {
			t.Errorf("%s: symmetric %v, directed %v, %d entries of %d", c.file, ef.Symmetric, ef.Directed, len(ef.Edges), len(all.Edges))
		}
		for _, e := range ef.Edges {
			if e.U > e.V {
				t.Fatalf("%s: entry %v has u > v", c.file, e)
			}
		}
		if got := edgeSet(ef.Edges, true); !maps.Equal(got, edgeSet(all.Edges, false)) {
			t.Errorf("%s: the entries and their mirrors are not the graph's edges", c.file)
		}
	}
}

// TestGapbsSerializedErrors checks damaged .sg files: each is an
// *EdgeListError on some rank, never a panic.
func TestGapbsSerializedErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "gapbs", "small.sg"))
	if err != nil {
		t.Fatal(err)
	}
	bad := func(mod func(b []byte) []byte) []byte { return mod(slices.Clone(data)) }
	for name, b := range map[string][]byte{
		"short":         data[:10],
		"flag":          bad(func(b []byte) []byte { b[0] = 7; return b }),
		"cut":           data[:len(data)-4],
		"offset":        bad(func(b []byte) []byte { b[sgHeaderSize+8*3] = 0xff; return b }),
		"neighbour":     bad(func(b []byte) []byte { b[len(b)-1] = 0x7f; return b }),
		"negative":      bad(func(b []byte) []byte { b[1+7] = 0x80; return b }),
		"not the count": bad(func(b []byte) []byte { b[9] = 47; return b }),
	} {
		src := memSource(name, b, EdgeFormatSG, false, edgeReadBufSize)
		for _, size := range []int{1, 2} {
			// Each rank checks its slice of the offsets: some rank of the
			// job fails (and so the job), never one with another error.
			failed := 0
			for rank := range size {
				_, err := src.read(rank, size)
				var ele *EdgeListError
				if err != nil && !errors.As(err, &ele) {
					t.Errorf("%s, rank %d of %d: %v", name, rank, size, err)
				}
				if err != nil {
					failed++
				}
			}
			if failed == 0 {
				t.Errorf("%s: no rank of %d fails", name, size)
			}
		}
	}
}

func FuzzReadSG(f *testing.F) {
	for _, name := range []string{"small.sg", "small-directed.sg"} {
		data, err := os.ReadFile(filepath.Join("testdata", "gapbs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, false)
	}
	f.Add(make([]byte, sgHeaderSize+8), true)
	f.Fuzz(func(t *testing.T, data []byte, weighted bool) {
		format := EdgeFormatSG
		if weighted {
			format = EdgeFormatWSG
		}
		var whole []graph.Edge
		for _, size := range []int{1, 3} {
			var got []graph.Edge
			for r := range size {
				p, err := memSource("fuzz", data, format, false, edgeReadBufSize).read(r, size)
				if err != nil {
					var ele *EdgeListError
					if !errors.As(err, &ele) {
						t.Fatalf("error %v is not an *EdgeListError", err)
					}
					return
				}
				got = append(got, p.edges...)
			}
			if size == 1 {
				whole = got
			} else if !slices.Equal(got, whole) {
				t.Fatalf("3 ranks read %v, one rank %v", got, whole)
			}
		}
		// An undirected view reads an undirected graph's entries with
		// u ≤ v, a directed graph's all.
		src := memSource("fuzz", data, format, false, edgeReadBufSize)
		src.entries = true
		p, err := src.read(0, 1)
		if err != nil {
			t.Fatalf("entries: %v, where the edges read", err)
		}
		want := whole
		if data[0] == 0 {
			want = slices.DeleteFunc(slices.Clone(whole), func(e graph.Edge) bool { return e.U > e.V })
		}
		if !slices.Equal(p.edges, want) {
			t.Fatalf("entries %v, want %v", p.edges, want)
		}
		if !weighted {
			return
		}
		// A weighted read gives the same edges, each with a weight ≥ 0,
		// or refuses a negative one.
		src = memSource("fuzz", data, format, false, edgeReadBufSize)
		src.weighted = true
		if p, err = src.read(0, 1); err != nil {
			if !strings.Contains(err.Error(), "negative weight") {
				t.Fatalf("weighted: %v, where the edges read", err)
			}
			return
		}
		if !slices.Equal(p.edges, whole) || len(p.weights) != len(whole) || slices.ContainsFunc(p.weights, func(w float32) bool { return w < 0 }) {
			t.Fatalf("weighted: %v %v, want %v", p.edges, p.weights, whole)
		}
	})
}

// TestSparseSGReadsItsShareOfOffsets: a sparse .sg file claiming 2^27
// vertices holds 1 GiB of offsets (all but the last vertex without
// entries); a rank of 4 reads its share of the graph allocating a bounded
// amount, never the whole offsets, and finds the edges of the last vertex.
func TestSparseSGReadsItsShareOfOffsets(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1 GiB of a sparse file")
	}
	const n, e = int64(1) << 27, int64(8)
	path := filepath.Join(t.TempDir(), "sparse.sg")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	size := sgHeaderSize + 8*(n+1) + 4*e
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	h := make([]byte, sgHeaderSize)
	le.PutUint64(h[1:], uint64(e))
	le.PutUint64(h[9:], uint64(n))
	tail := make([]byte, 8+4*e) // the last offset, then the entries: vertex n-1's neighbours 0..e-1
	le.PutUint64(tail, uint64(e))
	for i := range e {
		le.PutUint32(tail[8+4*i:], uint32(i))
	}
	_, err1 := f.WriteAt(h, 0)
	_, err2 := f.WriteAt(tail, sgHeaderSize+8*n)
	if err := errors.Join(err1, err2, f.Close()); err != nil {
		t.Fatal(err)
	}
	for _, rank := range []int{0, 3} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		edges, err := ReadEdgesRange(path, EdgeFormatSG, rank, 4)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if len(edges) != int(e/4) || edges[0].U != n-1 {
			t.Errorf("rank %d: edges %v, want %d of vertex %d", rank, edges, e/4, n-1)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("rank %d of 4 allocated %d MiB reading a share of a file with %d MiB of offsets", rank, grew>>20, 8*n>>20)
		}
	}
}
