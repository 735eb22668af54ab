package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// graph500Fields are the reference's output fields, in its order.
var graph500Fields = []string{
	"SCALE", "edgefactor", "NBFS", "graph_generation", "num_mpi_processes", "construction_time",
	"bfs  min_time", "bfs  firstquartile_time", "bfs  median_time", "bfs  thirdquartile_time",
	"bfs  max_time", "bfs  mean_time", "bfs  stddev_time",
	"min_nedge", "firstquartile_nedge", "median_nedge", "thirdquartile_nedge", "max_nedge", "mean_nedge", "stddev_nedge",
	"bfs  min_TEPS", "bfs  firstquartile_TEPS", "bfs  median_TEPS", "bfs  thirdquartile_TEPS", "bfs  max_TEPS",
	"bfs  harmonic_mean_TEPS", "bfs  harmonic_stddev_TEPS",
	"bfs  min_validate", "bfs  firstquartile_validate", "bfs  median_validate", "bfs  thirdquartile_validate",
	"bfs  max_validate", "bfs  mean_validate", "bfs  stddev_validate",
}

func TestBFSPrintsGraph500Block(t *testing.T) {
	out, errOut := mustRun(t, "bfs", "--scale", "10", "--ranks", "3", "--threads", "2")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(graph500Fields) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(graph500Fields), out)
	}
	for i, f := range graph500Fields {
		if !strings.HasPrefix(lines[i], f+":") {
			t.Errorf("line %d = %q, want field %q", i, lines[i], f)
		}
	}
	for _, want := range []string{"SCALE:                          10\n", "NBFS:                           64\n", "num_mpi_processes:              3\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// The peak memory goes to stderr, never into the reference's block.
	if !regexp.MustCompile(`graphrun: peak memory [0-9.]+ MB \([0-9.]+ bytes per tuple\)`).MatchString(errOut) {
		t.Errorf("stderr lacks the peak memory line:\n%s", errOut)
	}
}

func TestBFSJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	out, errOut := mustRun(t, "bfs", "--scale", "9", "--ranks", "2", "--roots", "5", "--json", path, "--exchange", "push")
	if !strings.Contains(out, "NBFS:                           5\n") {
		t.Fatalf("text block missing:\n%s", out)
	}
	var obj map[string]any
	readJSONFile(t, path, &obj)
	for _, key := range []string{"SCALE", "edgefactor", "NBFS", "num_ranks", "construction_time", "harmonic_mean_TEPS", "validated", "comm_bytes", "searches"} {
		if _, ok := obj[key]; !ok {
			t.Errorf("JSON lacks key %q", key)
		}
	}
	if obj["validated"] != true || obj["exchange"] != "push" {
		t.Errorf("validated=%v exchange=%v", obj["validated"], obj["exchange"])
	}
	run := readRun(t, path)
	if len(run.Searches) != 5 || run.CommBytes <= 0 {
		t.Fatalf("searches %d, comm bytes %d", len(run.Searches), run.CommBytes)
	}
	s := run.Searches[0]
	if len(s.Levels) < 2 || s.Levels[0].Frontier != 1 || s.NEdge <= 0 {
		t.Fatalf("first search: %+v", s)
	}

	// --json - puts JSON alone on stdout and the block on stderr.
	out, errOut = mustRun(t, "bfs", "--scale", "6", "--roots", "2", "--json", "-")
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if !strings.Contains(errOut, "SCALE:") {
		t.Fatalf("text block not on stderr:\n%s", errOut)
	}
}

