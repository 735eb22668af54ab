package results

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// Level is what one BFS level of one search cost, summed over all ranks.
//
// The four times split Time as the breakdown of Lv et al. Fig. 7 and 10
// does: traversing, reducing, communication, and compression & sieve; each is
// the slowest rank's.
type Level struct {
	Level     int     `json:"level"`               // level number, 0 for the root
	Direction string  `json:"direction,omitempty"` // "top-down" or "bottom-up"
	Frontier  int64   `json:"frontier"`            // vertices in this level's frontier
	Bytes     int64   `json:"bytes"`               // bytes sent by all ranks during the level
	Messages  int64   `json:"messages"`            // messages sent by all ranks during the level
	Time      float64 `json:"time"`                // seconds spent in the level
	// RawBytes and EncodedBytes are the frontier bitmap bytes all ranks
	// published for the next bottom-up level, before and after encoding.
	RawBytes     int64   `json:"raw_bytes"`
	EncodedBytes int64   `json:"encoded_bytes"`
	Codec        string  `json:"codec,omitempty"` // encoding used (auto: rank 0's most common choice)
	Traverse     float64 `json:"traversing"`
	Reduce       float64 `json:"reducing"`
	Communicate  float64 `json:"communication"`
	Compress     float64 `json:"compression_sieve"`
}

// Search is one timed BFS of a Graph500 run.
type Search struct {
	Root         int64   `json:"root"`          // global id of the search key
	Time         float64 `json:"time"`          // seconds of the search
	ValidateTime float64 `json:"validate_time"` // seconds of validation; reported as −1 if validation was skipped
	NEdge        int64   `json:"nedge"`         // input edge tuples in the traversed component
	Validated    bool    `json:"validated"`     // validation ran and passed
	// ValidateBytes and ValidateMessages are what all ranks sent while
	// validating this search (0 if validation was skipped).
	ValidateBytes    int64   `json:"validate_bytes"`
	ValidateMessages int64   `json:"validate_messages"`
	Levels           []Level `json:"levels"` // per-level costs, in level order
}

// TEPS returns the search's traversed edges per second, NEdge/Time
// (Lv et al. §VII-A).
func (s Search) TEPS() float64 {
	return float64(s.NEdge) / s.Time
}

