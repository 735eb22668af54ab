package main

import (
	"strings"
	"testing"
)

// TestVersionFlag: graphrun --version and graphrun version print the same
// line, naming the version and the Go toolchain.
func TestVersionFlag(t *testing.T) {
	code, out, errOut := runCLI(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "graphrun "+version+" (") || !strings.Contains(out, "go1.") {
		t.Fatalf("--version: exit %d, %q, %q", code, out, errOut)
	}
	code, out2, _ := runCLI(t, "version")
	if code != 0 || out2 != out {
		t.Fatalf("version: exit %d, %q; --version printed %q", code, out2, out)
	}
}

// TestCompletion: the completion command writes a script for each shell,
// and the enumerated flags complete to their values, per command.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		if code, out, errOut := runCLI(t, "completion", shell); code != 0 || !strings.Contains(out, "graphrun") {
			t.Errorf("completion %s: exit %d, %d bytes, %q", shell, code, len(out), errOut)
		}
	}
	if code, out, errOut := runCLI(t, "completion", "tcsh"); code != 2 || out != "" || !strings.Contains(errOut, `"tcsh"`) {
		t.Errorf("completion tcsh: exit %d, stdout %q, stderr %q; want exit 2 naming the shell", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"bfs", "--exchange", ""}, []string{"allgather", "sieve", "packed", "push"}},
		{[]string{"bfs", "--codec", ""}, []string{"raw", "wah", "zlib-bs", "auto"}},
		{[]string{"bfs", "--algo", ""}, []string{"BIT", "DIR-WAH", "PDIR-ZLB-BS"}},
		{[]string{"bfs", "--direction", ""}, []string{"auto", "top-down", "bottom-up"}},
		{[]string{"bfs", "--partition", ""}, []string{"1d", "2d"}},
		{[]string{"bfs", "--transport", ""}, []string{"inproc", "tcp", "mpi"}},
		{[]string{"pagerank", "--partition", ""}, []string{"random-edge", "1d"}},
		{[]string{"pagerank", "--allreduce", ""}, []string{"kylix", "direct", "binary", "dense"}},
		{[]string{"pagerank", "--format", ""}, []string{"snap", "el", "wel", "mtx", "bel"}},
		{[]string{"generate", "--format", ""}, []string{"el", "bel"}},
	} {
		code, out, errOut := runCLI(t, append([]string{"__complete"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d, %q", c.args, code, errOut)
		}
		got := strings.Split(strings.TrimSpace(out), "\n")
		if len(got) == 0 || got[len(got)-1] != ":4" { // ShellCompDirectiveNoFileComp
			t.Errorf("%v: directive missing in %q", c.args, out)
		}
		for _, w := range c.want {
			if !strings.Contains("\n"+out, "\n"+w+"\n") {
				t.Errorf("%v: %q not offered: %q", c.args, w, out)
			}
		}
	}
	if _, out, _ := runCLI(t, "__complete", "generate", "--format", ""); strings.Contains(out, "mtx") {
		t.Errorf("generate --format offers pagerank's formats: %q", out)
	}
}
