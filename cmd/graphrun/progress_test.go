package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	bfsLine  = regexp.MustCompile(`^graphrun: BFS (\d+): (\S+) s, (\S+) TEPS, validated in (\S+) s$`)
	kernLine = regexp.MustCompile(`^graphrun: (generation|construction): (\S+) s$`)
	prLine   = regexp.MustCompile(`^graphrun: PageRank iteration (\d+): L1 (\S+), (\S+) s/iteration$`)
)

// noBar fails the test if a log holds a progress bar's escape codes or
// carriage returns.
func noBar(t *testing.T, errOut string) {
	t.Helper()
	if strings.ContainsAny(errOut, "\r\x1b") || strings.Contains(errOut, "iteration 1,") {
		t.Fatalf("a progress bar in a log: %q", errOut)
	}
}

// floats parses every string of s as a number, failing the test if one is
// not.
func floats(t *testing.T, line string, s ...string) {
	t.Helper()
	for _, v := range s {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
	}
}

// TestBFSProgressInLogs: a bfs run whose stderr is not a terminal prints
// a line for generation, one for construction and one per search with its
// time, TEPS and validation, in order (a single root's search too); the
// Graph500 block on stdout is what it is without them.
func TestBFSProgressInLogs(t *testing.T) {
	for _, c := range []struct {
		args     []string
		searches int
	}{
		{[]string{"bfs", "-s", "8", "-n", "3", "--ranks", "2"}, 3},
		{[]string{"bfs", "--scale", "8", "--root", "1"}, 1},
	} {
		out, errOut := mustRun(t, c.args...)
		noBar(t, errOut)
		if !strings.HasPrefix(out, "SCALE:") || strings.Contains(out, "graphrun: ") {
			t.Fatalf("%v: progress on stdout:\n%s", c.args, out)
		}
		var kernels []string
		searches := 0
		for _, l := range strings.Split(errOut, "\n") {
			if m := kernLine.FindStringSubmatch(l); m != nil {
				floats(t, l, m[2])
				kernels = append(kernels, m[1])
			} else if m := bfsLine.FindStringSubmatch(l); m != nil {
				floats(t, l, m[2], m[3], m[4])
				if m[1] != strconv.Itoa(searches) || len(kernels) != 2 {
					t.Fatalf("%v: line %q out of order:\n%s", c.args, l, errOut)
				}
				searches++
			}
		}
		if strings.Join(kernels, " ") != "generation construction" || searches != c.searches {
			t.Fatalf("%v: %v and %d search lines, want generation, construction and %d:\n%s", c.args, kernels, searches, c.searches, errOut)
		}
	}
}

// TestPageRankProgressInLogs: a pagerank run whose stderr is not a
// terminal prints no bar but a line for its last iteration (a short run
// has no batch before it), with its L1 change and time per iteration.
func TestPageRankProgressInLogs(t *testing.T) {
	out, errOut := mustRun(t, "pagerank", "--kron", "7", "--ranks", "2", "--iterations", "3")
	noBar(t, errOut)
	var lines []string
	for _, l := range strings.Split(errOut, "\n") {
		if m := prLine.FindStringSubmatch(l); m != nil {
			floats(t, l, m[2], m[3])
			lines = append(lines, m[1])
		}
	}
	if strings.Join(lines, " ") != "3" || strings.Contains(out, "PageRank iteration") {
		t.Fatalf("iteration lines for %v, want 3:\n%s", lines, errOut)
	}
}
