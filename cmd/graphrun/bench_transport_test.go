package main

import (
	"bytes"
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
	if !strings.Contains(b.String(), "minimum efficient message size: 64 KiB (the smallest size reaching 50% of the peak bandwidth)") ||
		!strings.Contains(b.String(), "peak bandwidth: 524.3 MB/s per rank with 1 MiB messages") {
		t.Fatalf("table:\n%s", b.String())
	}
}

var benchRowLine = regexp.MustCompile(`(?m)^\s+(\d+ (?:B|KiB|MiB))\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$`)

func TestBenchTransport(t *testing.T) {
	clearJobEnv(t)
	for _, args := range [][]string{{"--ranks", "3"}, {"--procs", "2"}} {
		code, out, errOut := runCLI(t, append([]string{"bench", "transport", "--sizes", "1K,16K", "--min-time", "5ms"}, args...)...)
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
	for _, args := range [][]string{{"--ranks", "1"}, {"--procs", "1"}, {"--min-time", "0s"}, {"extra"}} {
		code, _, errOut := runCLI(t, append([]string{"bench", "transport"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q", args, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "bench", "nosuch"); code != 2 || !strings.Contains(errOut, `unknown benchmark "nosuch"`) {
		t.Errorf("bench nosuch: exit %d, stderr %q", code, errOut)
	}
}
