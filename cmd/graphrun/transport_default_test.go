package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// exchangeOf reads the exchange, codec and exchange_defaulted of a bfs
// run's JSON.
func exchangeOf(t *testing.T, path string) (exchange, codec string, defaulted bool) {
	t.Helper()
	var run struct {
		Exchange  string `json:"exchange"`
		Codec     string `json:"codec"`
		Defaulted bool   `json:"exchange_defaulted"`
	}
	readJSONFile(t, path, &run)
	return run.Exchange, run.Codec, run.Defaulted
}

// TestBFSExchangeDefaultsToPackedOverProcesses: without
// --exchange or --algo, a job of processes runs the packed sieve with the
// auto codec and says so in one stderr line; in-process ranks keep
// allgather and say nothing; the JSON records the exchange and that it was
// defaulted. A given --exchange is kept, and not marked as defaulted. The
// searches are the same whichever exchange runs them.
func TestBFSExchangeDefaultsToPackedOverProcesses(t *testing.T) {
	clearJobEnv(t)
	dir := t.TempDir()
	common := []string{"bfs", "--scale", "10", "--roots", "8", "--threads", "1"}
	cases := []struct {
		name, json      string
		args            []string
		exchange, codec string
		defaulted, says bool
	}{
		{"procs", "procs.json", []string{"--procs", "2"}, "packed", "auto", true, true},
		{"procs, --codec wah", "procs-wah.json", []string{"--procs", "2", "--codec", "wah"}, "packed", "wah", true, true},
		{"procs, --exchange allgather", "procs-allgather.json", []string{"--procs", "2", "--exchange", "allgather"}, "allgather", "raw", false, false},
		{"procs, --algo BIT", "procs-bit.json", []string{"--procs", "2", "--algo", "BIT"}, "allgather", "raw", false, false},
		{"ranks", "ranks.json", []string{"--ranks", "2"}, "allgather", "raw", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.json)
			_, errOut := mustRun(t, append(append(common, tc.args...), "--json", path)...)
			line := "rank 0: graphrun: exchange: packed, codec " + tc.codec + " (the default for a job of processes; --exchange allgather for the in-process default)\n"
			if n := strings.Count(errOut, "graphrun: exchange:"); n != map[bool]int{false: 0, true: 1}[tc.says] ||
				tc.says && !strings.Contains(errOut, line) {
				t.Errorf("stderr says the exchange %d times, want it %v as %q:\n%s", n, tc.says, line, errOut)
			}
			exchange, codec, defaulted := exchangeOf(t, path)
			if exchange != tc.exchange || codec != tc.codec || defaulted != tc.defaulted {
				t.Errorf("JSON: exchange %s, codec %s, defaulted %v; want %s, %s, %v", exchange, codec, defaulted, tc.exchange, tc.codec, tc.defaulted)
			}
		})
	}
	want := searchShape(t, filepath.Join(dir, "ranks.json"))
	for _, f := range []string{"procs.json", "procs-wah.json", "procs-allgather.json", "procs-bit.json"} {
		if got := searchShape(t, filepath.Join(dir, f)); got != want {
			t.Errorf("%s: searches differ from --ranks 2's:\n%s\n%s", f, got, want)
		}
	}
}

// TestProcsListeningLinesOnlyWithVerbose: the processes --procs
// starts keep the addresses they listen on to themselves (three lines for
// two ranks: the coordinator's and each rank's) unless --verbose is given.
func TestProcsListeningLinesOnlyWithVerbose(t *testing.T) {
	clearJobEnv(t)
	args := []string{"bfs", "--scale", "8", "--roots", "2", "--threads", "1", "--procs", "2"}
	for _, verbose := range []bool{false, true} {
		a := args
		if verbose {
			a = append(a, "--verbose")
		}
		code, _, errOut := runCLI(t, a...)
		if code != 0 {
			t.Fatalf("--verbose %v: exit %d, stderr:\n%s", verbose, code, errOut)
		}
		want := 0
		if verbose {
			want = 3
		}
		if n := strings.Count(errOut, "listening"); n != want ||
			verbose && (!strings.Contains(errOut, "rank 0: graphrun: tcp: coordinator of job ") || !strings.Contains(errOut, "rank 1: graphrun: tcp: rank 1 of 2: listening for peers on 127.0.0.1:")) {
			t.Errorf("--verbose %v: %d listening lines, want %d:\n%s", verbose, n, want, errOut)
		}
	}
}
