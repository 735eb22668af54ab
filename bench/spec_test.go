package bench

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/units"
)

// TestParseCounts: the dense matrix's sizes take counts in the unit
// syntax of internal/units, and the keys' vector lengths read
// back to the same counts.
func TestParseCounts(t *testing.T) {
	got, err := ParseCounts("1e4, 100,2.5e6,1e8,10k,64Ki")
	if want := []int{10000, 100, 2500000, 100000000, 10000, 65536}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("ParseCounts: %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "0", "-5", "1.5", "1e13", "x", "1,,2"} {
		if _, err := ParseCounts(bad); err == nil {
			t.Errorf("ParseCounts(%q) accepted", bad)
		}
	}
	for _, n := range []int{10000, 10000000, 2500000, 100, 10, 7, 1234} {
		if back, err := ParseCounts(FormatElements(n)); err != nil || back[0] != n {
			t.Errorf("ParseCounts(FormatElements(%d)) = %v, %v", n, back, err)
		}
	}
}

// TestParseSizes: the transport matrix's sizes take the unit syntax of
// internal/units (1Ki = 1024, 1k = 1000), and the default sizes are written
// back in keys and file names as they are given.
func TestParseSizes(t *testing.T) {
	got, err := ParseSizes("1, 1Ki,64KiB, 1MiB,16Mi,1Gi,1k,2MB")
	if want := []int{1, 1 << 10, 64 << 10, 1 << 20, 16 << 20, 1 << 30, 1000, 2000000}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "0", "-1Ki", "1Ti", "2Gi", "K", "1Ki,,2Ki", "x", "1.5"} {
		if _, err := ParseSizes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	sizes, err := ParseSizes(DefaultTransportSizes)
	if err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for _, n := range sizes {
		tokens = append(tokens, units.FormatBytes(int64(n)))
	}
	if got := strings.Join(tokens, ","); got != DefaultTransportSizes || sizes[1] != 1024 {
		t.Errorf("default sizes %v written as %q, want %q", sizes, got, DefaultTransportSizes)
	}
}

