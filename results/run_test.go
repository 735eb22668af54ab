package results

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// syntheticRun is a fixed eight-search run; goldenText is what the Graph500
// reference's get_statistics and printf calls print for it (checked with gcc
// and glibc).
func syntheticRun() *Graph500Run {
	times := []float64{0.00123, 0.00234, 0.0011, 0.004, 0.0025, 0.0019, 0.00301, 0.0015}
	nedges := []int64{16384, 16000, 16200, 15872, 16368, 16322, 16111, 16380}
	vals := []float64{0.0101, 0.0099, 0.0120, 0.0105, 0.0111, 0.0098, 0.0102, 0.0130}
	r := &Graph500Run{
		Scale:               10,
		EdgeFactor:          16,
		NumRanks:            4,
		Threads:             2,
		Seed:                0xdeadbeefcafe1234,
		Exchange:            "sieve",
		GenerationTime:      0.0123456,
		ConstructionTime:    0.456789,
		CommBytes:           1 << 40,
		CommMessages:        123456,
		ValidationSetupTime: 0.0321,
		ValidateBytes:       8 * 70000,
		ValidateMessages:    8 * 9,
		Version:             "v0.1.0-test",
		StartedAt:           time.Date(2025, 3, 4, 5, 6, 7, 891011121, time.UTC),
	}
	for i := range times {
		r.Searches = append(r.Searches, Search{
			Root:             int64(i*97 + 3),
			Time:             times[i],
			ValidateTime:     vals[i],
			NEdge:            nedges[i],
			Validated:        true,
			ValidateBytes:    70000,
			ValidateMessages: 9,
			Levels: []Level{
				{Level: 0, Frontier: 1, Bytes: 64, Messages: 3, Time: times[i] / 4},
				{Level: 1, Frontier: int64(40 + i), Bytes: 4096, Messages: 12, Time: times[i] / 2},
				{Level: 2, Frontier: 900, Bytes: 1 << 20, Messages: 12, Time: times[i] / 4},
			},
		})
	}
	return r
}

const goldenText = `SCALE:                          10
edgefactor:                     16
NBFS:                           8
graph_generation:               0.0123456
num_mpi_processes:              4
construction_time:              0.456789
bfs  min_time:                  0.0011
bfs  firstquartile_time:        0.001365
bfs  median_time:               0.00212
bfs  thirdquartile_time:        0.002755
bfs  max_time:                  0.004
bfs  mean_time:                 0.0021975
bfs  stddev_time:               0.000981002
min_nedge:                      15872
firstquartile_nedge:            16055.5
median_nedge:                   16261
thirdquartile_nedge:            16374
max_nedge:                      16384
mean_nedge:                     16204.625
stddev_nedge:                   194.45817582
bfs  min_TEPS:                  3.968e+06
bfs  firstquartile_TEPS:        5.88987e+06
bfs  median_TEPS:               7.61448e+06
bfs  thirdquartile_TEPS:        1.20013e+07
bfs  max_TEPS:                  1.47273e+07
bfs  harmonic_mean_TEPS:     !  7.34761e+06
bfs  harmonic_stddev_TEPS:      1.27046e+06
bfs  min_validate:              0.0098
bfs  firstquartile_validate:    0.01
bfs  median_validate:           0.01035
bfs  thirdquartile_validate:    0.01155
bfs  max_validate:              0.013
bfs  mean_validate:             0.010825
bfs  stddev_validate:           0.00114111
`

// goldenSkipped is the reference's output for a three-search run without
// validation, whose validate times are all −1.
const goldenSkipped = `SCALE:                          20
edgefactor:                     32
NBFS:                           3
graph_generation:               123.5
num_mpi_processes:              16
construction_time:              45.25
bfs  min_time:                  0.75
bfs  firstquartile_time:        0.75
bfs  median_time:               1.5
bfs  thirdquartile_time:        2.25
bfs  max_time:                  2.25
bfs  mean_time:                 1.5
bfs  stddev_time:               0.75
min_nedge:                      30000001
firstquartile_nedge:            30000001
median_nedge:                   33554000
thirdquartile_nedge:            33554432
max_nedge:                      33554432
mean_nedge:                     32369477.667
stddev_nedge:                   2052026.9984
bfs  min_TEPS:                  1.49129e+07
bfs  firstquartile_TEPS:        1.49129e+07
bfs  median_TEPS:               2.23696e+07
bfs  thirdquartile_TEPS:        4e+07
bfs  max_TEPS:                  4e+07
bfs  harmonic_mean_TEPS:     !  2.19363e+07
bfs  harmonic_stddev_TEPS:      7.15975e+06
bfs  min_validate:              -1
bfs  firstquartile_validate:    -1
bfs  median_validate:           -1
bfs  thirdquartile_validate:    -1
bfs  max_validate:              -1
bfs  mean_validate:             -1
bfs  stddev_validate:           0
`

func skippedRun() *Graph500Run {
	return &Graph500Run{
		Scale: 20, EdgeFactor: 32, NumRanks: 16, Threads: 1,
		GenerationTime: 123.5, ConstructionTime: 45.25,
		ValidationSkipped: true,
		Searches: []Search{
			{Root: 1, Time: 1.5, NEdge: 33554432, ValidateTime: 0.3},
			{Root: 2, Time: 2.25, NEdge: 33554000},
			{Root: 3, Time: 0.75, NEdge: 30000001},
		},
	}
}

