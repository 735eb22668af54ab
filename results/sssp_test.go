package results

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// ssspRun is syntheticRun with kernel 3: each SSSP search takes twice its
// BFS search's time on the same component, and validates in the same time.
func ssspRun() *Graph500Run {
	r := syntheticRun()
	r.SSSP = &SSSPRun{Delta: 0.0625, WeightTime: 0.125, CommBytes: 1 << 30, CommMessages: 77}
	for i, s := range r.Searches {
		x := s
		x.Time *= 2
		x.Levels = nil
		r.SSSP.Searches = append(r.SSSP.Searches, SSSPSearch{Search: x, Buckets: 30 + i, Phases: 70 + i, Requests: 1000})
	}
	return r
}

// The text block carries the reference's sssp lines right after the bfs
// lines of the same kind: time, TEPS, validate; the BFS lines are as
// without kernel 3.
func TestWriteTextSSSPLines(t *testing.T) {
	var b strings.Builder
	if err := ssspRun().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	var bfsOnly []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "sssp ") {
			bfsOnly = append(bfsOnly, l)
		}
	}
	if got := strings.Join(bfsOnly, "\n") + "\n"; got != goldenText {
		t.Errorf("the BFS lines changed:\n%s", got)
	}
	if len(lines) != 34+21 {
		t.Fatalf("%d lines, want 55", len(lines))
	}
	after := map[string]string{
		"sssp min_time:":            "bfs  stddev_time:",
		"min_nedge:":                "sssp stddev_time:",
		"sssp min_TEPS:":            "bfs  harmonic_stddev_TEPS:",
		"bfs  min_validate:":        "sssp harmonic_stddev_TEPS:",
		"sssp min_validate:":        "bfs  stddev_validate:",
		"sssp harmonic_mean_TEPS: ": "sssp max_TEPS:",
	}
	value := map[string]string{}
	for i, l := range lines {
		name := strings.TrimRight(l[:32], " ")
		value[name] = l[32:]
		for first, prev := range after {
			if strings.HasPrefix(l, first) && !strings.HasPrefix(lines[i-1], prev) {
				t.Errorf("line %q follows %q, want %q", l, lines[i-1], prev)
			}
		}
	}
	if value["sssp min_time:"] != "0.0022" || value["sssp stddev_validate:"] != value["bfs  stddev_validate:"] {
		t.Errorf("sssp min_time %q, stddev_validate %q (bfs %q)", value["sssp min_time:"], value["sssp stddev_validate:"], value["bfs  stddev_validate:"])
	}
	bfs, _ := strconv.ParseFloat(strings.TrimSpace(value["bfs  harmonic_mean_TEPS:     !"]), 64)
	sssp, _ := strconv.ParseFloat(strings.TrimSpace(value["sssp harmonic_mean_TEPS:     !"]), 64)
	if math.Abs(sssp-bfs/2) > 1e-5*bfs {
		t.Errorf("sssp harmonic mean TEPS %v, want half of bfs's %v", sssp, bfs)
	}
}

// A run whose SSSP searches failed validation is invalid, as one whose BFS
// searches did; a run with fewer SSSP than BFS searches is inconsistent.
func TestSSSPValidityAndCheck(t *testing.T) {
	r := ssspRun()
	r.SSSP.Searches[3].Validated = false
	var b strings.Builder
	if err := r.WriteText(&b); err != nil || b.String() != InvalidRunText {
		t.Errorf("invalid SSSP search: %q, %v", b.String(), err)
	}
	r = ssspRun()
	r.SSSP.Searches = r.SSSP.Searches[:5]
	if err := r.Check(); err == nil {
		t.Error("Check accepted 5 SSSP searches for 8 BFS searches")
	}
	r = ssspRun()
	r.SSSP.Searches[0].Time = math.NaN()
	if err := r.Check(); err == nil {
		t.Error("Check accepted an SSSP search of NaN seconds")
	}
}

// The "sssp" object reads back to the same run; a run without kernel 3
// writes no "sssp" key.
func TestJSONSSSPRoundTrip(t *testing.T) {
	r := ssspRun()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"weight_construction_time": 0.125`) {
		t.Error("no weight_construction_time in the sssp object")
	}
	got, err := ReadRunJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.SSSP, r.SSSP) {
		t.Errorf("sssp round trip:\n%+v\nwant\n%+v", got.SSSP, r.SSSP)
	}
	b.Reset()
	if err := syntheticRun().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"sssp"`) {
		t.Error("a BFS-only run wrote an sssp key")
	}
}
