package results

// Kernel 3 of a Graph500 run: the single-source shortest path searches the
// reference runs after its BFS searches on the same graph and keys, and
// the lines of its text block and the "sssp" object of the run JSON that
// report them.

import (
	"fmt"
	"strings"
)

// SSSPSearch is one timed shortest-path search: Search's fields (Levels
// unused) and the work of Δ-stepping.
type SSSPSearch struct {
	Search
	Buckets  int   // buckets emptied
	Phases   int   // light and heavy phases, each one exchange of requests
	Requests int64 // relaxation requests, summed over the ranks
}

// SSSPRun is the kernel 3 part of a Graph500 run: one search per BFS key,
// in the same order.
type SSSPRun struct {
	Delta float64 // the bucket width Δ of every search
	// WeightTime is the seconds (slowest rank) to give the graph's edges
	// their weights (graph.BuildWeights) and prepare the engine's rows.
	WeightTime   float64
	Searches     []SSSPSearch
	CommBytes    int64 // bytes sent by all ranks during the timed searches
	CommMessages int64 // messages sent by all ranks during the timed searches
}

// searches returns the searches as Searches, for the statistics.
func (s *SSSPRun) searches() []Search {
	out := make([]Search, len(s.Searches))
	for i, x := range s.Searches {
		out[i] = x.Search
	}
	return out
}

// check reports the first inconsistency of the kernel 3 part of run r.
func (s *SSSPRun) check(r *Graph500Run) error {
	if len(s.Searches) != len(r.Searches) {
		return fmt.Errorf("results: %d SSSP searches for %d BFS searches", len(s.Searches), len(r.Searches))
	}
	if !(s.Delta > 0) || s.CommBytes < 0 || s.CommMessages < 0 {
		return fmt.Errorf("results: SSSP delta %v, comm bytes %d, messages %d", s.Delta, s.CommBytes, s.CommMessages)
	}
	if err := checkTime("weight_construction_time", s.WeightTime); err != nil {
		return fmt.Errorf("results: sssp: %w", err)
	}
	for i, x := range s.Searches {
		if err := r.checkSearch(x.Search); err != nil {
			return fmt.Errorf("results: sssp search %d: %w", i, err)
		}
		if x.Buckets < 0 || x.Phases < 0 || x.Requests < 0 {
			return fmt.Errorf("results: sssp search %d: negative count", i)
		}
	}
	return nil
}

// validated reports whether every search was validated and passed.
func (s *SSSPRun) validated() bool {
	for _, x := range s.Searches {
		if !x.Validated {
			return false
		}
	}
	return true
}

// Summary computes the statistics of the searches of run r.
func (s *SSSPRun) Summary(r *Graph500Run) Summary {
	n := len(s.Searches)
	times, nedges, vals := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, x := range s.Searches {
		times[i], nedges[i], vals[i] = x.Time, float64(x.NEdge), r.validateTime(x.Search)
	}
	return Summary{Time: Compute(times), NEdge: Compute(nedges), TEPS: ComputeTEPS(s.searches()), Validate: Compute(vals)}
}

// lines writes the reference's sssp lines of one kind ("time", "TEPS"
// or "validate"), which it prints right after the bfs lines of that kind.
func (s *SSSPRun) lines(b *strings.Builder, sum Summary, kind string, g func(string, float64)) {
	switch kind {
	case "time":
		statLines(b, "sssp ", "_time:", sum.Time, g)
	case "TEPS":
		tepsLines(b, "sssp ", sum.TEPS, g)
	case "validate":
		statLines(b, "sssp ", "_validate:", sum.Validate, g)
	}
}

// ssspJSON is the "sssp" object of the run JSON.
type ssspJSON struct {
	Delta            float64          `json:"delta"`
	WeightTime       float64          `json:"weight_construction_time"`
	HarmonicMeanTEPS jsonFloat        `json:"harmonic_mean_TEPS"`
	Validated        bool             `json:"validated"`
	CommBytes        int64            `json:"comm_bytes"`
	CommMessages     int64            `json:"comm_messages"`
	Statistics       summaryJSON      `json:"statistics"`
	Searches         []ssspSearchJSON `json:"searches"`
}

type ssspSearchJSON struct {
	searchFieldsJSON
	Buckets  int   `json:"buckets"`
	Phases   int   `json:"phases"`
	Requests int64 `json:"requests"`
}

// toJSON is s as the run JSON's "sssp" object of run r.
func (s *SSSPRun) toJSON(r *Graph500Run) *ssspJSON {
	sum := s.Summary(r)
	doc := &ssspJSON{Delta: s.Delta, WeightTime: s.WeightTime, HarmonicMeanTEPS: jsonFloat(sum.TEPS.HarmonicMean),
		Validated: !r.ValidationSkipped && s.validated(), CommBytes: s.CommBytes, CommMessages: s.CommMessages,
		Statistics: toSummaryJSON(sum), Searches: make([]ssspSearchJSON, len(s.Searches))}
	for i, x := range s.Searches {
		doc.Searches[i] = ssspSearchJSON{searchFieldsJSON: r.searchFields(x.Search), Buckets: x.Buckets, Phases: x.Phases, Requests: x.Requests}
	}
	return doc
}

// fromJSON is the SSSPRun an "sssp" object holds (nil for none).
func (doc *ssspJSON) fromJSON() *SSSPRun {
	if doc == nil {
		return nil
	}
	s := &SSSPRun{Delta: doc.Delta, WeightTime: doc.WeightTime, CommBytes: doc.CommBytes, CommMessages: doc.CommMessages,
		Searches: make([]SSSPSearch, len(doc.Searches))}
	for i, x := range doc.Searches {
		s.Searches[i] = SSSPSearch{Search: x.search(), Buckets: x.Buckets, Phases: x.Phases, Requests: x.Requests}
	}
	return s
}
