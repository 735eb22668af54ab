// Tests of FileShare: a rank's share of a file read in chunks, twice, gives
// ReadEdgesRange's edges, in chunks no larger than the bound, and stops when
// its context is cancelled.

package edgelist

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/graph"
)

// scanAll reads a share once, checking the chunk bound, and returns its
// edges.
func scanAll(t *testing.T, s graph.EdgeShare, maxChunk int) []graph.Edge {
	t.Helper()
	var got []graph.Edge
	err := s.Scan(context.Background(), func(es []graph.Edge) error {
		if len(es) == 0 || len(es) > maxChunk {
			return fmt.Errorf("chunk of %d edges (want 1..%d)", len(es), maxChunk)
		}
		got = append(got, es...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestFileShareMatchesReadEdgesRange streams random files of every format,
// plain and gzipped, on 1 to 5 ranks, twice (the second pass starts from
// what the first learnt): each pass is ReadEdgesRange's share.
func TestFileShareMatchesReadEdgesRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	for iter := range 24 {
		format := []EdgeFormat{EdgeFormatSNAP, EdgeFormatEL, EdgeFormatWEL, EdgeFormatMTX}[iter%4]
		data, _ := randomEdgeText(rng, format, rng.IntN(400))
		for _, gz := range []bool{false, true} {
			ext := string(format)
			if format == EdgeFormatSNAP {
				ext = "txt"
			}
			name := filepath.Join(dir, fmt.Sprintf("g%d.%s", iter, ext))
			in := data
			if gz {
				name += ".gz"
				in = gzipBytes(t, data)
			}
			if err := os.WriteFile(name, in, 0o644); err != nil {
				t.Fatal(err)
			}
			for size := 1; size <= 5; size++ {
				for r := range size {
					want, err := ReadEdgesRange(name, "", r, size)
					if err != nil {
						t.Fatal(err)
					}
					s, err := NewFileShare(name, "", r, size)
					if err != nil {
						t.Fatal(err)
					}
					for pass := range 2 {
						if got := scanAll(t, s, emitEdges+decodeBatch); !slices.Equal(got, want) {
							t.Fatalf("%s rank %d/%d pass %d: %d edges, ReadEdgesRange %d", name, r, size, pass, len(got), len(want))
						}
					}
				}
			}
		}
	}
}

// TestFileShareChunks streams a file of many short lines, and a .bel file:
// every chunk is at most emitEdges (plus a .bel batch), and all edges come
// through in order.
func TestFileShareChunks(t *testing.T) {
	const m = 3*emitEdges + 123
	edges := make([]graph.Edge, m)
	var text []byte
	for i := range edges {
		edges[i] = graph.Edge{U: int64(i % 10), V: int64(i % 7)}
		text = fmt.Appendf(text, "%d %d\n", i%10, i%7)
	}
	txt := writeFile(t, "short.txt", text)
	bel := filepath.Join(t.TempDir(), "g.bel")
	if err := WriteEdgeList(bel, "", func(yield func([]graph.Edge) error) error { return yield(edges) }); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		bound int
	}{{txt, emitEdges}, {bel, emitEdges + decodeBatch}} {
		for _, size := range []int{1, 3} {
			var all []graph.Edge
			for r := range size {
				s, err := NewFileShare(c.path, "", r, size)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, scanAll(t, s, c.bound)...)
			}
			if !slices.Equal(all, edges) {
				t.Fatalf("%s on %d ranks: the shares are not the file", c.path, size)
			}
		}
	}
}

// TestFileShareCancel checks that a done context stops a streamed read:
// before it starts, and between two chunks (emit cancels; Scan returns
// ctx's error without handing out another chunk).
func TestFileShareCancel(t *testing.T) {
	var text []byte
	for i := range 5 * emitEdges {
		text = fmt.Appendf(text, "%d %d\n", i, i+1)
	}
	for _, name := range []string{"c.txt", "c.txt.gz"} {
		data := text
		if strings.HasSuffix(name, ".gz") {
			data = gzipBytes(t, text)
		}
		path := writeFile(t, name, data)
		for _, size := range []int{1, 2} {
			s, err := NewFileShare(path, "", 0, size)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := s.Scan(ctx, func([]graph.Edge) error { return nil }); !errors.Is(err, context.Canceled) {
				t.Errorf("%s/%d: a cancelled scan returned %v", name, size, err)
			}
			ctx, cancel = context.WithCancel(context.Background())
			calls := 0
			err = s.Scan(ctx, func([]graph.Edge) error {
				calls++
				cancel()
				return nil
			})
			if !errors.Is(err, context.Canceled) || calls != 1 {
				t.Errorf("%s/%d: cancelled in the first chunk: %d chunks, %v", name, size, calls, err)
			}
		}
	}
}