// Graph500Run is everything the Graph500 text block and the run JSON report
// about one `graphrun bfs` run. NBFS is the number of searches.
type Graph500Run struct {
	Scale      int    // log2 of the number of vertices
	EdgeFactor int    // edges per vertex
	NumRanks   int    // ranks (the reference's num_mpi_processes)
	Threads    int    // worker goroutines per rank
	Seed       uint64 // generator seed
	Exchange   string // frontier exchange mode (allgather, sieve, push)
	// ExchangeDefaulted: Exchange (and Codec) are the transport's default
	// (allgather in-process, packed over processes), not chosen for the
	// run.
	ExchangeDefaulted bool
	Direction         string  // direction policy (auto, top-down, bottom-up)
	Codec             string  // frontier codec of bottom-up levels
	GenerationTime    float64 // seconds to generate the graph (kernel 0)
	ConstructionTime  float64 // seconds to build the graph (kernel 1)
	Searches          []Search

	// ValidationSkipped is set when the searches were not validated
	// (the run was configured without validation). Every search then reports a validate time of −1,
	// whatever its ValidateTime, and none may be marked Validated.
	ValidationSkipped bool

	CommBytes    int64 // bytes sent by all ranks during the timed searches
	CommMessages int64 // messages sent by all ranks during the timed searches

	// Partition is "1d" or "2d" ("" in runs that predate it); Grid the 2D
	// process grid as "RxC".
	Partition string
	Grid      string
	// BlocksPerRank is, in 2D runs with more blocks than ranks (the
	// over-decomposition of NumS §4), the blocks each rank holds, Grid then being the
	// block grid, and Placement how blocks were placed ("lshs" or
	// "round-robin"); 0 and "" otherwise.
	BlocksPerRank int
	Placement     string
	// Fused is, when LSHS's blocks ran fused (a process's blocks searched
	// as one block of the renumbered graph), the block columns each
	// process column holds, as "0+7 2+5 1+6 3+4" (process row i holding
	// block rows i·K', …, (i+1)·K'−1 for K' block rows per process row);
	// "" when every block ran as its own.
	Fused string
	// Unpermuted is set when the Kronecker labels were not permuted (low ids
	// are the hubs): not a Graph500-conforming run.
	Unpermuted bool
	// Adjacency is the layout of a 1D run's rows, "plain" or "compressed"
	// ("" for 2D runs and runs that predate it), and AdjacencyBytesPerArc
	// the bytes of the rows (columns or packed rows, not offsets) per
	// stored adjacency entry, over all ranks.
	Adjacency            string
	AdjacencyBytesPerArc float64
	// ValidationSetupTime is the seconds (slowest rank) spent preparing the
	// validator once per run: the cross directory and directory row it did
	// not share with the search engine.
	ValidationSetupTime float64
	// ValidateBytes and ValidateMessages are what all ranks sent while
	// validating, over all searches (the sums of the searches' fields).
	ValidateBytes    int64
	ValidateMessages int64
	// RankLoads has one entry per rank (nil if not measured).
	RankLoads []RankLoad
	// PeakMemoryBytes is the largest peak resident set size of the run's
	// processes (0 if not measured); JobPeakMemoryBytes the sum of the
	// peaks of its Processes processes (in-process ranks share one; with
	// replicas, one replica per rank).
	PeakMemoryBytes    int64
	JobPeakMemoryBytes int64
	Processes          int
	// ConstructionBytes and ConstructionMessages are kernel 1's traffic,
	// summed over ranks (its tuples routed to their owners).
	ConstructionBytes, ConstructionMessages int64

	// Input names the edge list of a run on a file ("" for a generated
	// graph); Vertices and Tuples are its vertex and tuple counts. Scale
	// and EdgeFactor are then ⌈log2 Vertices⌉ and Tuples/Vertices rounded.
	Input    string
	Vertices int64
	Tuples   int64

	Version   string    // graphrun version, set by the caller
	StartedAt time.Time // when the run started, set by the caller
	// Revision and CommandLine complete the JSON's Envelope: the VCS
	// revision graphrun was built from ("" if unknown) and the command
	// line of the run (nil if not a command's), set by the caller.
	Revision    string
	CommandLine []string

	// SSSP is the run's kernel 3 (shortest paths from the same keys on
	// the same graph, weighted), nil when the run had none.
	SSSP *SSSPRun
}

// NBFS returns the number of searches.
func (r *Graph500Run) NBFS() int { return len(r.Searches) }

// Validated reports whether every search, and every SSSP search, was
// validated and passed.
func (r *Graph500Run) Validated() bool {
	if r.ValidationSkipped || len(r.Searches) == 0 {
		return false
	}
	if r.SSSP != nil && !r.SSSP.validated() {
		return false
	}
	for _, s := range r.Searches {
		if !s.Validated {
			return false
		}
	}
	return true
}

