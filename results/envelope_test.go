package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestEnvelopeKeys: a bfs and a pagerank JSON start with the same envelope
// keys; a pagerank file written before the envelope ("version") still
// reads.
func TestEnvelopeKeys(t *testing.T) {
	r := syntheticRun()
	r.Revision, r.StartedAt, r.CommandLine = "0123456789ab", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), []string{"graphrun", "bfs", "--scale", "12"}
	var bfs bytes.Buffer
	if err := r.WriteJSON(&bfs); err != nil {
		t.Fatal(err)
	}
	pr := PageRankRun{Envelope: Envelope{Command: "pagerank", Version: "0.1.0", Revision: "0123456789ab", StartedAt: r.StartedAt,
		CommandLine: []string{"graphrun", "pagerank", "g.el"}}, NumRanks: 1}
	prJSON, err := json.Marshal(pr)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"bfs": bfs.Bytes(), "pagerank": prJSON} {
		var env Envelope
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatal(err)
		}
		if env.Command != name || env.Version == "" || env.Revision != "0123456789ab" || !env.StartedAt.Equal(r.StartedAt) ||
			len(env.CommandLine) < 3 || env.CommandLine[1] != name {
			t.Errorf("%s envelope %+v", name, env)
		}
		if strings.Contains(string(data), `"version"`) {
			t.Errorf("%s JSON still has the old version key", name)
		}
	}
	back, err := ReadRunJSON(&bfs)
	if err != nil || strings.Join(back.CommandLine, " ") != "graphrun bfs --scale 12" || back.Revision != r.Revision {
		t.Fatalf("bfs read back: %v, %+v", err, back)
	}
	old, err := ReadPageRankJSON(strings.NewReader(`{"command":"pagerank","version":"0.1.0","num_ranks":4}`))
	if err != nil || old.Version != "0.1.0" {
		t.Fatalf("old pagerank JSON: %v, version %q", err, old.Version)
	}
	cur, err := ReadPageRankJSON(bytes.NewReader(prJSON))
	if err != nil || cur.Version != "0.1.0" || cur.CommandLine[2] != "g.el" {
		t.Fatalf("pagerank JSON: %v, %+v", err, cur)
	}
}