// TestParseIntList: a range A-B or a comma-separated list.
func TestParseIntList(t *testing.T) {
	for in, want := range map[string][]int{"18-20": {18, 19, 20}, "1, 2,4": {1, 2, 4}, "7": {7}, " 3 - 3": {3}} {
		if got, err := ParseIntList(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseIntList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "4-2", "a-b", "1,,2", "x"} {
		if _, err := ParseIntList(bad); err == nil {
			t.Errorf("ParseIntList(%q) accepted", bad)
		}
	}
}

// defaultDense is bench allreduce-dense's defaults.
func defaultDense() DenseSpec {
	return DenseSpec{Ranks: "2,4,8,16", Sizes: "1e4,1e5,1e6,1e7", Algorithms: "tree,butterfly,hypercube-unsplittable,hypercube-chunked",
		Repeat: 5, Stat: "median", Workers: 1, Pieces: 1, LinkLatency: 50 * time.Microsecond}
}

// TestSpecsNameTheFieldAtFault: every bad setting of a matrix is refused
// with a fielderr.Error naming the Spec's field, which a command line maps
// to its own option.
func TestSpecsNameTheFieldAtFault(t *testing.T) {
	dense := func(change func(*DenseSpec)) error {
		s := defaultDense()
		change(&s)
		_, err := s.Parse()
		return err
	}
	transport := func(change func(*TransportSpec)) error {
		s := TransportSpec{Ranks: 2, Sizes: DefaultTransportSizes, MinTime: time.Second}
		change(&s)
		_, err := s.Parse()
		return err
	}
	memory := func(change func(*MemorySpec)) error {
		s := MemorySpec{Scales: "18-24", Ranks: "1,2,4", Kinds: "bfs,bfs-2d,pagerank", Roots: 4}
		change(&s)
		_, err := s.Parse()
		return err
	}
	allreduce := func(change func(*PageRankAllreduceSpec)) error {
		s := PageRankAllreduceSpec{Scale: 16, Ranks: 64, Iterations: 5}
		change(&s)
		_, err := s.Parse()
		return err
	}
	speed := func(change func(*PageRankSpeedSpec)) error {
		s := PageRankSpeedSpec{Scales: "20,22", Ranks: "1,2", Iterations: 20}
		change(&s)
		_, err := s.Parse()
		return err
	}
	for _, tc := range []struct {
		name, field string
		err         error
	}{
		{"dense defaults", "", dense(func(*DenseSpec) {})},
		{"dense sizes", "Sizes", dense(func(s *DenseSpec) { s.Sizes = "0" })},
		{"dense ranks", "Ranks", dense(func(s *DenseSpec) { s.Ranks = "x" })},
		{"dense ranks ceiling", "Ranks", dense(func(s *DenseSpec) { s.Ranks = "2,100000" })},
		{"dense algorithms", "Algorithms", dense(func(s *DenseSpec) { s.Algorithms = "ring" })},
		{"dense repeat", "Repeat", dense(func(s *DenseSpec) { s.Repeat = 0 })},
		{"dense stat", "Stat", dense(func(s *DenseSpec) { s.Stat = "mean" })},
		{"dense workers", "Workers", dense(func(s *DenseSpec) { s.Workers = 0 })},
		{"dense pieces", "Pieces", dense(func(s *DenseSpec) { s.Pieces = 0 })},
		{"dense tag", "Tag", dense(func(s *DenseSpec) { s.Tag = "two words" })},
		{"dense link", "LinkBandwidth", dense(func(s *DenseSpec) { s.LinkBandwidth = "fast" })},
		{"dense latency", "LinkLatency", dense(func(s *DenseSpec) { s.LinkBandwidth, s.LinkLatency = "1G", -time.Second })},
		{"dense tasks", "Tasks", dense(func(s *DenseSpec) { s.Tasks = -1 })},
		{"dense latency without a link", "", dense(func(s *DenseSpec) { s.LinkLatency = -time.Second })},
		{"transport sizes", "Sizes", transport(func(s *TransportSpec) { s.Sizes = "2Gi" })},
		{"transport min-time", "MinTime", transport(func(s *TransportSpec) { s.MinTime = 0 })},
		{"transport ranks", "Ranks", transport(func(s *TransportSpec) { s.Ranks = 0 })},
		{"memory defaults", "", memory(func(*MemorySpec) {})},
		{"memory scales", "Scales", memory(func(s *MemorySpec) { s.Scales = "0-3" })},
		{"memory ranks", "Ranks", memory(func(s *MemorySpec) { s.Ranks = "1,0" })},
		{"memory kinds", "Kinds", memory(func(s *MemorySpec) { s.Kinds = "bfs,sssp" })},
		{"memory roots", "Roots", memory(func(s *MemorySpec) { s.Roots = 0 })},
		{"pagerank-allreduce defaults", "", allreduce(func(*PageRankAllreduceSpec) {})},
		{"pagerank-allreduce scale", "Scale", allreduce(func(s *PageRankAllreduceSpec) { s.Scale = 33 })},
		{"pagerank-allreduce iterations", "Iterations", allreduce(func(s *PageRankAllreduceSpec) { s.Iterations = 0 })},
		{"pagerank-allreduce input", "Input", allreduce(func(s *PageRankAllreduceSpec) { s.Input = "/nonexistent/graph.el" })},
		{"pagerank-allreduce degrees", "Degrees", allreduce(func(s *PageRankAllreduceSpec) { s.Degrees = "8x4" })},
		{"pagerank-allreduce auto degrees", "Degrees", allreduce(func(s *PageRankAllreduceSpec) { s.Degrees = "auto" })},
		{"pagerank speed defaults", "", speed(func(*PageRankSpeedSpec) {})},
		{"pagerank speed no graph", "Inputs", speed(func(s *PageRankSpeedSpec) { s.Scales = "" })},
		{"pagerank speed scales", "Scales", speed(func(s *PageRankSpeedSpec) { s.Scales = "40" })},
		{"pagerank speed ranks", "Ranks", speed(func(s *PageRankSpeedSpec) { s.Ranks = "0" })},
		{"pagerank speed iterations", "Iterations", speed(func(s *PageRankSpeedSpec) { s.Iterations = 0 })},
	} {
		if got := fielderr.Field(tc.err); got != tc.field {
			t.Errorf("%s: error %v names %q, want %q", tc.name, tc.err, got, tc.field)
		}
	}
}
