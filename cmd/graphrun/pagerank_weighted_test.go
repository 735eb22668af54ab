package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/internal/testgraph"
)

// readScores reads an --out file's "id<TAB>score" lines.
func readScores(t *testing.T, path string) map[int64]float64 {
	t.Helper()
	got := map[int64]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(readFile(t, path))), "\n") {
		id, score, _ := strings.Cut(line, "\t")
		v, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			t.Fatalf("%s: %q", path, line)
		}
		if got[v], err = strconv.ParseFloat(score, 64); err != nil {
			t.Fatalf("%s: %q", path, line)
		}
	}
	return got
}

// TestPageRankCLIWeighted: a weighted file's weights are used by default
// (NetworkX's weight=), in-process and as two processes, personalized, to
// NetworkX's scores; --weights off ignores them; --weights on takes the
// generator's for --kron and refuses a file without weights; a bad weight
// exits 2 naming the file's line.
func TestPageRankCLIWeighted(t *testing.T) {
	g := testgraph.GoldenFile("weighted.wel")
	ref, err := testgraph.ReadPageRank(g+".pagerank_weighted.tsv", 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	clearJobEnv(t)
	for _, ranks := range [][]string{{"--ranks", "3"}, {"--procs", "2", "--threads", "1"}} {
		out := filepath.Join(t.TempDir(), "scores.tsv")
		mustRun(t, append([]string{"pagerank", g, "--tol", "1e-16", "-o", out, "--personalize", g + ".personalize.txt"}, ranks...)...)
		got := readScores(t, out)
		var l1 float64
		for _, r := range ref {
			l1 += math.Abs(got[r.ID] - r.Score)
		}
		if len(got) != len(ref) || l1 > 1e-12 {
			t.Errorf("weighted %v: %d scores, L1 distance from NetworkX %.3g", ranks, len(got), l1)
		}
	}
	plain := filepath.Join(t.TempDir(), "plain.el")
	var text strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(readFile(t, g))), "\n") {
		f := strings.Fields(line)
		text.WriteString(f[0] + " " + f[1] + "\n")
	}
	if err := os.WriteFile(plain, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	off, unweighted := filepath.Join(t.TempDir(), "off.tsv"), filepath.Join(t.TempDir(), "plain.tsv")
	mustRun(t, "pagerank", g, "--weights", "off", "-o", off)
	mustRun(t, "pagerank", plain, "-o", unweighted)
	if a, b := string(readFile(t, off)), string(readFile(t, unweighted)); a != b {
		t.Errorf("--weights off differs from the same edges without weights")
	}
	if rep := runPageRankJSON(t, "--kron", "8", "--weights", "on", "--ranks", "2"); !rep.Converged {
		t.Errorf("--kron 8 --weights on: not converged")
	}
	negative := writeEdges(t, "1 2 0.5\n2 3 -1\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{plain, "--weights", "on"}, "--weights: " + plain + ": has no edge weights"},
		{[]string{g, "--weights", "maybe"}, "--weights: unknown choice"},
		{[]string{g, "--gauss-seidel"}, "--gauss-seidel"},
		{[]string{negative, "--format", "wel", "--ranks", "2"}, negative + ":2"},
	} {
		code, _, stderr := runCLI(t, append([]string{"pagerank"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
