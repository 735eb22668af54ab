package main

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// allCommands is every command of graphrun, the root first, with the
// arguments that reach it ("bench", "transport").
func allCommands() map[string]*cobra.Command {
	cmds := map[string]*cobra.Command{}
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		cmds[strings.Join(path, " ")] = c
		for _, sub := range c.Commands() {
			walk(sub, append(slices.Clip(path), sub.Name()))
		}
	}
	walk(newRootCommand(io.Discard, io.Discard, &profileFlags{}), nil)
	return cmds
}

// TestHelpOfEveryCommand: every command has an Example, its --help has no
// line wider than helpWidth, and a subcommand's help ends pointing to the
// root's help for the global flags, which the root's help lists.
func TestHelpOfEveryCommand(t *testing.T) {
	for path, c := range allCommands() {
		if c.Example == "" {
			t.Errorf("graphrun %s has no Example", path)
		}
		args := append(strings.Fields(path), "--help")
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || stdout == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
			continue
		}
		for _, line := range strings.Split(stdout, "\n") {
			if n := len([]rune(line)); n > helpWidth {
				t.Errorf("%v: a line of %d characters: %q", args, n, line)
			}
		}
		last := strings.TrimSpace(stdout)[strings.LastIndex(strings.TrimSpace(stdout), "\n")+1:]
		if path != "" && last != "Global flags (--ranks, --threads, --procs, --transport, …): see graphrun --help" {
			t.Errorf("%v: the help ends with %q", args, last)
		}
		if path != "" && strings.Contains(stdout, "--coordinator") {
			t.Errorf("%v: the help repeats the global flags", args)
		}
	}
	_, stdout, _ := runCLI(t, "--help")
	for _, flag := range []string{"--ranks", "--threads", "--transport", "--procs", "--replicas", "--rank", "--size", "--coordinator",
		"--listen", "--peer-timeout", "--verbose", "--elastic", "--join", "--cpuprofile", "--memprofile"} {
		if !strings.Contains(stdout, flag+" ") {
			t.Errorf("graphrun --help lacks %s", flag)
		}
	}
}

// visibleFlags are the flags cmd's help lists.
func visibleFlags(cmd *cobra.Command) []string {
	var names []string
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	slices.Sort(names)
	return names
}

// TestVisibleFlags: bfs shows 15 flags and pagerank 12 (-h included), the
// experiment knobs hidden; the short flags a gapbs user types exist.
func TestVisibleFlags(t *testing.T) {
	cmds := allCommands()
	for _, c := range []struct {
		path  string
		want  []string
		short map[string]string
	}{
		{"bfs", []string{"codec", "directed", "edgefactor", "exchange", "force", "format", "help", "json", "no-validate", "out",
			"partition", "root", "roots", "scale", "seed"},
			map[string]string{"s": "scale", "e": "edgefactor", "n": "roots", "r": "root", "o": "out", "j": "json"}},
		{"pagerank", []string{"allreduce", "alpha", "format", "help", "iterations", "json", "kron", "max-iter", "out", "tol", "top", "undirected"},
			map[string]string{"o": "out", "j": "json", "t": "tol", "i": "max-iter"}},
		{"generate", nil, map[string]string{"o": "out", "s": "scale"}},
		{"convert", nil, map[string]string{"o": "out"}},
	} {
		cmd := cmds[c.path]
		cmd.InitDefaultHelpFlag()
		if got := visibleFlags(cmd); c.want != nil && !slices.Equal(got, c.want) {
			t.Errorf("%s shows %d flags %v, want %v", c.path, len(got), got, c.want)
		}
		for short, long := range c.short {
			if f := cmd.Flags().ShorthandLookup(short); f == nil || f.Name != long {
				t.Errorf("%s -%s is not --%s", c.path, short, long)
			}
		}
	}
	if n := len(visibleFlags(cmds["bfs"])); n > 15 {
		t.Errorf("bfs shows %d flags", n)
	}
	if n := len(visibleFlags(cmds["pagerank"])); n > 12 {
		t.Errorf("pagerank shows %d flags", n)
	}
}

