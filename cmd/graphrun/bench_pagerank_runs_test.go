package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/bench"
)

// pageRankMatrixArgs makes every run of a PageRank matrix with a runner
// that answers the same JSON, and returns each run's pagerank command
// line, in order.
func pageRankMatrixArgs(t *testing.T, matrix string, run func(bench.PageRankRunner, *bench.Output) error) [][]string {
	t.Helper()
	doc := []byte(`{"input":"kron:8","vertices":256,"edges":4096,"num_ranks":8,"iterations":2,"allreduce":"direct"}`)
	var args [][]string
	var out bench.Output
	out.Start(matrix, "key", "command")
	err := run(func(r bench.PageRankBenchRun) ([]byte, error) {
		args = append(args, pageRankArgs(r))
		return doc, nil
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	return args
}

// TestPageRankMatrixArgs: the pagerank command line of every run of
// bench pagerank-allreduce and bench pagerank, in order.
func TestPageRankMatrixArgs(t *testing.T) {
	am, err := bench.PageRankAllreduceSpec{Scale: 8, Ranks: 8, Iterations: 2, Degrees: "4x2"}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	got := pageRankMatrixArgs(t, "pagerank-allreduce", func(run bench.PageRankRunner, out *bench.Output) error {
		return am.Run(run, out, &strings.Builder{}, &strings.Builder{})
	})
	want := [][]string{
		{"pagerank", "--kron", "8", "--ranks", "8", "--allreduce", "direct", "--iterations", "2", "--json", "-"},
		{"pagerank", "--kron", "8", "--ranks", "8", "--allreduce", "binary", "--iterations", "2", "--json", "-"},
		{"pagerank", "--kron", "8", "--ranks", "8", "--allreduce", "kylix", "--iterations", "2", "--json", "-"},
		{"pagerank", "--kron", "8", "--ranks", "8", "--allreduce", "kylix", "--iterations", "2", "--json", "-", "--degrees", "4x2"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("pagerank-allreduce runs:\n%q\nwant\n%q", got, want)
	}
	input := writeEdges(t, "1 2\n2 3\n")
	sm, err := bench.PageRankSpeedSpec{Inputs: input, Scales: "9", Ranks: "1,2", Iterations: 3}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	got = pageRankMatrixArgs(t, "pagerank", func(run bench.PageRankRunner, out *bench.Output) error {
		return sm.Run(run, out, &strings.Builder{}, &strings.Builder{})
	})
	want = [][]string{
		{"pagerank", input, "--ranks", "1", "--iterations", "3", "--top", "0", "--json", "-"},
		{"pagerank", input, "--ranks", "2", "--iterations", "3", "--top", "0", "--json", "-"},
		{"pagerank", "--kron", "9", "--undirected", "--ranks", "1", "--iterations", "3", "--top", "0", "--json", "-"},
		{"pagerank", "--kron", "9", "--undirected", "--ranks", "2", "--iterations", "3", "--top", "0", "--json", "-"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("pagerank runs:\n%q\nwant\n%q", got, want)
	}
}

// TestPageRankMatrixKeys: the key and command line of each matrix
// name the parameters that change its table, the defaults left out.
func TestPageRankMatrixKeys(t *testing.T) {
	pm, err := bench.PageRankAllreduceSpec{Scale: 12, Ranks: 8, Iterations: 3, Degrees: "4x2, 2x2x2"}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if key, command := pageRankAllreduceKey(pm); key != "pagerank-allreduce scale=12 ranks=8 iterations=3 degrees=4x2,2x2x2" ||
		command != "graphrun bench pagerank-allreduce --scale 12 --ranks 8 --iterations 3 --degrees 4x2,2x2x2" {
		t.Errorf("pagerank-allreduce: %q, %q", key, command)
	}
	input := writeEdges(t, "1 2\n")
	sm, err := bench.PageRankSpeedSpec{Inputs: input, Scales: "20,22", Ranks: "1,2", Iterations: 20}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if key, command := pageRankSpeedKey(sm); key != "pagerank inputs=g.txt scales=20,22 ranks=2 iterations=20" ||
		command != "graphrun bench pagerank --inputs "+input+" --scales 20,22 --ranks 2 --iterations 20" {
		t.Errorf("pagerank: %q, %q", key, command)
	}
}
