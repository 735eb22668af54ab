package testgraph

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenReferencesAreConsistent checks every reference against itself:
// level sizes add up to the vertices reached, the source's level holds one
// vertex, the scores cover every vertex and sum to 1.
func TestGoldenReferencesAreConsistent(t *testing.T) {
	for _, name := range Golden() {
		if _, err := os.Stat(GoldenFile(name)); err != nil {
			t.Fatal(err)
		}
		bfs, err := ReadBFSReference(GoldenFile(name + ".bfs.txt"))
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, s := range bfs.LevelSizes {
			sum += s
		}
		if sum != bfs.Reached || bfs.LevelSizes[0] != 1 || len(bfs.LevelSizes) != bfs.Depth+1 || bfs.Reached > bfs.Vertices {
			t.Fatalf("%s: inconsistent BFS reference %+v", name, bfs)
		}
		scores, err := ReadPageRank(GoldenFile(name+".pagerank.tsv"), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		var total float64
		for _, s := range scores {
			total += s.Score
		}
		if int64(len(scores)) != bfs.Vertices || math.Abs(total-1) > 1e-12 {
			t.Fatalf("%s: %d scores summing to %v, %d vertices", name, len(scores), total, bfs.Vertices)
		}
		for _, ref := range []string{".pagerank.tsv", ".pagerank_personalized.tsv"} {
			if k, err := NetworkXIterations(GoldenFile(name + ref)); err != nil || k < 1 {
				t.Fatalf("%s%s: %d NetworkX iterations, %v", name, ref, k, err)
			}
		}
		for col := 1; col <= 3; col++ {
			scores, err := ReadPageRank(GoldenFile(name+".pagerank_personalized.tsv"), 0, col)
			if err != nil {
				t.Fatal(err)
			}
			total = 0
			for _, s := range scores {
				total += s.Score
			}
			if int64(len(scores)) != bfs.Vertices || math.Abs(total-1) > 1e-12 {
				t.Fatalf("%s personalized, column %d: %d scores summing to %v, %d vertices", name, col, len(scores), total, bfs.Vertices)
			}
		}
	}
}

func TestReadersNameTheBadLine(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tsv")
	if err := os.WriteFile(bad, []byte("# header\n1\t0.5\n2\tx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPageRank(bad, 0, 1); err == nil || !strings.Contains(err.Error(), "bad.tsv:3") {
		t.Fatalf("error %v does not name bad.tsv:3", err)
	}
	short := filepath.Join(dir, "short.bfs.txt")
	if err := os.WriteFile(short, []byte("source=0\nlevel_sizes=1,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBFSReference(short); err == nil || !strings.Contains(err.Error(), "short.bfs.txt:2") {
		t.Fatalf("error %v does not name short.bfs.txt:2", err)
	}
}

func TestRealGraphsShipped(t *testing.T) {
	for _, name := range []string{"soc-Slashdot0902.txt.gz", "soc-Slashdot0902.bfs.txt",
		"road-luxembourg-osm.mtx", "road-luxembourg-osm.bfs.txt"} {
		if fi, err := os.Stat(RealFile(t, name)); err != nil || fi.Size() == 0 {
			t.Fatalf("%s: %v, size %d", name, err, fi.Size())
		}
	}
}
