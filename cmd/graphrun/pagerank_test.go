package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/comm/launch"
	"github.com/graphrun/graphrun/internal/testgraph"
)

// pagerankJSON is the part of the --json report the tests read.
type pagerankJSON struct {
	NumRanks         int     `json:"num_ranks"`
	Method           string  `json:"method"`
	Vertices         int64   `json:"vertices"`
	Edges            int64   `json:"edges"`
	Iterations       int     `json:"iterations"`
	Residual         float64 `json:"residual"`
	TotalRank        float64 `json:"total_rank"`
	Converged        bool    `json:"converged"`
	TimePerIteration struct {
		Compute       *float64 `json:"compute"`
		Communication *float64 `json:"communication"`
	} `json:"time_per_iteration"`
	Setup struct {
		Total         float64 `json:"total"`
		Configuration float64 `json:"configuration"`
	} `json:"setup"`
	CommBytes    int64 `json:"comm_bytes"`
	CommMessages int64 `json:"comm_messages"`
	Layers       []struct {
		Layer    int   `json:"layer"`
		Bytes    int64 `json:"bytes"`
		Messages int64 `json:"messages"`
	} `json:"layers"`
	Top []struct {
		ID    int64   `json:"id"`
		Score float64 `json:"score"`
	} `json:"top"`
}

func runPageRankJSON(t *testing.T, args ...string) pagerankJSON {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"pagerank", "--json", "-"}, args...)...)
	if code != 0 {
		t.Fatalf("pagerank %v: exit %d, stderr:\n%s", args, code, errOut)
	}
	var rep pagerankJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("pagerank %v: bad JSON: %v\n%s", args, err, out)
	}
	return rep
}

// sharedData is the folder of the shared real graphs (testgraph's one
// locator), skipping the test without it.
func sharedData(t *testing.T) string { return testgraph.RealData() }

