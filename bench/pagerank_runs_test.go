package bench

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/results"
)

// TestBenchMatrices: the runs each matrix makes, their files, and that
// runPageRankMatrix reads every run's JSON and names the matrix in its errors.
func TestBenchMatrices(t *testing.T) {
	kron8 := PageRankGraph{Scale: 8}
	m := pageRankAllreduceRuns(kron8, 8, 2, []string{"4x2"})
	if len(m) != 4 || m[3].File != "pagerank-allreduce-p8-04-kylix-4x2.json" ||
		m[0] != (PageRankBenchRun{Graph: kron8, Ranks: 8, Iterations: 2, Allreduce: "direct", File: "pagerank-allreduce-p8-01-direct.json"}) ||
		m[3].Allreduce != "kylix" || m[3].Degrees != "4x2" || m[2].Degrees != "" {
		t.Fatalf("allreduce matrix %+v", m)
	}
	s := pageRankSpeedRuns(pageRankSpeedGraphs([]string{"dir/g.txt"}, []int{9}), []int{1, 2}, 3)
	if len(s) != 4 || s[0].File != "pagerank-g-txt-p1.json" || s[0].Graph != (PageRankGraph{Input: "dir/g.txt"}) || s[3].File != "pagerank-kron9-p2.json" ||
		s[2] != (PageRankBenchRun{Graph: PageRankGraph{Scale: 9, Undirected: true}, Ranks: 1, Iterations: 3, NoTop: true,
			File: "pagerank-kron9-p1.json", GraphName: "Kronecker 9, symmetric"}) {
		t.Fatalf("speed matrix %+v", s)
	}
	doc := `{"input":"kron:8","vertices":256,"edges":4096,"num_ranks":8,"iterations":2,"allreduce":"direct"}`
	files := pageRankFileNames{}
	var done []string
	runs, err := runPageRankMatrix("pagerank-allreduce", m[:2], files, func(PageRankBenchRun) ([]byte, error) { return []byte(doc), nil },
		func(br PageRankBenchRun, _ *results.PageRankRun) { done = append(done, br.File) })
	if err != nil || len(runs) != 2 || runs[1].Vertices != 256 || len(done) != 2 || files[m[1].File] != doc {
		t.Fatalf("runPageRankMatrix: %v, %d runs, done %v, files %v", err, len(runs), done, files)
	}
	_, err = runPageRankMatrix("pagerank", m[:1], files, func(PageRankBenchRun) ([]byte, error) { return []byte("{"), nil }, func(PageRankBenchRun, *results.PageRankRun) {})
	if err == nil || !strings.HasPrefix(err.Error(), "bench pagerank: pagerank-allreduce-p8-01-direct.json: ") {
		t.Fatalf("bad JSON: %v", err)
	}
	_, err = runPageRankMatrix("pagerank", m[:1], pageRankFullDisk{}, func(PageRankBenchRun) ([]byte, error) { return []byte(doc), nil }, func(PageRankBenchRun, *results.PageRankRun) {})
	if !errors.Is(err, errPageRankDiskFull) || !strings.HasPrefix(err.Error(), "bench pagerank: ") {
		t.Fatalf("write error: %v", err)
	}
}

// pageRankFileNames is a results.FileWriter keeping every file's contents.
type pageRankFileNames map[string]string

func (f pageRankFileNames) WriteFile(name string, write func(io.Writer) error) (string, error) {
	var b strings.Builder
	err := write(&b)
	f[name] = b.String()
	return name, err
}

var errPageRankDiskFull = errors.New("disk full")

// pageRankFullDisk is a results.FileWriter that writes nothing.
type pageRankFullDisk struct{}

func (pageRankFullDisk) WriteFile(string, func(io.Writer) error) (string, error) {
	return "", errPageRankDiskFull
}

// TestSpeedTableRatio: each graph's first row is its ratio's base.
func TestSpeedTableRatio(t *testing.T) {
	row := func(g string, med float64) PageRankSpeedRow {
		r := &results.PageRankRun{Edges: 4, NumRanks: 1, Threads: 1}
		r.IterationTime.Median, r.IterationTime.Min = med, med
		return PageRankSpeedRow{Graph: g, Run: r}
	}
	lines := strings.Split(strings.TrimSpace(pageRankSpeedTable([]PageRankSpeedRow{row("a", 0.002), row("a", 0.001), row("b", 0.004)})), "\n")
	if len(lines) != 5 || !strings.Contains(lines[2], "| 1.00 |") || !strings.Contains(lines[3], "| 0.50 |") || !strings.Contains(lines[4], "| 1.00 |") {
		t.Fatalf("table:\n%s", strings.Join(lines, "\n"))
	}
}
