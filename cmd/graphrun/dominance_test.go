package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphrun/graphrun/results"
)

// TestBFSNotesADominatedHarmonicMean: when one search's component is tiny
// against the others', bfs keeps the Graph500 block as it is and says on
// stderr which search dominates the harmonic mean and why.
func TestBFSNotesADominatedHarmonicMean(t *testing.T) {
	run := &results.Graph500Run{Scale: 22, EdgeFactor: 16, NumRanks: 1, Threads: 1, Exchange: "allgather", Codec: "raw",
		Direction: "auto", ValidationSkipped: true}
	for i := range 4 {
		run.Searches = append(run.Searches, results.Search{Root: int64(i), NEdge: 67_000_000, Time: 0.07, ValidateTime: -1})
	}
	run.Searches[2] = results.Search{Root: 77, NEdge: 1, Time: 0.001, ValidateTime: -1}
	var text, stderr bytes.Buffer
	if err := writeBFSRun(&bfsFlags{}, run, &text, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "graphrun: note: search 2 (root 77) traversed a component of 1 edge against a median of 67 M") {
		t.Fatalf("stderr %q", stderr.String())
	}
	if !strings.Contains(text.String(), "harmonic_mean_TEPS:") || strings.Contains(text.String(), "note") {
		t.Fatalf("Graph500 block changed: %q", text.String())
	}
	run.Searches[2] = results.Search{Root: 77, NEdge: 66_000_000, Time: 0.07, ValidateTime: -1}
	stderr.Reset()
	if err := writeBFSRun(&bfsFlags{}, run, &text, &stderr); err != nil || strings.Contains(stderr.String(), "note") {
		t.Fatalf("an even run noted: %v, %q", err, stderr.String())
	}
}
