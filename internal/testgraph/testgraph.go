// Package testgraph is what graphrun's tests share about test graphs: the one
// locator of the real graphs kept in the repository's testdata folder (and
// their NetworkX reference answers), the small golden graphs kept in this package's testdata with
// reference outputs made by an independent tool (gapbs's test/reference
// style; testdata/make_refs.py), and the parsers of those reference files.
//
// The golden graphs, each with a G.bfs.txt and a G.pagerank.tsv:
//   - small-undirected.el: a path, a triangle, a bridge, duplicates in both
//     directions, self-loops and a separate component;
//   - kron8.el: the Graph500 Kronecker graph of scale 8 and edge factor 8,
//     as graphrun's generate command writes it;
//   - web-directed.el: a directed graph with sparse ids, hubs, dangling
//     vertices, a self-loop and a duplicate (seeded: testdata/make_graphs.py);
//   - grid-7x5.mtx: a 7×5 grid as Matrix Market, symmetric, one triangle
//     stored, 1-based ids.
package testgraph

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Golden lists the golden graphs of testdata, in a fixed order.
func Golden() []string {
	return []string{"small-undirected.el", "kron8.el", "web-directed.el", "grid-7x5.mtx"}
}

// RealData returns the folder of the real graphs that ship with the
// repository (testdata at the module root: Slashdot and the Luxembourg road
// network, with their NetworkX references and their sources in its README).
func RealData() string {
	return filepath.Join(moduleRoot(), "testdata")
}

// RealFile returns the path of one real graph or reference file, failing the
// test when the repository lacks it.
func RealFile(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(RealData(), name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("real test graph %s missing from the repository: %v", name, err)
	}
	return p
}

// GoldenFile returns the absolute path of a file in this package's testdata
// (a golden graph or one of its references).
func GoldenFile(name string) string {
	return filepath.Join(packageDir(), "testdata", name)
}

// packageDir is this source file's folder, found at run time so that tests
// of any package reach the golden graphs.
func packageDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Dir(file)
}

// moduleRoot is the folder holding go.mod, two levels above this package.
func moduleRoot() string {
	return filepath.Join(packageDir(), "..", "..")
}

// BFSReference is a *.bfs.txt reference: a BFS over the undirected view of
// a graph file from Source (the file's own id).
type BFSReference struct {
	Source     int64
	Reached    int64   // vertices reached, the source included
	Depth      int     // eccentricity of the source
	Vertices   int64   // vertices that occur in an edge
	LevelSizes []int64 // vertices per level, from the source's level 0
}

// ReadBFSReference parses a *.bfs.txt file.
func ReadBFSReference(path string) (BFSReference, error) {
	var ref BFSReference
	f, err := os.Open(path)
	if err != nil {
		return ref, err
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		key, value, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		seen[key] = true
		first, _, _ := strings.Cut(value, " ")
		switch key {
		case "source":
			ref.Source, err = strconv.ParseInt(first, 10, 64)
		case "reachable_vertices_including_source":
			ref.Reached, err = strconv.ParseInt(first, 10, 64)
		case "max_depth(eccentricity_of_source)":
			ref.Depth, err = strconv.Atoi(first)
		case "total_nodes_in_graph":
			ref.Vertices, err = strconv.ParseInt(first, 10, 64)
		case "level_sizes":
			for _, s := range strings.Split(first, ",") {
				n, perr := strconv.ParseInt(s, 10, 64)
				if perr != nil {
					err = perr
					break
				}
				ref.LevelSizes = append(ref.LevelSizes, n)
			}
		}
		if err != nil {
			return ref, fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return ref, fmt.Errorf("%s: %w", path, err)
	}
	for _, key := range []string{"source", "reachable_vertices_including_source", "level_sizes"} {
		if !seen[key] {
			return ref, fmt.Errorf("%s: no %s line", path, key)
		}
	}
	return ref, nil
}

// Score is one vertex's reference PageRank.
type Score struct {
	ID    int64
	Score float64
}

// ReadPageRank parses a reference of "id score" lines (tab or space
// separated, '#' comments), taking the id and the score from the given
// columns (counting from 0): a golden *.pagerank.tsv (every vertex; columns
// 0 and 1) or a shared *.pagerank_top20.tsv (rank, vertex, NetworkX's score,
// converged score; columns 1 and 3); a ".gz" file is gunzipped.
func ReadPageRank(path string, idColumn, scoreColumn int) ([]Score, error) {
	f, err := openReference(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Score
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) <= idColumn || len(fields) <= scoreColumn {
			return nil, fmt.Errorf("%s:%d: %d fields, want more than %d", path, line, len(fields), max(idColumn, scoreColumn))
		}
		id, err := strconv.ParseInt(fields[idColumn], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		score, err := strconv.ParseFloat(fields[scoreColumn], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, Score{ID: id, Score: score})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// openReference opens a reference file, gunzipping a ".gz" one.
func openReference(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return f, err
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}, nil
}

// NetworkXIterations reads the "# networkx_iterations=K" header of a
// PageRank reference (make_refs.py): the iterations NetworkX's pagerank ran
// before its L1 change fell below N·tol.
func NetworkXIterations(path string) (int, error) {
	f, err := openReference(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(text, "#") {
			break
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(text[1:]), "networkx_iterations=")
		if !ok {
			continue
		}
		k, err := strconv.Atoi(strings.Fields(rest + " ")[0])
		if err != nil {
			return 0, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		return k, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return 0, fmt.Errorf("%s: no networkx_iterations header", path)
}

// Levels is the oracle of a search from root over the adjacency adj (by
// the file's ids; the caller puts in the directions it searches along): a
// plain queue BFS returning the level of every vertex reached.
func Levels(adj map[int64][]int64, root int64) map[int64]int32 {
	level := map[int64]int32{root: 0}
	for queue := []int64{root}; len(queue) > 0; queue = queue[1:] {
		for _, v := range adj[queue[0]] {
			if _, ok := level[v]; !ok {
				level[v] = level[queue[0]] + 1
				queue = append(queue, v)
			}
		}
	}
	return level
}
