package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphrun/graphrun/graph/edgelist"
)

// smallGraph is a four-vertex edge list for the output tests.
const smallGraph = "10 20\n20 30\n30 10\n20 40\n"

// scoreLines is how many lines pagerank --out writes for smallGraph.
const scoreLines = 4

func lineCount(s string) int { return strings.Count(s, "\n") }

// assertEntries fails unless dir holds exactly names: no temporary file, no
// output of a refused command.
func assertEntries(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range entries {
		got[e.Name()] = true
	}
	for _, n := range names {
		if !got[n] {
			t.Fatalf("%s lacks %s (holds %v)", dir, n, entries)
		}
		delete(got, n)
	}
	if len(got) > 0 {
		t.Fatalf("%s holds unexpected entries %v", dir, got)
	}
}

// TestOutputThroughSymlinkKeepsLinkAndMode: --out through a symbolic link
// replaces the link's target, keeps the link and the target's 0600 mode.
func TestOutputThroughSymlinkKeepsLinkAndMode(t *testing.T) {
	dir := t.TempDir()
	graphPath := writeFile(t, filepath.Join(dir, "g.txt"), smallGraph)
	real, link := filepath.Join(dir, "real.tsv"), filepath.Join(dir, "link.tsv")
	if err := os.WriteFile(real, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.tsv", link); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "pagerank", graphPath, "--out", link)
	if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("--out replaced the symbolic link: %v %v", info, err)
	}
	data, err := os.ReadFile(real)
	if err != nil || lineCount(string(data)) != scoreLines {
		t.Fatalf("the link's target holds %q (%v)", data, err)
	}
	if info, _ := os.Stat(real); info.Mode().Perm() != 0o600 {
		t.Fatalf("the 0600 target came back %v", info.Mode().Perm())
	}
	assertEntries(t, dir, "g.txt", "real.tsv", "link.tsv")
}

// TestOutputToFIFO: --out on a FIFO writes into the pipe; the FIFO stays a
// FIFO.
func TestOutputToFIFO(t *testing.T) {
	dir := t.TempDir()
	graphPath := writeFile(t, filepath.Join(dir, "g.txt"), smallGraph)
	fifo := filepath.Join(dir, "scores.fifo")
	got := readFIFO(t, fifo)
	mustRun(t, "pagerank", graphPath, "--out", fifo)
	if s := waitFIFO(t, got); lineCount(s) != scoreLines {
		t.Fatalf("the FIFO's reader got %q", s)
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO is now %v (%v)", info.Mode(), err)
	}
	assertEntries(t, dir, "g.txt", "scores.fifo")
}

// readFIFO makes a FIFO at path and reads it until its last writer closes
// it, in the background: the channel gets what came through (or the
// error).
func readFIFO(t *testing.T, path string) <-chan string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b, err := os.ReadFile(path) // returns once the last writer closed it
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(b)
	}()
	return got
}

// waitFIFO waits, bounded, for what readFIFO read.
func waitFIFO(t *testing.T, got <-chan string) string {
	t.Helper()
	select {
	case s := <-got:
		return s
	case <-time.After(30 * time.Second):
		t.Fatal("nothing came through the FIFO")
		return ""
	}
}

