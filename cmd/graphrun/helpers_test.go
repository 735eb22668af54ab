package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/results"
)

// runCLI runs graphrun with args in this process and returns its exit
// status, standard output and standard error.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// mustRun is runCLI for a command line that must succeed: it fails the
// test on any other exit status and returns standard output and standard
// error.
func mustRun(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("graphrun %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout, stderr
}

// readFile is os.ReadFile, failing the test on an error.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// readRun reads the JSON of a bfs run (--json) at path.
func readRun(t *testing.T, path string) *results.Graph500Run {
	t.Helper()
	run, err := results.ReadRunJSON(bytes.NewReader(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// writeFile writes content to path, failing the test on an error, and
// returns path.
func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readJSONFile decodes the JSON file path into v.
func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal(readFile(t, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestFlagOf(t *testing.T) {
	for field, flag := range map[string]string{
		"BlocksPerRank": "blocks-per-rank", "Scale": "scale", "EdgeFactor": "edgefactor",
		"no-fuse": "no-fuse", "PeerTimeout": "peer-timeout", "MaxIter": "max-iter",
	} {
		if got := flagOf(field); got != flag {
			t.Errorf("flagOf(%q) = %q, want %q", field, got, flag)
		}
	}
}