// TestBFSRanksGiveIdenticalTrees: --ranks 1,2,3,4,7 give identical parents
// and levels for the same seed and root.
func TestBFSRanksGiveIdenticalTrees(t *testing.T) {
	dir := t.TempDir()
	var want []byte
	for _, ranks := range []string{"1", "2", "3", "4", "7"} {
		for _, mode := range [][]string{{"--exchange", "allgather"}, {"--direction", "bottom-up"}, {"--direction", "top-down"}, {"--exchange", "push"}} {
			path := filepath.Join(dir, "tree-"+ranks+mode[1])
			args := append([]string{"bfs", "--scale", "11", "--seed", "5", "--root", "17", "--ranks", ranks, "--out", path}, mode...)
			code, _, errOut := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("ranks %s: exit %d: %s", ranks, code, errOut)
			}
			got := readFile(t, path)
			if want == nil {
				want = got
				if n := bytes.Count(got, []byte("\n")); n != 1<<11 {
					t.Fatalf("tree has %d lines, want %d", n, 1<<11)
				}
				if !bytes.HasPrefix(got, []byte("0 ")) || !bytes.Contains(got, []byte("\n17 17 0\n")) {
					t.Fatalf("tree does not list vertex 0 first and the root as its own parent")
				}
				if unreached := bytes.Count(got, []byte(" -1 -1\n")); unreached > 1<<10 {
					t.Fatalf("the search from 17 left %d of %d vertices unreached: too little to compare", unreached, 1<<11)
				}
			} else if !bytes.Equal(got, want) {
				t.Fatalf("ranks %s %v: tree differs from 1 rank", ranks, mode)
			}
		}
	}
}

// TestBFSCompress: --compress on searches the compressed rows, gives the
// tree of --compress off, validates, and says so in the JSON.
func TestBFSCompress(t *testing.T) {
	dir := t.TempDir()
	var trees [2][]byte
	for i, mode := range []string{"off", "on"} {
		tree, js := filepath.Join(dir, "tree-"+mode), filepath.Join(dir, mode+".json")
		mustRun(t, "bfs", "--scale", "11", "--root", "17", "--ranks", "3", "--compress", mode, "--out", tree, "--json", js)
		trees[i] = readFile(t, tree)
		run := readRun(t, js)
		want := map[string]string{"off": "plain", "on": "compressed"}[mode]
		if !run.Validated() || run.Adjacency != want || run.AdjacencyBytesPerArc <= 0 {
			t.Fatalf("--compress %s: validated %v, adjacency %q, %.2f B/arc", mode, run.Validated(), run.Adjacency, run.AdjacencyBytesPerArc)
		}
	}
	if !bytes.Equal(trees[0], trees[1]) {
		t.Fatal("--compress on gives another tree than --compress off")
	}
}

func TestBFSBadInput(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "tree.txt")
	cases := []struct {
		args []string
		flag string
	}{
		{[]string{"bfs", "--scale", "0"}, "--scale"},
		{[]string{"bfs", "--scale", "41"}, "--scale"},
		{[]string{"bfs", "--scale", "abc"}, "--scale"},
		{[]string{"bfs", "--edgefactor", "0"}, "--edgefactor"},
		{[]string{"bfs", "--ranks", "0"}, "--ranks"},
		{[]string{"bfs", "--threads", "0"}, "--threads"},
		{[]string{"bfs", "--scale", "5", "--root", "32"}, "--root"},
		{[]string{"bfs", "--scale", "5", "--root", "-3"}, "--root"},
		{[]string{"bfs", "--scale", "5", "--out", "x"}, "--out"},
		{[]string{"bfs", "--scale", "5", "--root", "1", "--out", missing}, "--out"},
		{[]string{"bfs", "--scale", "5", "--json", missing}, "--json"},
		{[]string{"bfs", "--exchange", "carrier-pigeon"}, "--exchange"},
		{[]string{"bfs", "--roots", "0"}, "--roots"},
		{[]string{"bfs", "--codec", "morse"}, "--codec"},
		{[]string{"bfs", "--algo", "QUANTUM"}, "--algo"},
		{[]string{"bfs", "--direction", "sideways"}, "--direction"},
		{[]string{"bfs", "--exchange", "push", "--direction", "bottom-up"}, "--direction"},
		{[]string{"bfs", "--compress", "maybe"}, "--compress"},
		{[]string{"bfs", "--compress", "on", "--partition", "2d"}, "--compress"},
		{[]string{"bfs", "--no-such-flag"}, "no-such-flag"},
		{[]string{"bfs", "extra-arg"}, "extra-arg"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, errOut)
		}
		if !strings.Contains(errOut, c.flag) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: want a one-line error naming %s, got %q", c.args, c.flag, errOut)
		}
		if out != "" {
			t.Errorf("%v: wrote to stdout: %q", c.args, out)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("bad input left files behind: %v", entries)
	}
}

