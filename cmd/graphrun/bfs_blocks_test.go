package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBFSBlocksPerRank: --blocks-per-rank with either --placement writes the
// 1D tree, on --no-permute input too; the JSON says the placement, the
// blocks per rank and the unpermuted labels, and stderr says the run is not
// Graph500-conforming.
func TestBFSBlocksPerRank(t *testing.T) {
	clearJobEnv(t) // --procs children act as graphrun
	dir := t.TempDir()
	for _, permute := range [][]string{nil, {"--no-permute"}} {
		want := filepath.Join(dir, "tree-1d")
		args := append([]string{"bfs", "--scale", "10", "--root", "3", "--ranks", "3", "--out", want}, permute...)
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		wantTree := readFile(t, want)
		// 4 ranks of 4 blocks run fused (4x4 blocks of 64-vertex pieces
		// over 2x2 processes), in-process and as processes; --no-fuse runs
		// the blocks one by one.
		for _, extra := range [][]string{
			{"--ranks", "4", "--blocks-per-rank", "4"},
			{"--procs", "4", "--blocks-per-rank", "4"},
			{"--ranks", "4", "--blocks-per-rank", "4", "--no-fuse"},
			{"--ranks", "3", "--blocks-per-rank", "2", "--placement", "round-robin", "--exchange", "packed"},
		} {
			path := filepath.Join(dir, "tree-blocks")
			args := append(append([]string{"bfs", "--scale", "10", "--root", "3", "--partition", "2d", "--out", path}, extra...), permute...)
			code, _, errOut := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errOut)
			}
			if got := strings.Contains(errOut, "not a Graph500-conforming run"); got != (permute != nil) {
				t.Fatalf("%v: the --no-permute note is %v in stderr:\n%s", args, got, errOut)
			}
			got := readFile(t, path)
			if !bytes.Equal(got, wantTree) {
				t.Fatalf("%v: the tree differs from the 1D tree", args)
			}
		}
	}
	path := filepath.Join(dir, "run.json")
	mustRun(t, "bfs", "--scale", "10", "--roots", "2", "--ranks", "4", "--partition", "2d", "--blocks-per-rank", "4", "--no-permute", "--json", path)
	var obj struct {
		Ranks      int    `json:"num_ranks"`
		Grid       string `json:"grid"`
		Blocks     int    `json:"blocks_per_rank"`
		Placement  string `json:"placement"`
		Fused      string `json:"fused"`
		Unpermuted bool   `json:"unpermuted_labels"`
		Validated  bool   `json:"validated"`
		Loads      []struct {
			Blocks  int     `json:"blocks"`
			Scanned int64   `json:"edges_scanned"`
			Busy    float64 `json:"busy_seconds"`
			Sent    int64   `json:"bytes_sent"`
			CPU     float64 `json:"cpu_seconds"`
		} `json:"rank_loads"`
	}
	readJSONFile(t, path, &obj)
	if obj.Ranks != 4 || obj.Grid != "4x4" || obj.Blocks != 4 || obj.Placement != "lshs" || len(strings.Fields(obj.Fused)) != 2 || !obj.Unpermuted || !obj.Validated || len(obj.Loads) != 4 {
		t.Fatalf("JSON: %+v", obj)
	}
	for r, l := range obj.Loads {
		// In-process ranks share the process's CPU time: none is reported.
		if l.Blocks < 1 || l.Scanned <= 0 || l.Busy <= 0 || l.CPU != 0 {
			t.Fatalf("rank %d load %+v", r, l)
		}
	}
}

// TestBFSCPUSecondsPerProcess: when every rank is a process, each reports
// the CPU time its process used in the searches, with one block per rank
// and with several.
func TestBFSCPUSecondsPerProcess(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	for _, extra := range [][]string{nil, {"--partition", "2d", "--blocks-per-rank", "2", "--no-permute"}} {
		path := filepath.Join(dir, "run.json")
		args := append([]string{"bfs", "--scale", "10", "--roots", "3", "--procs", "2", "--json", path}, extra...)
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var obj struct {
			Searches []struct {
				Time float64 `json:"time"`
			} `json:"searches"`
			Loads []struct {
				CPU float64 `json:"cpu_seconds"`
			} `json:"rank_loads"`
		}
		readJSONFile(t, path, &obj)
		if len(obj.Loads) != 2 {
			t.Fatalf("%v: %d rank loads, want 2", args, len(obj.Loads))
		}
		var searches float64
		for _, s := range obj.Searches {
			searches += s.Time
		}
		for r, l := range obj.Loads {
			// Positive, and not wall time summed over threads: a process
			// has 2 cores at most here, so it cannot use 50 × the
			// searches' time (a loose bound: the clock starts a little
			// before a search's timer and stops a little after).
			if l.CPU <= 0 || l.CPU > 50*searches+0.05 {
				t.Fatalf("%v: rank %d cpu_seconds %g (searches took %g s)", args, r, l.CPU, searches)
			}
		}
	}
}

func TestBFSBlocksBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		flag string
	}{
		{[]string{"bfs", "--blocks-per-rank", "2", "--ranks", "2"}, "--blocks-per-rank"},
		{[]string{"bfs", "--partition", "2d", "--blocks-per-rank", "0"}, "--blocks-per-rank"},
		{[]string{"bfs", "--partition", "2d", "--blocks-per-rank", "2", "--placement", "lpt"}, "--placement"},
		{[]string{"bfs", "--partition", "2d", "--blocks-per-rank", "2", "--ranks", "2", "--grid", "3x2"}, "--grid"},
		{[]string{"bfs", "--no-fuse"}, "--no-fuse"},
		{[]string{"bfs", "graph.edges", "--partition", "2d", "--blocks-per-rank", "4", "--no-fuse"}, "--no-fuse"},
		{[]string{"bfs", "--partition", "2d", "--blocks-per-rank", "4", "--ranks", "4", "--placement", "round-robin", "--no-fuse"}, "--no-fuse"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.flag) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line naming %s", c.args, code, errOut, out, c.flag)
		}
	}
}

// TestGenerateNoPermute: --no-permute writes other tuples than the default
// (the same as bfs --no-permute searches) and says it is not Graph500.
func TestGenerateNoPermute(t *testing.T) {
	dir := t.TempDir()
	var files [2][]byte
	for k, extra := range [][]string{nil, {"--no-permute"}} {
		path := filepath.Join(dir, "g.el")
		_, errOut := mustRun(t, append([]string{"generate", "--scale", "6", "-o", path}, extra...)...)
		if got := strings.Contains(errOut, "not a Graph500-conforming run"); got != (extra != nil) {
			t.Fatalf("%v: note %v in %q", extra, got, errOut)
		}
		var err error
		if files[k], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Equal(files[0], files[1]) || len(files[1]) == 0 {
		t.Fatal("--no-permute wrote the permuted tuples")
	}
}