// TestWriteTextGolden: WriteText of a validated run and of one whose
// validation was skipped is the golden text, byte for byte.
func TestWriteTextGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		run    *Graph500Run
		golden string
	}{
		{"validated", syntheticRun(), goldenText},
		{"validation skipped", skippedRun(), goldenSkipped},
	} {
		var b strings.Builder
		if err := tc.run.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tc.golden {
			t.Errorf("WriteText, %s:\n%s\nwant:\n%s", tc.name, got, tc.golden)
		}
	}
}

func TestWriteTextLayout(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(goldenText, "\n"), "\n")
	if len(lines) != 34 {
		t.Fatalf("golden has %d lines, want 34", len(lines))
	}
	for _, l := range lines {
		if len(l) <= 32 || l[31] != ' ' || l[32] == ' ' {
			t.Errorf("value of %q does not start in column 33", l)
		}
	}
}

func TestWriteTextInvalidRun(t *testing.T) {
	r := syntheticRun()
	r.Searches[5].Validated = false
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "No results printed for invalid run.\n" {
		t.Errorf("WriteText of an invalid run = %q", got)
	}
}

func TestWriteTextSingleSearch(t *testing.T) {
	r := &Graph500Run{Scale: 1, EdgeFactor: 1, NumRanks: 1,
		Searches: []Search{{Time: 0.5, NEdge: 3, ValidateTime: 0.25, Validated: true}}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"bfs  stddev_time:               0\n",
		"stddev_nedge:                   0\n",
		"bfs  harmonic_mean_TEPS:     !  6\n",
		"bfs  harmonic_stddev_TEPS:      0\n",
		"bfs  stddev_validate:           0\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteErrorsWrapped(t *testing.T) {
	if err := syntheticRun().WriteText(failWriter{}); !errors.Is(err, errWrite) {
		t.Errorf("WriteText error %v does not wrap the writer's", err)
	}
	if err := syntheticRun().WriteJSON(failWriter{}); !errors.Is(err, errWrite) {
		t.Errorf("WriteJSON error %v does not wrap the writer's", err)
	}
}

func TestCheck(t *testing.T) {
	if err := syntheticRun().Check(); err != nil {
		t.Fatalf("Check of a good run: %v", err)
	}
	for name, break_ := range map[string]func(*Graph500Run){
		"no searches":           func(r *Graph500Run) { r.Searches = nil },
		"zero ranks":            func(r *Graph500Run) { r.NumRanks = 0 },
		"negative scale":        func(r *Graph500Run) { r.Scale = -1 },
		"negative comm bytes":   func(r *Graph500Run) { r.CommBytes = -1 },
		"NaN generation":        func(r *Graph500Run) { r.GenerationTime = math.NaN() },
		"infinite construction": func(r *Graph500Run) { r.ConstructionTime = math.Inf(1) },
		"negative search time":  func(r *Graph500Run) { r.Searches[2].Time = -1 },
		"NaN validate time":     func(r *Graph500Run) { r.Searches[2].ValidateTime = math.NaN() },
		"negative nedge":        func(r *Graph500Run) { r.Searches[0].NEdge = -5 },
		"negative level bytes":  func(r *Graph500Run) { r.Searches[0].Levels[1].Bytes = -1 },
		"NaN level time":        func(r *Graph500Run) { r.Searches[0].Levels[1].Time = math.NaN() },
		"validated but skipped": func(r *Graph500Run) { r.ValidationSkipped = true },
	} {
		r := syntheticRun()
		break_(r)
		if err := r.Check(); err == nil {
			t.Errorf("%s: Check accepted the run", name)
		}
		if err := r.WriteText(&strings.Builder{}); err == nil {
			t.Errorf("%s: WriteText accepted the run", name)
		}
	}
}

func TestValidated(t *testing.T) {
	if !syntheticRun().Validated() {
		t.Error("all searches passed but Validated is false")
	}
	if skippedRun().Validated() {
		t.Error("validation skipped but Validated is true")
	}
	r := syntheticRun()
	r.Searches[7].Validated = false
	if r.Validated() {
		t.Error("a search failed but Validated is true")
	}
}

// TestPeakMemoryLine: the peak in MB or GB, per tuple read (or, for a
// generated graph, per tuple of its scale and edge factor); with several
// processes the job's sum, per tuple, and the largest process; nothing
// when unknown.
func TestPeakMemoryLine(t *testing.T) {
	r := &Graph500Run{Scale: 10, EdgeFactor: 16}
	if got := r.PeakMemoryLine(); got != "" {
		t.Fatalf("unknown peak: %q", got)
	}
	r.PeakMemoryBytes = 16384 * 100
	if got, want := r.PeakMemoryLine(), "graphrun: peak memory 1.6 MB (100.0 bytes per tuple)\n"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	r.PeakMemoryBytes, r.Tuples = 2e9, 1e6
	if got, want := r.PeakMemoryLine(), "graphrun: peak memory 2.00 GB (2000.0 bytes per tuple)\n"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	r.JobPeakMemoryBytes, r.Processes = 7e9, 4
	want := "graphrun: peak memory 7.00 GB, the sum over the job's 4 processes (7000.0 bytes per tuple); the largest process 2.00 GB\n"
	if got := r.PeakMemoryLine(); got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
