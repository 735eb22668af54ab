package pagerank

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/results"
)

// TestReportText: the score lines read back exactly, and the summary and the
// memory line say what the report holds.
func TestReportText(t *testing.T) {
	rep := &Report{All: []VertexScore{{ID: 0, Score: 0.1}, {ID: 7, Score: 1.0 / 3}}}
	var b bytes.Buffer
	if err := rep.WriteScores(&b); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "0\t0.1\n7\t0.3333333333333333\n"; got != want {
		t.Fatalf("scores %q, want %q", got, want)
	}
	rep.PageRankRun = results.PageRankRun{Input: "g.el", Vertices: 8, Edges: 9, NumRanks: 2, Iterations: 4, TotalRank: 1, Partition: "random-edge", Allreduce: "kylix"}
	rep.Top = []results.TopVertex{{ID: 7, Score: 1.0 / 3}}
	b.Reset()
	rep.WriteSummary(&b)
	for _, want := range []string{"PageRank of g.el: 8 vertices, 9 edges", "     1\t           7\t3.333333333333e-01\n", "iterations: 4\n", "total rank: 1.000000000000000\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	rep.PeakMemoryBytes, rep.InputEdges = 8e6, 100
	if got, want := rep.PeakMemoryLine(), "peak memory: 8.0 MB (80000.0 B per edge read, 100 edges)"; got != want {
		t.Errorf("memory line %q, want %q", got, want)
	}
	rep.Undirected = true
	if got, want := rep.PeakMemoryLine(), "peak memory: 8.0 MB (40000.0 B per arc: 100 edges read and their reverses)"; got != want {
		t.Errorf("memory line %q, want %q", got, want)
	}
	rep.NumRanks, rep.Undirected, rep.InputEdges, rep.Vertices, rep.PeakMemoryBytes = 1, false, 1<<20, 1<<16, 40e6
	est, err := EstimateMemory(MemoryConfig{Edges: 1 << 20, Vertices: 1 << 16, Ranks: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.PeakMemoryLine(), fmt.Sprintf("peak memory: 40.0 MB (38.1 B per edge read, 1048576 edges); the memory model %.1f MB", float64(est)/1e6); got != want {
		t.Errorf("memory line %q, want %q", got, want)
	}
	rep.NumRanks, rep.PeakMemoryBytes, rep.InputEdges = 2, 8e6, 100
	rep.JobPeakMemoryBytes, rep.Processes, rep.Undirected = 30e6, 4, false
	want := "peak memory: 30.0 MB, the sum over the job's 4 processes (300000.0 B per edge read, 100 edges); the largest process 8.0 MB"
	if got := rep.PeakMemoryLine(); got != want {
		t.Errorf("memory line %q, want %q", got, want)
	}
}
