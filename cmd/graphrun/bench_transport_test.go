package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/bench"
)

var benchRowLine = regexp.MustCompile(`(?m)^\| (\d+ (?:B|KiB|MiB)) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$`)

func TestBenchTransport(t *testing.T) {
	clearJobEnv(t)
	for _, args := range [][]string{{"--ranks", "3"}, {"--procs", "2"}} {
		code, out, errOut := runCLI(t, append([]string{"bench", "transport", "--sizes", "1Ki,16Ki", "--min-time", "5ms", "--dir", t.TempDir()}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, code, errOut)
		}
		rows := benchRowLine.FindAllStringSubmatch(out, -1)
		if len(rows) != 2 || rows[0][1] != "1 KiB" || rows[1][1] != "16 KiB" || !strings.Contains(out, "minimum efficient message size: ") {
			t.Fatalf("%v: output:\n%s", args, out)
		}
		want := "Alltoallv over 3 in-process ranks"
		if args[0] == "--procs" {
			want = "Alltoallv over tcp, 2 processes"
		}
		if !strings.HasPrefix(out, want) {
			t.Fatalf("%v: output does not start with %q:\n%s", args, want, out)
		}
	}
	file := writeFile(t, filepath.Join(t.TempDir(), "file"), "")
	for _, c := range []struct {
		args []string
		flag string // the flag the error must name, if any
	}{
		{[]string{"--ranks", "1"}, "--ranks"}, {[]string{"--procs", "1"}, "--procs"}, {[]string{"--min-time", "0s"}, "--min-time"}, {[]string{"extra"}, ""},
		{[]string{"--dir", file}, "--dir"}, {[]string{"--procs", "2", "--dir", file}, "--dir"},
		{[]string{"--threads", "2"}, "--threads"}, {[]string{"--elastic"}, "--elastic"},
	} {
		code, _, errOut := runCLI(t, append([]string{"bench", "transport", "--sizes", "1Ki", "--min-time", "1ms"}, c.args...)...)
		if code != 2 || c.flag != "" && !strings.HasPrefix(errOut, "graphrun: "+c.flag+": ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", c.args, code, errOut, c.flag)
		}
	}
	if code, _, errOut := runCLI(t, "bench", "nosuch"); code != 2 || !strings.Contains(errOut, `unknown benchmark "nosuch"`) {
		t.Errorf("bench nosuch: exit %d, stderr %q", code, errOut)
	}
}

// TestBenchTransportPrintsItsTable: the matrix prints its table and
// writes one JSON per message size and summary.json, in-process and with
// --procs, where rank 0 writes.
func TestBenchTransportPrintsItsTable(t *testing.T) {
	clearJobEnv(t)
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{{"--ranks", "3"}, {"--procs", "2"}} {
		code, stdout, errOut := runCLI(t, append([]string{"bench", "transport", "--sizes", "1Ki,16Ki", "--min-time", "5ms", "--dir", out}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if len(benchRowLine.FindAllString(stdout, -1)) != 2 || !strings.Contains(stdout, "| 16 KiB |") || !strings.Contains(errOut, "graphrun: bench transport [2/2] 16 KiB: ") {
			t.Fatalf("%v: stdout %q, stderr %q", args, stdout, errOut)
		}
	}
	var summary bench.TransportSummary
	readJSONFile(t, filepath.Join(out, "summary.json"), &summary)
	if summary.Ranks != 2 || summary.Transport != "tcp, 2 processes" || !slices.Equal(summary.Files, []string{"transport-p2-1Ki.json", "transport-p2-16Ki.json"}) ||
		summary.MinEfficientSize == 0 || summary.Command != "graphrun bench transport --procs 2 --sizes 1Ki,16Ki --min-time 5ms" {
		t.Fatalf("summary: %+v", summary)
	}
	for _, file := range append(summary.Files, "transport-p3-1Ki.json", "transport-p3-16Ki.json") {
		var run bench.TransportRun
		if readJSONFile(t, filepath.Join(out, file), &run); run.Calls < 2 || run.Seconds <= 0 || run.BandwidthPerRank <= 0 {
			t.Fatalf("%s: %+v", file, run)
		}
	}
}