func TestBFSMemoryGuard(t *testing.T) {
	code, _, errOut := runCLI(t, "bfs", "--scale", "40")
	if code != 2 || !regexp.MustCompile(`largest scale that fits is \d+`).MatchString(errOut) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(out, "graphrun "+version) {
		t.Fatalf("exit %d, %q", code, out)
	}
}

// TestBFSPaperAlgorithmsAndBreakdown: Lv et al.'s algorithms run end to end,
// agree with each other on every search's nedge and level count, and
// --breakdown prints the per-level table.
func TestBFSPaperAlgorithmsAndBreakdown(t *testing.T) {
	var want []int64
	for _, algo := range []string{"BIT", "WAH", "ZLB-DF", "DIR-WAH", "DIR-ZLB-BS", "DIR-auto", "PDIR-WAH", "PDIR-auto"} {
		path := filepath.Join(t.TempDir(), "run.json")
		out, errOut := mustRun(t, "bfs", "--scale", "9", "--ranks", "3", "--roots", "4", "--algo", algo, "--breakdown", "--json", path)
		if !strings.Contains(out, "bfs  harmonic_mean_TEPS:") || !strings.Contains(errOut, "compression&sieve") {
			t.Fatalf("%s: missing block or breakdown:\n%s\n%s", algo, out, errOut)
		}
		run := readRun(t, path)
		if run.Direction != "bottom-up" {
			t.Fatalf("%s: direction %q, want bottom-up", algo, run.Direction)
		}
		var got []int64
		var encoded int64
		for _, s := range run.Searches {
			got = append(got, s.NEdge, int64(len(s.Levels)))
			for _, l := range s.Levels {
				encoded += l.EncodedBytes
			}
		}
		if encoded == 0 {
			t.Fatalf("%s: no encoded frontier bytes recorded", algo)
		}
		if want == nil {
			want = got
		} else if !slices.Equal(got, want) {
			t.Fatalf("%s: nedge/levels %v differ from BIT's %v", algo, got, want)
		}
	}
	code, _, errOut := runCLI(t, "bfs", "--algo", "WAH", "--codec", "raw")
	if code != 2 || !strings.Contains(errOut, "--algo") {
		t.Fatalf("--algo with --codec: exit %d, %q", code, errOut)
	}
}

