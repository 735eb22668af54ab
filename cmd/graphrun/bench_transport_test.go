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

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("1, 1K,64kb, 1MiB,16M,1g")
	if want := []int{1, 1 << 10, 64 << 10, 1 << 20, 16 << 20, 1 << 30}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "0", "-1K", "1T", "2G", "K", "1K,,2K", "x"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for n, want := range map[int]string{1: "1 B", 1000: "1000 B", 1024: "1 KiB", 1536: "1536 B", 16 << 20: "16 MiB", 1 << 30: "1 GiB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int]string{256: "256", 1024: "1K", 1536: "1536", 16 << 20: "16M", 1 << 30: "1G"} {
		if got := sizeToken(n); got != want {
			t.Errorf("sizeToken(%d) = %q, want %q", n, got, want)
		}
		if back, err := parseSizes(want); err != nil || back[0] != n {
			t.Errorf("parseSizes(%q) = %v, %v; want %d", want, back, err, n)
		}
	}
	// The default sizes are written as they are given.
	sizes, err := parseSizes(defaultBenchSizes)
	if err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for _, n := range sizes {
		tokens = append(tokens, sizeToken(n))
	}
	if got := strings.Join(tokens, ","); got != defaultBenchSizes {
		t.Errorf("default sizes written as %q, want %q", got, defaultBenchSizes)
	}
}

func TestEfficientSize(t *testing.T) {
	// Bandwidth per rank with 3 ranks: 2·size/seconds.
	rows := []benchRow{
		{size: 1 << 10, seconds: 2e-5},  // 102 MB/s
		{size: 64 << 10, seconds: 4e-4}, // 328 MB/s
		{size: 1 << 20, seconds: 4e-3},  // 524 MB/s: peak
		{size: 4 << 20, seconds: 2e-2},  // 419 MB/s
	}
	peak, eff := efficientSize(rows, 3)
	if peak != 2 || eff != 1 {
		t.Fatalf("peak %d, efficient %d; want 2, 1", peak, eff)
	}
	// Order does not matter: the smallest size reaching half the peak.
	slices.Reverse(rows)
	if peak, eff = efficientSize(rows, 3); peak != 1 || eff != 2 {
		t.Fatalf("reversed: peak %d, efficient %d; want 1, 2", peak, eff)
	}
	var b bytes.Buffer
	if err := writeBenchTable(&b, "test", 3, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n- minimum efficient message size: 64 KiB (the smallest size reaching 50% of the peak bandwidth)\n") ||
		!strings.Contains(b.String(), "\n- peak bandwidth: 524.3 MB/s per rank with 1 MiB messages\n") ||
		!strings.Contains(b.String(), "| 64 KiB | 0 | 400.0 | 327.7 | 983.0 |\n") {
		t.Fatalf("table:\n%s", b.String())
	}
}

var benchRowLine = regexp.MustCompile(`(?m)^\| (\d+ (?:B|KiB|MiB)) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$`)

func TestBenchTransport(t *testing.T) {
	clearJobEnv(t)
	for _, args := range [][]string{{"--ranks", "3"}, {"--procs", "2"}} {
		code, out, errOut := runCLI(t, append([]string{"bench", "transport", "--sizes", "1K,16K", "--min-time", "5ms", "--dir", t.TempDir(), "--doc", ""}, args...)...)
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
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		flag string // the flag the error must name, if any
	}{
		{[]string{"--ranks", "1"}, "--ranks"}, {[]string{"--procs", "1"}, "--procs"}, {[]string{"--min-time", "0s"}, "--min-time"}, {[]string{"extra"}, ""},
		{[]string{"--doc", "/nonexistent/dir/B.md"}, "--doc"}, {[]string{"--procs", "2", "--doc", "/nonexistent/dir/B.md"}, "--doc"},
		{[]string{"--doc", dir}, "--doc"}, {[]string{"--dir", ""}, "--dir"},
	} {
		code, _, errOut := runCLI(t, append([]string{"bench", "transport", "--sizes", "1K", "--min-time", "1ms"}, c.args...)...)
		if code != 2 || c.flag != "" && !strings.HasPrefix(errOut, "graphrun: "+c.flag+": ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", c.args, code, errOut, c.flag)
		}
	}
	if code, _, errOut := runCLI(t, "bench", "nosuch"); code != 2 || !strings.Contains(errOut, `unknown benchmark "nosuch"`) {
		t.Errorf("bench nosuch: exit %d, stderr %q", code, errOut)
	}
}

// TestBenchTransportRegeneratesItsTable: the matrix writes one JSON per
// message size and summary.json, regenerates its table in place on a rerun,
// and keeps the tables of in-process ranks and of --procs apart; with
// --procs rank 0 writes.
func TestBenchTransportRegeneratesItsTable(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	doc := filepath.Join(dir, "BENCH.md")
	if err := os.WriteFile(doc, []byte("# Benchmarks\n\nkept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{{"--ranks", "3"}, {"--ranks", "3"}, {"--procs", "2"}} {
		code, stdout, errOut := runCLI(t, append([]string{"bench", "transport", "--sizes", "1K,16K", "--min-time", "5ms", "--dir", out, "--doc", doc}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if len(benchRowLine.FindAllString(stdout, -1)) != 2 || !strings.Contains(errOut, "graphrun: bench transport [2/2] 16 KiB: ") {
			t.Fatalf("%v: stdout %q, stderr %q", args, stdout, errOut)
		}
	}
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{
		"### `graphrun bench transport --ranks 3 --sizes 1K,16K --min-time 5ms`\n\n<!-- bench:transport ranks=3 sizes=1K,16K min-time=5ms -->\n" +
			"Regenerated by the command above on ",
		"### `graphrun bench transport --procs 2 --sizes 1K,16K --min-time 5ms`\n\n<!-- bench:transport procs=2 sizes=1K,16K min-time=5ms -->\n",
		"<!-- end bench:transport ranks=3 sizes=1K,16K min-time=5ms -->\n",
		"(tcp, 2 processes; `uptime` load average ",
	} {
		if strings.Count(text, want) != 1 {
			t.Errorf("want once %q in:\n%s", want, text)
		}
	}
	if !strings.HasPrefix(text, "# Benchmarks\n\nkept\n") || strings.Count(text, "| 16 KiB |") != 2 {
		t.Fatalf("regenerated file:\n%s", text)
	}
	var summary benchTransportSummary
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &summary); err != nil {
		t.Fatal(err)
	}
	if summary.Ranks != 2 || summary.Transport != "tcp, 2 processes" || !slices.Equal(summary.Files, []string{"transport-p2-1K.json", "transport-p2-16K.json"}) ||
		summary.MinEfficientSize == 0 || summary.Command != "graphrun bench transport --procs 2 --sizes 1K,16K --min-time 5ms" {
		t.Fatalf("summary: %+v", summary)
	}
	for _, file := range append(summary.Files, "transport-p3-1K.json", "transport-p3-16K.json") {
		raw, err := os.ReadFile(filepath.Join(out, file))
		if err != nil {
			t.Fatal(err)
		}
		var run benchTransportRun
		if err := json.Unmarshal(raw, &run); err != nil || run.Calls < 2 || run.Seconds <= 0 || run.BandwidthPerRank <= 0 {
			t.Fatalf("%s: %+v, %v", file, run, err)
		}
	}
}
