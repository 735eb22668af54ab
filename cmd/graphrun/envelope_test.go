package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/graphrun/graphrun/results"
)

// TestJSONEnvelope: bfs --json and pagerank --json carry the same envelope:
// the command, graphrun's version, when it started and the command line.
func TestJSONEnvelope(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"bfs", "--scale", "6", "--roots", "2", "--json", filepath.Join(dir, "bfs.json")},
		{"pagerank", "--kron", "6", "--iterations", "2", "--json", filepath.Join(dir, "pagerank.json")},
	} {
		before := time.Now()
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		data := readFile(t, args[len(args)-1])
		var env results.Envelope
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatal(err)
		}
		if env.Command != args[0] || env.Version != version || env.StartedAt.Before(before.Add(-time.Second)) ||
			!slices.Equal(env.CommandLine, append([]string{"graphrun"}, args...)) {
			t.Errorf("%s: envelope %+v", args[0], env)
		}
	}
}