// TestBFS2DPartition: --partition 2d gives the same trees as 1D on square,
// non-square and automatic grids, reports the partition in the JSON and the
// breakdown, and explains a lopsided automatic grid on stderr.
func TestBFS2DPartition(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "tree-1d")
	if code, _, errOut := runCLI(t, "bfs", "--scale", "11", "--seed", "5", "--root", "17", "--ranks", "6", "--out", want); code != 0 {
		t.Fatalf("1d: exit %d: %s", code, errOut)
	}
	wantTree := readFile(t, want)
	for _, extra := range [][]string{{"--ranks", "6", "--grid", "3x2"}, {"--ranks", "6", "--grid", "2x3", "--exchange", "sieve", "--codec", "wah"},
		{"--ranks", "4", "--exchange", "packed", "--codec", "auto"}, {"--ranks", "6", "--exchange", "push"}, {"--ranks", "1"}} {
		path := filepath.Join(dir, "tree-2d")
		args := append([]string{"bfs", "--scale", "11", "--seed", "5", "--root", "17", "--partition", "2d", "--out", path}, extra...)
		code, _, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errOut)
		}
		got := readFile(t, path)
		if !bytes.Equal(got, wantTree) {
			t.Fatalf("%v: 2D tree differs from the 1D tree", extra)
		}
	}

	// JSON and breakdown; 7 ranks is prime: the CLI says which grid it took.
	path := filepath.Join(dir, "run.json")
	_, errOut := mustRun(t, "bfs", "--scale", "10", "--ranks", "7", "--roots", "3", "--partition", "2d", "--json", path, "--breakdown")
	if !strings.Contains(errOut, "grid: 7 ranks: 7 is prime") || !strings.Contains(errOut, "using 7x1") ||
		!strings.Contains(errOut, "partition 2d, grid 7x1") || !strings.Contains(errOut, "per-rank load over 7 ranks") {
		t.Fatalf("stderr lacks the grid note or the breakdown's partition:\n%s", errOut)
	}
	var obj map[string]any
	readJSONFile(t, path, &obj)
	if obj["partition"] != "2d" || obj["grid"] != "7x1" || len(obj["rank_loads"].([]any)) != 7 || obj["load_imbalance"] == nil || obj["validated"] != true {
		t.Fatalf("JSON partition %v grid %v loads %v imbalance %v validated %v", obj["partition"], obj["grid"], obj["rank_loads"], obj["load_imbalance"], obj["validated"])
	}
	// A square rank count needs no note; a 1D run says "1d".
	if _, errOut := mustRun(t, "bfs", "--scale", "9", "--ranks", "4", "--roots", "2", "--partition", "2d", "--json", path); strings.Contains(errOut, "grid:") {
		t.Fatalf("stderr %q", errOut)
	}
	mustRun(t, "bfs", "--scale", "9", "--ranks", "2", "--roots", "2", "--json", path)
	data := readFile(t, path)
	if !strings.Contains(string(data), `"partition": "1d"`) || strings.Contains(string(data), `"grid"`) {
		t.Fatalf("1D JSON: %s", data)
	}
}

func TestBFS2DBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		flag string
	}{
		{[]string{"bfs", "--partition", "3d"}, "--partition"},
		{[]string{"bfs", "--grid", "2x2", "--ranks", "4"}, "--grid"},
		{[]string{"bfs", "--partition", "2d", "--grid", "2x2", "--ranks", "6"}, "--grid"},
		{[]string{"bfs", "--partition", "2d", "--grid", "two-by-two", "--ranks", "4"}, "--grid"},
		{[]string{"bfs", "--partition", "2d", "--grid", "0x4", "--ranks", "4"}, "--grid"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.flag) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line naming %s", c.args, code, errOut, out, c.flag)
		}
	}
}

// TestBFSShortFlags: the short flags a gapbs or Graph500 user types (-s
// scale, -e edge factor, -n keys, -r root, -o tree, -j JSON) mean what
// their long forms do.
func TestBFSShortFlags(t *testing.T) {
	dir := t.TempDir()
	short, _ := mustRun(t, "bfs", "-s", "9", "-e", "8", "-n", "3", "--no-validate")
	for _, want := range []string{"SCALE:                          9\n", "edgefactor:                     8\n", "NBFS:                           3\n"} {
		if !strings.Contains(short, want) {
			t.Errorf("bfs -s 9 -e 8 -n 3: output lacks %q:\n%s", want, short)
		}
	}
	shortTree, longTree := filepath.Join(dir, "short.txt"), filepath.Join(dir, "long.txt")
	mustRun(t, "bfs", "-s", "9", "-r", "4", "-o", shortTree, "-j", filepath.Join(dir, "run.json"))
	mustRun(t, "bfs", "--scale", "9", "--root", "4", "--out", longTree)
	if a, b := readFile(t, shortTree), readFile(t, longTree); len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("bfs -r 4 -o wrote %d bytes, --root 4 --out %d: the trees differ", len(a), len(b))
	}
	var rec map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "run.json")), &rec); err != nil || rec["SCALE"] != 9.0 {
		t.Errorf("bfs -j: %v, SCALE %v", err, rec["SCALE"])
	}
}
