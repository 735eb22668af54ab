package results

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestJSONRoundTrip(t *testing.T) {
	for name, r := range map[string]*Graph500Run{"validated": syntheticRun(), "skipped": skippedRun()} {
		t.Run(name, func(t *testing.T) {
			for i := range r.Searches {
				if r.Searches[i].Levels == nil {
					r.Searches[i].Levels = []Level{} // read back as an empty list
				}
				if r.ValidationSkipped {
					r.Searches[i].ValidateTime = -1 // reported as −1 when skipped
				}
			}
			var b bytes.Buffer
			if err := r.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			got, err := ReadRunJSON(&b)
			if err != nil {
				t.Fatal(err)
			}
			if !got.StartedAt.Equal(r.StartedAt) {
				t.Errorf("started_at %v, want %v", got.StartedAt, r.StartedAt)
			}
			got.StartedAt = r.StartedAt
			if !reflect.DeepEqual(got, r) {
				t.Errorf("round trip:\n%+v\nwant\n%+v", got, r)
			}
		})
	}
}

func TestJSONKeys(t *testing.T) {
	var b bytes.Buffer
	r := syntheticRun()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "}\n") || !strings.Contains(b.String(), "\n  \"SCALE\": 10,\n") {
		t.Errorf("JSON is not indented as expected:\n%s", b.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	wantTop := []string{"schema_version", "command", "graphrun_version", "started_at", "command_line", "SCALE", "edgefactor", "NBFS", "num_ranks",
		"threads", "seed", "exchange", "direction", "codec", "graph_generation", "construction_time", "harmonic_mean_TEPS",
		"validated", "validation_skipped", "comm_bytes", "comm_messages", "statistics", "searches",
		"validation_setup_time", "validate_bytes", "validate_messages",
		"construction_bytes", "construction_messages"}
	if got := sortedKeys(doc); !slices.Equal(got, sorted(wantTop)) {
		t.Errorf("top-level keys %v, want %v", got, sorted(wantTop))
	}
	if doc["schema_version"] != 2.0 || doc["started_at"] != "2025-03-04T05:06:07.891011121Z" || doc["exchange"] != "sieve" ||
		doc["validated"] != true || doc["NBFS"] != 8.0 || doc["comm_bytes"] != float64(1<<40) ||
		doc["validate_bytes"] != 560000.0 || doc["validate_messages"] != 72.0 {
		t.Errorf("unexpected values in %v", doc)
	}
	stats := doc["statistics"].(map[string]any)
	if got := sortedKeys(stats); !slices.Equal(got, []string{"TEPS", "nedge", "time", "validate"}) {
		t.Errorf("statistics keys %v", got)
	}
	seven := []string{"min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev"}
	for _, k := range []string{"time", "nedge", "validate"} {
		if got := sortedKeys(stats[k].(map[string]any)); !slices.Equal(got, sorted(seven)) {
			t.Errorf("statistics.%s keys %v", k, got)
		}
	}
	teps := stats["TEPS"].(map[string]any)
	if got := sortedKeys(teps); !slices.Equal(got, sorted(append(seven, "harmonic_mean", "harmonic_stddev"))) {
		t.Errorf("statistics.TEPS keys %v", got)
	}
	sum := r.Summary()
	if teps["harmonic_mean"] != sum.TEPS.HarmonicMean || doc["harmonic_mean_TEPS"] != sum.TEPS.HarmonicMean ||
		teps["min"] != sum.TEPS.Min || stats["nedge"].(map[string]any)["mean"] != 16204.625 {
		t.Errorf("statistics values differ from Summary: %v", stats)
	}
	s0 := doc["searches"].([]any)[0].(map[string]any)
	if got := sortedKeys(s0); !slices.Equal(got, sorted([]string{"root", "time", "nedge", "TEPS", "validate_time", "validated",
		"validate_bytes", "validate_messages", "levels"})) {
		t.Errorf("search keys %v", got)
	}
	if s0["TEPS"] != r.Searches[0].TEPS() || s0["validate_bytes"] != 70000.0 || s0["validate_messages"] != 9.0 {
		t.Errorf("search TEPS %v, want %v", s0["TEPS"], r.Searches[0].TEPS())
	}
	l1 := s0["levels"].([]any)[1].(map[string]any)
	if got := sortedKeys(l1); !slices.Equal(got, sorted([]string{"level", "frontier", "bytes", "messages", "time",
		"raw_bytes", "encoded_bytes", "traversing", "reducing", "communication", "compression_sieve"})) {
		t.Errorf("level keys %v", got)
	}
	if l1["level"] != 1.0 || l1["frontier"] != 40.0 || l1["bytes"] != 4096.0 {
		t.Errorf("level 1 = %v", l1)
	}
}

func TestJSONNonFiniteStatistics(t *testing.T) {
	r := syntheticRun()
	r.Searches[3].Time = 0 // TEPS = +Inf, max_TEPS = 1/0
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatalf("WriteJSON with an infinite TEPS: %v", err)
	}
	var doc struct {
		Statistics struct {
			TEPS map[string]*float64 `json:"TEPS"`
		} `json:"statistics"`
		Searches []map[string]any `json:"searches"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Statistics.TEPS["max"] != nil || doc.Searches[3]["TEPS"] != nil {
		t.Errorf("infinite TEPS not written as null:\n%s", b.String())
	}
	var f jsonFloat
	if err := json.Unmarshal([]byte("null"), &f); err != nil || !math.IsNaN(float64(f)) {
		t.Errorf("null read as %v, %v; want NaN", f, err)
	}
	if _, err := ReadRunJSON(&b); err != nil {
		t.Errorf("ReadRunJSON of a file with nulls: %v", err)
	}
}

func TestReadRunJSONErrors(t *testing.T) {
	var b bytes.Buffer
	if err := syntheticRun().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	for name, text := range map[string]string{
		"not JSON":       "SCALE: 10",
		"truncated":      good[:len(good)/2],
		"NBFS mismatch":  strings.Replace(good, `"NBFS": 8`, `"NBFS": 7`, 1),
		"wrong type":     strings.Replace(good, `"SCALE": 10`, `"SCALE": "ten"`, 1),
		"negative nedge": strings.Replace(good, `"nedge": 16384`, `"nedge": -16384`, 1),
	} {
		if text == good {
			t.Fatalf("%s: replacement did not apply", name)
		}
		if _, err := ReadRunJSON(strings.NewReader(text)); err == nil {
			t.Errorf("%s: ReadRunJSON accepted it", name)
		}
	}
	// Keys added by later versions are ignored.
	extra := strings.Replace(good, `"SCALE": 10`, `"future_key": [1, 2], "SCALE": 10`, 1)
	if _, err := ReadRunJSON(strings.NewReader(extra)); err != nil {
		t.Errorf("unknown key rejected: %v", err)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestJSONPartitionFields(t *testing.T) {
	r := syntheticRun()
	r.Partition, r.Grid = "2d", "2x2"
	r.RankLoads = []RankLoad{{Edges: 10, MemoryBytes: 100, BytesSent: 1000, Messages: 4, PeakMemoryBytes: 7 << 20},
		{Edges: 30, MemoryBytes: 100, BytesSent: 3000, Messages: 4, PeakMemoryBytes: 9 << 20}}
	r.PeakMemoryBytes, r.ConstructionBytes, r.ConstructionMessages = 9<<20, 12345, 6
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["partition"] != "2d" || doc["grid"] != "2x2" {
		t.Errorf("partition fields %v %v", doc["partition"], doc["grid"])
	}
	if _, ok := doc["validation_csr_time"]; ok {
		t.Error("a schema_version 2 record has validation_csr_time")
	}
	if doc["peak_memory_bytes"] != float64(9<<20) || doc["construction_bytes"] != 12345.0 || doc["construction_messages"] != 6.0 {
		t.Errorf("memory and kernel 1 fields %v %v %v", doc["peak_memory_bytes"], doc["construction_bytes"], doc["construction_messages"])
	}
	im := doc["load_imbalance"].(map[string]any)
	if im["edges"] != 1.5 || im["memory_bytes"] != 1.0 || im["bytes_sent"] != 1.5 || im["messages"] != 1.0 {
		t.Errorf("load_imbalance %v", im)
	}
	back, err := ReadRunJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Partition != "2d" || back.Grid != "2x2" || !slices.Equal(back.RankLoads, r.RankLoads) ||
		back.PeakMemoryBytes != r.PeakMemoryBytes || back.ConstructionBytes != 12345 || back.ConstructionMessages != 6 {
		t.Errorf("read back %q %q %v %d %d %d", back.Partition, back.Grid, back.RankLoads,
			back.PeakMemoryBytes, back.ConstructionBytes, back.ConstructionMessages)
	}
	var text strings.Builder
	if err := r.WriteBreakdown(&text); err != nil {
		t.Fatal(err)
	}
	if out := text.String(); !strings.Contains(out, "partition 2d, grid 2x2") ||
		!strings.Contains(out, "edges 30 20 1.500") || !strings.Contains(out, "messages 4 4 1.000") {
		t.Errorf("breakdown:\n%s", out)
	}
}