// TestGlobalFlagsRefused: a command refuses, with exit 2 naming it, a
// global flag it does not use: job flags on the commands that run no
// ranks, --elastic and --join off pagerank, the transport off the benches
// that run in this process.
func TestGlobalFlagsRefused(t *testing.T) {
	clearJobEnv(t)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"generate", "-s", "4", "-o", "-", "--ranks", "2"}, "--ranks"},
		{[]string{"generate", "-s", "4", "-o", "-", "--procs", "2"}, "--procs"},
		{[]string{"convert", "x.el", "-o", "x.grb", "--threads", "2"}, "--threads"},
		{[]string{"report", "x.json", "-o", "x.html", "--transport", "tcp"}, "--transport"},
		{[]string{"version", "--ranks", "2"}, "--ranks"},
		{[]string{"bfs", "-s", "4", "--elastic"}, "--elastic"},
		{[]string{"bfs", "-s", "4", "--join"}, "--join"},
		{[]string{"bench", "bfs-codecs", "-s", "4", "--elastic"}, "--elastic"},
		{[]string{"bench", "bfs-codecs", "-s", "4", "--procs", "2"}, "--procs"},
		{[]string{"bench", "memory", "--threads", "2"}, "--threads"},
	} {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "graphrun: "+c.flag+": ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 naming %s", c.args, code, stdout, stderr, c.flag)
		}
	}
}

// TestHugeCountsNameTheirFlag: a count far beyond what a run can use is
// refused before any work, exit 2, naming its own flag (not the memory
// guard's --scale).
func TestHugeCountsNameTheirFlag(t *testing.T) {
	clearJobEnv(t)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"bfs", "-s", "10", "--partition", "2d", "--blocks-per-rank", "1000000000"}, "--blocks-per-rank"},
		{[]string{"bfs", "-s", "10", "--procs", "100000"}, "--procs"},
		{[]string{"bfs", "-s", "10", "--procs", "2", "--replicas", "100000"}, "--replicas"},
		{[]string{"bfs", "-s", "10", "--threads", "100000000"}, "--threads"},
	} {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "graphrun: "+c.flag+": ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 naming %s", c.args, code, stdout, stderr, c.flag)
		}
	}
}

// TestOutputAlias: generate and convert write with -o/--out, and --output
// stays accepted, named in its errors as typed.
func TestOutputAlias(t *testing.T) {
	for _, flag := range []string{"-o", "--out", "--output"} {
		code, stdout, stderr := runCLI(t, "generate", "-s", "3", "-e", "1", flag, "-")
		if code != 0 || len(strings.Split(strings.TrimSpace(stdout), "\n")) != 8 {
			t.Errorf("generate %s -: exit %d, stdout %q, stderr %q", flag, code, stdout, stderr)
		}
	}
	for _, flag := range []string{"out", "output"} {
		code, _, stderr := runCLI(t, "generate", "-s", "3", "--"+flag, filepath.Join(t.TempDir(), "x.txt"))
		if code != 2 || !strings.HasPrefix(stderr, "graphrun: --"+flag+": ") {
			t.Errorf("generate --%s x.txt: exit %d, stderr %q", flag, code, stderr)
		}
	}
}

// TestRankSweep: a bench's rank counts double from 1 (or 2) up to --ranks.
func TestRankSweep(t *testing.T) {
	for _, c := range []struct {
		first, n int
		want     string
	}{{1, 1, "1"}, {1, 4, "1,2,4"}, {1, 6, "1,2,4"}, {2, 16, "2,4,8,16"}, {2, 1, "1"}, {1, 0, "0"}} {
		if got := rankSweep(c.first, c.n); got != c.want {
			t.Errorf("rankSweep(%d, %d) = %q, want %q", c.first, c.n, got, c.want)
		}
	}
}
