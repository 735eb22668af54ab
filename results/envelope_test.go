package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestEnvelopeKeys: a bfs and a pagerank JSON start with the same envelope
// keys, schema_version first.
func TestEnvelopeKeys(t *testing.T) {
	r := syntheticRun()
	r.Revision, r.StartedAt, r.CommandLine = "0123456789ab", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), []string{"graphrun", "bfs", "graph.el"}
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
		if !strings.HasPrefix(strings.TrimLeft(string(data), "{ \n"), `"schema_version":`) || env.Schema != SchemaVersion {
			t.Errorf("%s JSON does not start with schema_version %d: %.60s", name, SchemaVersion, data)
		}
	}
	back, err := ReadRunJSON(&bfs)
	if err != nil || strings.Join(back.CommandLine, " ") != "graphrun bfs graph.el" || back.Revision != r.Revision {
		t.Fatalf("bfs read back: %v, %+v", err, back)
	}
	cur, err := ReadPageRankJSON(bytes.NewReader(prJSON))
	if err != nil || cur.Version != "0.1.0" || cur.CommandLine[2] != "g.el" {
		t.Fatalf("pagerank JSON: %v, %+v", err, cur)
	}
}

// TestSchemaVersion: a version 1 record (no schema_version) reads, without
// the keys only version 1 had; a record of a later version is refused, and
// one read and written again says SchemaVersion.
func TestSchemaVersion(t *testing.T) {
	v1, err := ReadPageRankJSON(strings.NewReader(`{"command":"pagerank","version":"0.1.0","num_ranks":4}`))
	if err != nil || v1.Schema != 0 || v1.Version != "" {
		t.Fatalf("version 1 pagerank record: %v, schema %d, version %q", err, v1.Schema, v1.Version)
	}
	again, err := json.Marshal(v1)
	if err != nil || !strings.HasPrefix(string(again), `{"schema_version":2,`) {
		t.Fatalf("written again: %v, %.40s", err, again)
	}
	for _, bad := range []string{`3`, `0`, `"2"`, `2.5`} {
		if _, err := ReadPageRankJSON(strings.NewReader(`{"schema_version":` + bad + `,"num_ranks":1}`)); err == nil || !strings.Contains(err.Error(), "schema_version") {
			t.Errorf("schema_version %s: %v", bad, err)
		}
	}
	var b bytes.Buffer
	if err := syntheticRun().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	later := strings.Replace(b.String(), `"schema_version": 2`, `"schema_version": 3`, 1)
	if _, err := ReadRunJSON(strings.NewReader(later)); err == nil || !strings.Contains(err.Error(), "schema_version 3") {
		t.Errorf("a version 3 bfs record: %v", err)
	}
	v1BFS := strings.Replace(b.String(), `"schema_version": 2,`, `"validation_csr_time": 0.5,`, 1)
	if r, err := ReadRunJSON(strings.NewReader(v1BFS)); err != nil || r.NBFS() != 8 {
		t.Errorf("a version 1 bfs record: %v", err)
	}
}