// TestOutputsRefusedBeforeWork: every bad output is exit 2 naming the flag
// and the user's path, before the run, leaving nothing behind and the
// input untouched.
func TestOutputsRefusedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	graphPath := writeFile(t, filepath.Join(dir, "g.txt"), smallGraph)
	hard, soft, sub := filepath.Join(dir, "hard.txt"), filepath.Join(dir, "soft.txt"), filepath.Join(dir, "sub")
	if err := errors.Join(os.Link(graphPath, hard), os.Symlink("g.txt", soft), os.Mkdir(sub, 0o755)); err != nil {
		t.Fatal(err)
	}
	same := filepath.Join(dir, "same.json")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"out is the input", []string{"pagerank", graphPath, "--out", graphPath}, "--out: " + graphPath + ": is an input of this command"},
		{"out is a hard link to the input", []string{"pagerank", graphPath, "--out", hard}, "--out: " + hard + ": is the input file " + graphPath},
		{"out is a symlink to the input", []string{"pagerank", graphPath, "--out", soft}, "--out: " + soft + ": is the input file " + graphPath},
		{"json is the input", []string{"pagerank", graphPath, "--json", graphPath}, "--json: " + graphPath + ": is an input"},
		{"out is a directory", []string{"pagerank", graphPath, "--out", sub}, "--out: " + sub + ": is a directory"},
		{"bfs out is a directory", []string{"bfs", "--scale", "6", "--root", "1", "--out", sub}, "--out: " + sub + ": is a directory"},
		{"missing directory", []string{"pagerank", graphPath, "--out", filepath.Join(dir, "nope", "x.tsv")}, "--out: " + filepath.Join(dir, "nope", "x.tsv") + ": the directory " + filepath.Join(dir, "nope") + " does not exist"},
		{"two outputs one file", []string{"pagerank", graphPath, "--out", same, "--json", same}, "--json: " + same + ": the same file as --out"},
		{"profile and json one file", []string{"bfs", "--scale", "6", "--json", same, "--cpuprofile", same}, "--json: " + same + ": the same file as --cpuprofile"},
		{"two on stdout", []string{"pagerank", graphPath, "--json", "-", "--out", "-"}, "standard output is written by --"},
		{"plots is a file", []string{"pagerank", graphPath, "--plots", graphPath}, "--plots: " + graphPath + ": is not a folder"},
		{"report output is an input", []string{"report", graphPath, "-o", graphPath}, "--out: " + graphPath + ": is an input"},
		{"generate into a directory", []string{"generate", "--scale", "5", "--format", "el", "-o", sub}, "--out: " + sub + ": is a directory"},
		{"generate into a directory by its alias", []string{"generate", "--scale", "5", "--format", "el", "--output", sub}, "--output: " + sub + ": is a directory"},
		{"bench dir is a file", []string{"bench", "bfs-codecs", "--scale", "5", "--dir", graphPath}, "--dir: " + graphPath + ": is not a folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, errOut := runCLI(t, c.args...)
			if code != 2 || !strings.Contains(errOut, c.want) || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, errOut, c.want)
			}
			if strings.Count(errOut, "\n") != 1 || strings.Contains(errOut, ".tmp-") || strings.Contains(errOut, "graphrun-check") {
				t.Fatalf("stderr %q: want one line naming no temporary file", errOut)
			}
		})
	}
	assertEntries(t, dir, "g.txt", "hard.txt", "soft.txt", "sub")
	assertEntries(t, sub)
	if data, _ := os.ReadFile(graphPath); string(data) != smallGraph {
		t.Fatalf("the input now holds %q", data)
	}
}

// TestOutputsOnStdout: "-" writes an output to standard output (the text
// then goes to standard error) for pagerank --out, bfs --out and generate -o.
func TestOutputsOnStdout(t *testing.T) {
	graphPath := writeEdges(t, smallGraph)
	code, stdout, errOut := runCLI(t, "pagerank", graphPath, "--out", "-")
	if code != 0 || lineCount(stdout) != scoreLines || !strings.HasPrefix(stdout, "10\t") || !strings.Contains(errOut, "total rank:") {
		t.Fatalf("pagerank --out -: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	code, stdout, errOut = runCLI(t, "bfs", "--scale", "6", "--root", "1", "--out", "-")
	if code != 0 || lineCount(stdout) != 64 || !strings.Contains(errOut, "harmonic_mean_TEPS") {
		t.Fatalf("bfs --out -: exit %d, %d lines on stdout, stderr %q", code, lineCount(stdout), errOut)
	}
	for _, format := range []string{"", "bel"} {
		args := []string{"generate", "--scale", "5", "--edgefactor", "4", "-o", "-"}
		wantFormat := edgelist.EdgeListText
		if format != "" {
			args, wantFormat = append(args, "--format", format), format
		}
		code, stdout, errOut = runCLI(t, args...)
		if code != 0 {
			t.Fatalf("generate -o - %s: exit %d: %s", format, code, errOut)
		}
		edges, err := edgelist.ReadStream(context.Background(), strings.NewReader(stdout), "stdout", edgelist.EdgeFormat(wantFormat))
		if err != nil || len(edges) != 4<<5 {
			t.Fatalf("generate -o - %s: %d tuples read back, %v", format, len(edges), err)
		}
	}
}

// TestOutputsToDevNullAsUser writes every kind of output to /dev/null, as
// an ordinary user: the writes go into the device and it stays one. (Run
// as root, the writer of old replaced /dev/null by a regular file; this
// test therefore never runs graphrun as root on /dev/null but drops to
// the user nobody.)
func TestOutputsToDevNullAsUser(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "graphrun-devnull-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		// A copy of the test binary that the user nobody may run.
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data := readFile(t, exe)
		exe = filepath.Join(dir, "graphrun.test")
		if err := os.WriteFile(exe, data, 0o755); err != nil {
			t.Fatal(err)
		}
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	graphPath := writeFile(t, filepath.Join(dir, "g.txt"), smallGraph)
	for _, args := range [][]string{
		{"pagerank", graphPath, "--out", "/dev/null", "--json", "/dev/null"},
		{"bfs", "--scale", "6", "--root", "1", "--out", "/dev/null", "--json", "/dev/null", "--memprofile", "/dev/null"},
		{"generate", "--scale", "5", "-o", "/dev/null", "--format", "el"},
	} {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), asMain+"=1")
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%v: %v: %s", args, err, stderr.String())
		}
		info, err := os.Lstat("/dev/null")
		if err != nil || info.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("after %v /dev/null is %v (%v)", args, info.Mode(), err)
		}
	}
}