func TestPageRankCLIRealGraphs(t *testing.T) {
	dir := sharedData(t)
	// One run per network, spread over the rank counts and both graphs: the
	// library's TestPageRankRealGraphs and TestRealGraphSameScoresAnyRanks_KylixVIID
	// check every network on every rank count; here the flags and the JSON.
	runs := map[string][]struct {
		kind  string
		ranks int
	}{
		"soc-Slashdot0902.txt.gz": {{"kylix", 4}, {"direct", 1}},
		"road-luxembourg-osm.mtx": {{"binary", 16}, {"dense", 4}},
	}
	for _, g := range []string{"soc-Slashdot0902.txt.gz", "road-luxembourg-osm.mtx"} {
		// Columns 1 and 3 of a top-20 reference: vertex and converged score.
		ref, err := testgraph.ReadPageRank(filepath.Join(dir, strings.TrimSuffix(strings.TrimSuffix(g, ".gz"), filepath.Ext(strings.TrimSuffix(g, ".gz")))+".pagerank_top20.tsv"), 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		var first []float64
		for _, run := range runs[g] {
			kind, p := run.kind, run.ranks
			name := fmt.Sprintf("%s %s --ranks %d", g, kind, p)
			rep := runPageRankJSON(t, filepath.Join(dir, g), "--allreduce", kind, "--ranks", strconv.Itoa(p), "--top", "20", "--tol", "1e-15")
			if rep.NumRanks != p || len(rep.Top) != len(ref) || !rep.Converged || rep.Residual >= 1e-10 {
				t.Fatalf("%s: %+v", name, rep)
			}
			if math.Abs(rep.TotalRank-1) > 1e-9 {
				t.Errorf("%s: total rank %v", name, rep.TotalRank)
			}
			var scores []float64
			for i, r := range ref {
				got := rep.Top[i]
				if got.ID != r.ID || math.Abs(got.Score-r.Score) > 1e-9 {
					t.Errorf("%s: #%d is %d (%.12e), want %d (%.12e)", name, i+1, got.ID, got.Score, r.ID, r.Score)
				}
				scores = append(scores, got.Score)
			}
			if first == nil {
				first = scores
			}
			for i := range scores {
				if math.Abs(scores[i]-first[i]) > 1e-12 {
					t.Errorf("%s: #%d score %v differs from the first run's %v", name, i+1, scores[i], first[i])
				}
			}
			if p > 1 && (rep.CommBytes <= 0 || rep.CommMessages <= 0 || len(rep.Layers) == 0) {
				t.Errorf("%s: no traffic reported: %+v", name, rep)
			}
			var layerBytes int64
			for _, l := range rep.Layers {
				layerBytes += l.Bytes
			}
			if layerBytes > rep.CommBytes {
				t.Errorf("%s: layers carry %d bytes, more than the %d of the whole run", name, layerBytes, rep.CommBytes)
			}
			if rep.TimePerIteration.Compute == nil || rep.TimePerIteration.Communication == nil {
				t.Errorf("%s: time_per_iteration lacks compute or communication", name)
			}
			if rep.Setup.Configuration <= 0 || rep.Setup.Total < rep.Setup.Configuration {
				t.Errorf("%s: setup %+v: want 0 < configuration ≤ total", name, rep.Setup)
			}
		}
		if g != "road-luxembourg-osm.mtx" {
			continue // the library's TestPageRankGaussSeidel checks both graphs
		}
		// Gauss-Seidel sweeps reach the same answer (one rank).
		rep := runPageRankJSON(t, filepath.Join(dir, g), "--gauss-seidel", "--top", "20", "--tol", "1e-15")
		if rep.Method != "gauss-seidel" || !rep.Converged || rep.Residual >= 1e-10 || math.Abs(rep.TotalRank-1) > 1e-9 {
			t.Fatalf("%s --gauss-seidel: %+v", g, rep)
		}
		for i, r := range ref {
			if got := rep.Top[i]; got.ID != r.ID || math.Abs(got.Score-r.Score) > 1e-9 {
				t.Errorf("%s --gauss-seidel: #%d is %d (%.12e), want %d (%.12e)", g, i+1, got.ID, got.Score, r.ID, r.Score)
			}
		}
	}
}

// writeEdges writes a small SNAP edge list.
func writeEdges(t *testing.T, text string) string {
	t.Helper()
	path := writeFile(t, filepath.Join(t.TempDir(), "g.txt"), text)
	return path
}

func TestPageRankCLIOutAndText(t *testing.T) {
	// 10 → 20 → 30, 30 → 10, a self-loop, a duplicate and a dangling 40.
	path := writeEdges(t, "# test\n10 20\n20 30\n30 10\n30 10\n20 20\n20 40\n")
	out := filepath.Join(t.TempDir(), "scores.tsv")
	stdout, _ := mustRun(t, "pagerank", path, "--ranks", "3", "--out", out, "--top", "2", "--partition", "1d", "--allreduce", "direct")
	for _, want := range []string{"4 vertices, 5 edges, 3 ranks", "iterations: ", "final L1 change: ", "total rank: 1.0000000000"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	data := readFile(t, out)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 4 {
		t.Fatalf("--out has %d lines:\n%s", len(lines), data)
	}
	var sum float64
	for i, line := range lines {
		id, score, ok := strings.Cut(line, "\t")
		s, err := strconv.ParseFloat(score, 64)
		if !ok || err != nil || id != []string{"10", "20", "30", "40"}[i] {
			t.Fatalf("--out line %q", line)
		}
		sum += s
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("--out scores sum to %v", sum)
	}

	// Exactly N iterations; --max-iter reached unconverged exits with
	// status 3, its outputs written and the JSON saying so.
	if rep := runPageRankJSON(t, path, "--iterations", "3", "--ranks", "2"); rep.Iterations != 3 {
		t.Errorf("--iterations 3 ran %d", rep.Iterations)
	}
	js := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runCLI(t, "pagerank", path, "--max-iter", "2", "--tol", "1e-300", "-o", out, "--json", js)
	var rep pagerankJSON
	if err := json.Unmarshal(readFile(t, js), &rep); code != 3 || err != nil || rep.Converged || rep.Iterations != 2 || !strings.Contains(stderr, "--max-iter 2") {
		t.Errorf("--max-iter 2: exit %d, converged %v after %d (%v), stderr %q", code, rep.Converged, rep.Iterations, err, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(string(readFile(t, out))), "\n"); len(lines) != 4 {
		t.Errorf("--max-iter 2: --out has %d lines", len(lines))
	}
}

// TestPageRankCLINetworkX: --tol is NetworkX's tol (the run stops at the
// iteration NetworkX stops at), and --personalize, --personalize-ids,
// --dangling and --nstart give NetworkX's scores; bad vectors exit 2
// naming the flag and the file's line.
func TestPageRankCLINetworkX(t *testing.T) {
	g := testgraph.GoldenFile("web-directed.el")
	iterations, err := testgraph.NetworkXIterations(g + ".pagerank.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if rep := runPageRankJSON(t, g, "--ranks", "3", "--tol", "1e-6"); rep.Iterations != iterations || !rep.Converged {
		t.Errorf("--tol 1e-6: %d iterations, NetworkX %d", rep.Iterations, iterations)
	}
	ref, err := testgraph.ReadPageRank(g+".pagerank_personalized.tsv", 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	clearJobEnv(t)
	for _, ranks := range [][]string{{"--ranks", "2"}, {"--procs", "2", "--threads", "1"}} {
		out := filepath.Join(t.TempDir(), "scores.tsv")
		mustRun(t, append([]string{"pagerank", g, "--tol", "1e-16", "-o", out, "--personalize", g + ".personalize.txt",
			"--dangling", g + ".dangling.txt", "--nstart", g + ".nstart.txt"}, ranks...)...)
		got := map[int64]float64{}
		for _, line := range strings.Split(strings.TrimSpace(string(readFile(t, out))), "\n") {
			id, score, _ := strings.Cut(line, "\t")
			v, _ := strconv.ParseInt(id, 10, 64)
			got[v], _ = strconv.ParseFloat(score, 64)
		}
		var l1 float64
		for _, r := range ref {
			l1 += math.Abs(got[r.ID] - r.Score)
		}
		if len(got) != len(ref) || l1 > 1e-12 {
			t.Errorf("personalized %v: %d scores, L1 distance from NetworkX %.3g", ranks, len(got), l1)
		}
	}
	seeds := runPageRankJSON(t, g, "--personalize-ids", "3,10", "--top", "1")
	if len(seeds.Top) != 1 || seeds.Top[0].ID != 3 && seeds.Top[0].ID != 10 && seeds.Top[0].ID != 17 {
		t.Errorf("--personalize-ids 3,10: top %+v", seeds.Top)
	}
	bad := writeEdges(t, "3 1\n999 2\n")
	negative := writeEdges(t, "3 1\n10 -2\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--personalize", bad, "--ranks", "2"}, "--personalize: " + bad + ":2: vertex 999 occurs in no edge"},
		{[]string{"--dangling", negative}, "--dangling: " + negative + ":2: weight"},
		{[]string{"--nstart", bad}, "--nstart: " + bad + ":2"},
		{[]string{"--personalize-ids", "3,999"}, "--personalize-ids: entry 1: vertex 999"},
		{[]string{"--personalize-ids", "3", "--personalize", bad}, "--personalize-ids"},
		{[]string{"--personalize-ids", "3", "--gauss-seidel"}, "--gauss-seidel"},
	} {
		code, _, stderr := runCLI(t, append([]string{"pagerank", g}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestPageRankCLIMemoryGuard: a Kronecker graph too large for the machine
// is refused at once, naming the largest scale that fits.
func TestPageRankCLIMemoryGuard(t *testing.T) {
	code, _, stderr := runCLI(t, "pagerank", "--kron", "40", "--ranks", "2")
	if code != 2 || !strings.Contains(stderr, "--kron: scale 40 needs about") || !strings.Contains(stderr, "the largest scale that fits is") {
		t.Errorf("--kron 40: exit %d, stderr %q", code, stderr)
	}
}

func TestPageRankCLIKronecker(t *testing.T) {
	a := runPageRankJSON(t, "--kron", "8", "--ranks", "1", "--top", "5")
	b := runPageRankJSON(t, "--kron", "8", "--ranks", "4", "--degrees", "2x2", "--top", "5")
	if a.Vertices == 0 || a.Vertices != b.Vertices || a.Edges != b.Edges || len(a.Top) != 5 {
		t.Fatalf("kron: %+v vs %+v", a, b)
	}
	for i := range a.Top {
		if a.Top[i].ID != b.Top[i].ID || math.Abs(a.Top[i].Score-b.Top[i].Score) > 1e-12 {
			t.Errorf("kron #%d: %v vs %v", i+1, a.Top[i], b.Top[i])
		}
	}
	if len(b.Layers) != 2 {
		t.Errorf("kylix 2x2: %d layers", len(b.Layers))
	}
}

func TestPageRankCLIBadInput(t *testing.T) {
	good := writeEdges(t, "1 2\n2 3\n")
	bad := writeEdges(t, "1 2\n2 x\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"pagerank"}, "FILE"},
		{[]string{"pagerank", good, "--alpha", "1.5"}, "--alpha"},
		{[]string{"pagerank", good, "--tol", "0"}, "--tol"},
		{[]string{"pagerank", good, "--max-iter", "0"}, "--max-iter"},
		{[]string{"pagerank", good, "--iterations", "0"}, "--iterations"},
		{[]string{"pagerank", good, "--allreduce", "ring"}, "--allreduce"},
		{[]string{"pagerank", good, "--ranks", "4", "--degrees", "3x3"}, "--degrees"},
		{[]string{"pagerank", good, "--allreduce", "direct", "--degrees", "2"}, "--degrees"},
		{[]string{"pagerank", good, "--allreduce", "dense", "--degrees", "2"}, "--degrees"},
		{[]string{"pagerank", good, "--partition", "2d"}, "--partition"},
		{[]string{"pagerank", good, "--top", "-1"}, "--top"},
		{[]string{"pagerank", good, "--ranks", "0"}, "--ranks"},
		{[]string{"pagerank", good, "--format", "xml"}, "--format"},
		{[]string{"pagerank", good, "--kron", "8"}, "--kron"},
		{[]string{"pagerank", "--kron", "0"}, "--kron"},
		{[]string{"pagerank", good, "--out", "/nonexistent/dir/x"}, "--out"},
		{[]string{"pagerank", filepath.Join(t.TempDir(), "missing.txt")}, "missing.txt"},
		{[]string{"pagerank", bad, "--ranks", "2"}, filepath.Base(bad) + ":2"},
		{[]string{"pagerank", good, "--ranks", "2", "--gauss-seidel"}, "--gauss-seidel"},
		{[]string{"pagerank", good, "--allreduce", "dense", "--gauss-seidel"}, "--gauss-seidel"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}

// TestPageRankCLIThreadsAndTraffic: --threads does not change the scores;
// every message of an iteration belongs to a layer of the network (the
// scalars ride the up pass), at most d−1 per rank, layer and pass; and the
// JSON reports the threads and the spread of iteration times.
func TestPageRankCLIThreadsAndTraffic(t *testing.T) {
	a := runPageRankJSON(t, "--kron", "10", "--ranks", "2", "--threads", "1", "--iterations", "4", "--top", "10")
	b := runPageRankJSON(t, "--kron", "10", "--ranks", "2", "--threads", "3", "--iterations", "4", "--top", "10")
	for i := range a.Top {
		if a.Top[i] != b.Top[i] {
			t.Errorf("#%d: %v with 1 thread, %v with 3", i+1, a.Top[i], b.Top[i])
		}
	}
	var raw map[string]any
	code, out, errOut := runCLI(t, "pagerank", "--kron", "8", "--threads", "2", "--iterations", "3", "--json", "-")
	if code != 0 || json.Unmarshal([]byte(out), &raw) != nil {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	spread, ok := raw["iteration_time"].(map[string]any)
	if raw["threads"] != 2.0 || !ok || !(spread["min"].(float64) <= spread["median"].(float64) && spread["median"].(float64) <= spread["max"].(float64)) {
		t.Errorf("threads %v, iteration_time %v", raw["threads"], raw["iteration_time"])
	}

	const p, iters = 16, 3
	for _, nw := range []struct {
		args    []string
		degrees []int
	}{
		{[]string{"--allreduce", "kylix", "--degrees", "4x2x2"}, []int{4, 2, 2}},
		{[]string{"--allreduce", "direct"}, []int{p}},
		{[]string{"--allreduce", "binary"}, []int{2, 2, 2, 2}},
		{[]string{"--allreduce", "dense"}, []int{2, 2, 2, 2}}, // one message per rank, dimension and pass
	} {
		rep := runPageRankJSON(t, append([]string{"--kron", "10", "--ranks", strconv.Itoa(p), "--iterations", strconv.Itoa(iters)}, nw.args...)...)
		var msgs, bytes, bound int64
		for i, l := range rep.Layers {
			msgs += l.Messages
			bytes += l.Bytes
			bound += 2 * int64(iters) * p * int64(nw.degrees[i]-1)
		}
		if len(rep.Layers) != len(nw.degrees) || msgs != rep.CommMessages || bytes != rep.CommBytes || msgs > bound {
			t.Errorf("%v: %d messages and %d bytes in %d layers, %d and %d in all, bound %d",
				nw.args, msgs, bytes, len(rep.Layers), rep.CommMessages, rep.CommBytes, bound)
		}
	}
	code, _, errOut = runCLI(t, "pagerank", "--kron", "8", "--threads", "0")
	if code != 2 || !strings.Contains(errOut, "--threads") {
		t.Errorf("--threads 0: exit %d, %q", code, errOut)
	}
}

// TestPageRankCLIJoinBadUse: --join's misuses exit 2 naming the flag or
// the variable at fault.
func TestPageRankCLIJoinBadUse(t *testing.T) {
	clearJobEnv(t)
	good := writeEdges(t, "1 2\n2 3\n")
	coord := []string{"--coordinator", "127.0.0.1:7000"}
	cases := []struct {
		env  string // GRAPHRUN_TOKEN
		args []string
		want string
	}{
		{"", []string{"--join"}, "--join: only an elastic job takes processes in"},
		{strings.Repeat("ab", 32), append([]string{"--elastic", "--join", "--procs", "2"}, coord...), "--procs: cannot be combined with --join"},
		{strings.Repeat("ab", 32), append([]string{"--elastic", "--join", "--rank", "1", "--size", "2"}, coord...), "cannot be combined with --join"},
		{strings.Repeat("ab", 32), append([]string{"--elastic", "--join", "--ranks", "2"}, coord...), "--ranks: cannot be combined with --join"},
		{strings.Repeat("ab", 32), append([]string{"--elastic", "--join", "--degrees", "2x2"}, coord...), "--degrees: cannot be combined with joining a running job"},
		{strings.Repeat("ab", 32), append([]string{"--elastic", "--join", "--transport", "inproc"}, coord...), "--transport"},
		{strings.Repeat("ab", 32), append([]string{"--elastic", "--join", "--allreduce", "dense"}, coord...), "--elastic: runs on the sparse allreduces"},
		{"", append([]string{"--elastic", "--join"}, coord...), "GRAPHRUN_TOKEN: not set: --join needs the running job's token"},
		{strings.Repeat("ab", 32), []string{"--elastic", "--join"}, "--coordinator: missing"},
		{strings.Repeat("ab", 32), []string{"--elastic", "--join", "--coordinator", "nohost"}, "--coordinator"},
	}
	for _, c := range cases {
		t.Setenv(launch.EnvToken, c.env)
		code, _, stderr := runCLI(t, append([]string{"pagerank", good}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}

// TestPageRankCLIJoin runs a 2-process elastic job by hand and a third
// process with --join, started with the job: it joins between two
// iterations, rank 0 reports the growth and a job of 3 ranks, and the top
// 10 equal an in-process run's.
func TestPageRankCLIJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three graphrun processes")
	}
	clearJobEnv(t)
	// Many iterations of a small graph: the run outlasts the joiner's
	// arrival by far, and is converged to the last bits long before its end.
	graph := []string{"pagerank", "--kron", "11", "--iterations", "2500", "--top", "10", "--threads", "1", "--elastic", "--peer-timeout", "20s"}
	code, ref, errOut := runCLI(t, "pagerank", "--kron", "11", "--iterations", "2500", "--top", "10", "--ranks", "2")
	if code != 0 {
		t.Fatalf("reference: exit %d: %s", code, errOut)
	}
	coord := freeAddr(t)
	env := []string{launch.EnvToken + "=" + strings.Repeat("5e", 32), launch.EnvCoordinator + "=" + coord}
	joiner, joinOut, joinErr := rankProcess(t, env, append(graph, "--join")...)
	var ranks [2]*exec.Cmd
	var outs, errs [2]*bytes.Buffer
	for r := range 2 {
		ranks[r], outs[r], errs[r] = rankProcess(t, env, append(graph, "--rank", fmt.Sprint(r), "--size", "2")...)
	}
	for r := range 2 {
		if err := ranks[r].Wait(); err != nil {
			t.Fatalf("rank %d: %v, stderr:\n%s", r, err, errs[r])
		}
	}
	if err := joiner.Wait(); err != nil {
		t.Fatalf("joiner: %v, stderr:\n%s", err, joinErr)
	}
	if !strings.Contains(errs[0].String(), "growth at epoch 1: 1 process(es) joined after iteration") {
		t.Fatalf("rank 0 reports no growth:\n%s\njoiner:\n%s", errs[0], joinErr)
	}
	for _, l := range strings.Split(errs[0].String(), "\n") {
		if strings.Contains(l, "growth at epoch") {
			t.Log(l)
		}
	}
	if !strings.Contains(outs[0].String(), ", 3 ranks,") {
		t.Errorf("rank 0 does not report 3 ranks:\n%s", outs[0])
	}
	if outs[1].Len() != 0 || joinOut.Len() != 0 {
		t.Errorf("rank 1 or the joiner printed on stdout:\n%s\n%s", outs[1], joinOut)
	}
	if !strings.Contains(joinErr.String(), "pagerank --join: joined as rank 2 of 3 (epoch 1)") {
		t.Errorf("the joiner does not say it joined:\n%s", joinErr)
	}
	top := func(out string) []string {
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 3 {
				if _, err := strconv.Atoi(f[0]); err != nil {
					continue
				}
				lines = append(lines, l)
			}
		}
		return lines
	}
	want, got := top(ref), top(outs[0].String())
	if len(want) != 10 || len(got) != 10 {
		t.Fatalf("top lines: %d and %d, want 10:\n%s\n%s", len(want), len(got), ref, outs[0])
	}
	for i := range want {
		w, g := strings.Fields(want[i]), strings.Fields(got[i])
		ws, _ := strconv.ParseFloat(w[2], 64)
		gs, _ := strconv.ParseFloat(g[2], 64)
		if w[1] != g[1] || math.Abs(ws-gs) > 1e-9*ws {
			t.Errorf("top %d: %q, want %q", i+1, got[i], want[i])
		}
	}
}
