package graph500

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recordEvents sets cfg.Progress to record the events it gets, as
// "stage step/steps" for a start and "stage step/steps end" for an end.
func recordEvents(cfg *Config) func() ([]string, []Event) {
	var mu sync.Mutex
	var names []string
	var events []Event
	cfg.Progress = func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		name := fmt.Sprintf("%v %d/%d", e.Stage, e.Step, e.Steps)
		if e.End {
			name += " end"
		}
		names, events = append(names, name), append(events, e)
	}
	return func() ([]string, []Event) { mu.Lock(); defer mu.Unlock(); return names, events }
}

// TestProgressEvents: rank 0 alone reports each step of a run as it
// starts and ends, a generated graph's generation with kernel 1's end, and
// each search's end with the search the report records.
func TestProgressEvents(t *testing.T) {
	cfg := testConfig(8, 3)
	cfg.NumRoots = 2
	got := recordEvents(&cfg)
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	names, events := got()
	want := "construct 0/1, generate 0/1 end, construct 0/1 end, " +
		"search 0/2, validate 0/2, search 0/2 end, search 1/2, validate 1/2, search 1/2 end"
	if s := strings.Join(names, ", "); s != want {
		t.Fatalf("events %s, want %s", s, want)
	}
	if events[1].Seconds != run.GenerationTime || events[2].Seconds != run.ConstructionTime {
		t.Errorf("generation and construction reported as %v s and %v s, the report has %v s and %v s",
			events[1].Seconds, events[2].Seconds, run.GenerationTime, run.ConstructionTime)
	}
	for i, e := range []Event{events[5], events[8]} {
		s, r := e.Search, run.Searches[i]
		if s == nil || e.Seconds != r.Time || s.Time != r.Time || s.NEdge != r.NEdge || s.ValidateTime != r.ValidateTime || !s.Validated {
			t.Errorf("search %d ended as %+v, the report has %+v", i, s, r)
		}
	}
}

// TestProgressEventsOfFile: a file's loading is its generation, reported
// as it ends, before kernel 1 starts.
func TestProgressEventsOfFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.txt")
	if err := os.WriteFile(path, []byte("0 1\n1 2\n2 3\n3 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fileConfig(t, path, 2, 1)
	got := recordEvents(&cfg.Config)
	run, err := RunFile(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	names, events := got()
	want := "generate 0/1, generate 0/1 end, construct 0/1, construct 0/1 end, search 0/1, validate 0/1, search 0/1 end"
	if s := strings.Join(names, ", "); s != want {
		t.Fatalf("events %s, want %s", s, want)
	}
	if events[1].Seconds != run.GenerationTime || events[3].Seconds != run.ConstructionTime {
		t.Errorf("loading and construction reported as %v s and %v s, the report has %v s and %v s",
			events[1].Seconds, events[3].Seconds, run.GenerationTime, run.ConstructionTime)
	}
}