// Check reports the first inconsistency in r: no searches, a negative count,
// a non-finite or negative time, or a search marked validated although
// validation was skipped. WriteText, WriteJSON and ReadRunJSON call it.
func (r *Graph500Run) Check() error {
	if len(r.Searches) == 0 {
		return errors.New("results: run has no searches")
	}
	for _, c := range []struct {
		name string
		v    int64
		min  int64
	}{
		{"SCALE", int64(r.Scale), 0},
		{"edgefactor", int64(r.EdgeFactor), 0},
		{"num_ranks", int64(r.NumRanks), 1},
		{"threads", int64(r.Threads), 0},
		{"comm_bytes", r.CommBytes, 0},
		{"comm_messages", r.CommMessages, 0},
		{"validate_bytes", r.ValidateBytes, 0},
		{"validate_messages", r.ValidateMessages, 0},
	} {
		if c.v < c.min {
			return fmt.Errorf("results: %s is %d, want at least %d", c.name, c.v, c.min)
		}
	}
	if err := checkTime("graph_generation", r.GenerationTime); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := checkTime("construction_time", r.ConstructionTime); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	for i, s := range r.Searches {
		if err := r.checkSearch(s); err != nil {
			return fmt.Errorf("results: search %d: %w", i, err)
		}
		for j, l := range s.Levels {
			if l.Frontier < 0 || l.Bytes < 0 || l.Messages < 0 {
				return fmt.Errorf("results: search %d level %d: negative count", i, j)
			}
			if l.Level < 0 || l.Level >= len(s.Levels) {
				// The tables and charts index by it: a claim of 2^40 must
				// not size them.
				return fmt.Errorf("results: search %d level %d: level number %d outside the search's %d levels", i, j, l.Level, len(s.Levels))
			}
			if err := checkTime("level time", l.Time); err != nil {
				return fmt.Errorf("results: search %d level %d: %w", i, j, err)
			}
		}
	}
	if r.SSSP != nil {
		return r.SSSP.check(r)
	}
	return nil
}

// checkSearch reports what is wrong with a search's times, verdict and
// edge count in run r.
func (r *Graph500Run) checkSearch(s Search) error {
	if err := checkTime("time", s.Time); err != nil {
		return err
	}
	if !r.ValidationSkipped {
		if err := checkTime("validate_time", s.ValidateTime); err != nil {
			return err
		}
	} else if s.Validated {
		return errors.New("marked validated but validation was skipped")
	}
	if s.NEdge < 0 {
		return fmt.Errorf("nedge is %d", s.NEdge)
	}
	return nil
}

func checkTime(name string, t float64) error {
	if math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
		return fmt.Errorf("%s is %v, want a finite non-negative number of seconds", name, t)
	}
	return nil
}

// validateTime is the validate time reported for s: −1 if validation was
// skipped.
func (r *Graph500Run) validateTime(s Search) float64 {
	if r.ValidationSkipped {
		return -1
	}
	return s.ValidateTime
}

// Summary holds every statistic of a run.
type Summary struct {
	Time     Stats // search times
	NEdge    Stats // edges traversed per search
	TEPS     TEPSStats
	Validate Stats // validation times, all −1 if validation was skipped
}

// Summary computes the statistics of r's searches.
func (r *Graph500Run) Summary() Summary {
	n := len(r.Searches)
	times := make([]float64, n)
	nedges := make([]float64, n)
	vals := make([]float64, n)
	for i, s := range r.Searches {
		times[i] = s.Time
		nedges[i] = float64(s.NEdge)
		vals[i] = r.validateTime(s)
	}
	return Summary{
		Time:     Compute(times),
		NEdge:    Compute(nedges),
		TEPS:     ComputeTEPS(r.Searches),
		Validate: Compute(vals),
	}
}

// InvalidRunText is what WriteText prints for a run whose validation failed.
const InvalidRunText = "No results printed for invalid run.\n"

// WriteText writes the Graph500 text block of r to w, byte for byte in the
// layout of the reference (each value starting in column 33, %g values, and
// %.11g for the nedge statistics). If validation ran and any search failed it,
// only InvalidRunText is written.
func (r *Graph500Run) WriteText(w io.Writer) error {
	if err := r.Check(); err != nil {
		return err
	}
	if !r.ValidationSkipped && !r.Validated() {
		if _, err := io.WriteString(w, InvalidRunText); err != nil {
			return fmt.Errorf("results: write text: %w", err)
		}
		return nil
	}
	sum := r.Summary()
	var b strings.Builder
	d := func(name string, v int) { line(&b, name, strconv.Itoa(v)) }
	g := func(name string, v float64) { line(&b, name, FormatG(v, 6)) }
	g11 := func(name string, v float64) { line(&b, name, FormatG(v, 11)) }
	d("SCALE:", r.Scale)
	d("edgefactor:", r.EdgeFactor)
	d("NBFS:", r.NBFS())
	g("graph_generation:", r.GenerationTime)
	d("num_mpi_processes:", r.NumRanks)
	g("construction_time:", r.ConstructionTime)
	// The reference prints each kind of kernel 3 line right after the
	// same kind of BFS line.
	sssp := func(kind string) {
		if r.SSSP != nil {
			r.SSSP.lines(&b, r.SSSP.Summary(r), kind, g)
		}
	}
	statLines(&b, "bfs  ", "_time:", sum.Time, g)
	sssp("time")
	statLines(&b, "", "_nedge:", sum.NEdge, g11)
	tepsLines(&b, "bfs  ", sum.TEPS, g)
	sssp("TEPS")
	statLines(&b, "bfs  ", "_validate:", sum.Validate, g)
	sssp("validate")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("results: write text: %w", err)
	}
	return nil
}

// tepsLines writes the seven TEPS lines of a kernel, named prefix+stat.
func tepsLines(b *strings.Builder, prefix string, t TEPSStats, g func(string, float64)) {
	g(prefix+"min_TEPS:", t.Min)
	g(prefix+"firstquartile_TEPS:", t.FirstQuartile)
	g(prefix+"median_TEPS:", t.Median)
	g(prefix+"thirdquartile_TEPS:", t.ThirdQuartile)
	g(prefix+"max_TEPS:", t.Max)
	// The reference prints this line with "!  " inside the padding.
	line(b, prefix+"harmonic_mean_TEPS:     !", FormatG(t.HarmonicMean, 6))
	g(prefix+"harmonic_stddev_TEPS:", t.HarmonicStdDev)
}

// statLines writes the seven lines of one Stats, named prefix+stat+suffix.
func statLines(b *strings.Builder, prefix, suffix string, s Stats, f func(string, float64)) {
	f(prefix+"min"+suffix, s.Min)
	f(prefix+"firstquartile"+suffix, s.FirstQuartile)
	f(prefix+"median"+suffix, s.Median)
	f(prefix+"thirdquartile"+suffix, s.ThirdQuartile)
	f(prefix+"max"+suffix, s.Max)
	f(prefix+"mean"+suffix, s.Mean)
	f(prefix+"stddev"+suffix, s.StdDev)
}

// line writes name left-justified in a 32-character field (C's "%-32s"),
// then value and a newline.
func line(b *strings.Builder, name, value string) {
	b.WriteString(name)
	for i := len(name); i < 32; i++ {
		b.WriteByte(' ')
	}
	b.WriteString(value)
	b.WriteByte('\n')
}

// PeakMemoryLine is the line about the run's memory graphrun bfs prints on
// stderr ("" when the peak is unknown): the job's peak in MB or GB (SI),
// the sum of its processes' peaks, per tuple read or generated, and with
// several processes the largest one's.
func (r *Graph500Run) PeakMemoryLine() string {
	if r.PeakMemoryBytes <= 0 {
		return ""
	}
	tuples := float64(int64(r.EdgeFactor) << r.Scale)
	if r.Tuples > 0 {
		tuples = float64(r.Tuples)
	}
	job, procs := r.JobPeakMemoryBytes, r.Processes
	if job <= 0 || procs <= 1 {
		return fmt.Sprintf("graphrun: peak memory %s (%.1f bytes per tuple)\n", memorySize(r.PeakMemoryBytes), float64(r.PeakMemoryBytes)/tuples)
	}
	return fmt.Sprintf("graphrun: peak memory %s, the sum over the job's %d processes (%.1f bytes per tuple); the largest process %s\n",
		memorySize(job), procs, float64(job)/tuples, memorySize(r.PeakMemoryBytes))
}

// memorySize writes bytes in MB, or from 1 GB in GB (SI).
func memorySize(bytes int64) string {
	if bytes >= 1e9 {
		return fmt.Sprintf("%.2f GB", float64(bytes)/1e9)
	}
	return fmt.Sprintf("%.1f MB", float64(bytes)/1e6)
}

// RankCount writes n ranks with the right number: "1 rank", "4 ranks".
func RankCount(n int) string {
	if n == 1 {
		return "1 rank"
	}
	return fmt.Sprintf("%d ranks", n)
}
