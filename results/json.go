package results

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// jsonFloat is a derived statistic in the run JSON: written as null when it
// is NaN or infinite (JSON has no such numbers), read back from null as NaN.
type jsonFloat float64

// MarshalJSON implements json.Marshaler.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = jsonFloat(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("results: statistic %s: %w", b, err)
	}
	*f = jsonFloat(v)
	return nil
}

// statsJSON is a Stats in the run JSON.
type statsJSON struct {
	Min           jsonFloat `json:"min"`
	FirstQuartile jsonFloat `json:"firstquartile"`
	Median        jsonFloat `json:"median"`
	ThirdQuartile jsonFloat `json:"thirdquartile"`
	Max           jsonFloat `json:"max"`
	Mean          jsonFloat `json:"mean"`
	StdDev        jsonFloat `json:"stddev"`
}

func toStatsJSON(s Stats) statsJSON {
	return statsJSON{
		jsonFloat(s.Min), jsonFloat(s.FirstQuartile), jsonFloat(s.Median),
		jsonFloat(s.ThirdQuartile), jsonFloat(s.Max), jsonFloat(s.Mean), jsonFloat(s.StdDev),
	}
}

// toSummaryJSON is a Summary in the run JSON.
func toSummaryJSON(sum Summary) summaryJSON {
	return summaryJSON{
		Time:  toStatsJSON(sum.Time),
		NEdge: toStatsJSON(sum.NEdge),
		TEPS: tepsJSON{
			statsJSON: statsJSON{
				jsonFloat(sum.TEPS.Min), jsonFloat(sum.TEPS.FirstQuartile), jsonFloat(sum.TEPS.Median),
				jsonFloat(sum.TEPS.ThirdQuartile), jsonFloat(sum.TEPS.Max),
				jsonFloat(sum.TEPS.Mean), jsonFloat(sum.TEPS.StdDev),
			},
			HarmonicMean:   jsonFloat(sum.TEPS.HarmonicMean),
			HarmonicStdDev: jsonFloat(sum.TEPS.HarmonicStdDev),
		},
		Validate: toStatsJSON(sum.Validate),
	}
}

// tepsJSON is a TEPSStats in the run JSON.
type tepsJSON struct {
	statsJSON
	HarmonicMean   jsonFloat `json:"harmonic_mean"`
	HarmonicStdDev jsonFloat `json:"harmonic_stddev"`
}

type summaryJSON struct {
	Time     statsJSON `json:"time"`
	NEdge    statsJSON `json:"nedge"`
	TEPS     tepsJSON  `json:"TEPS"`
	Validate statsJSON `json:"validate"`
}

// searchFieldsJSON is what the run JSON says of any timed search, BFS or
// SSSP.
type searchFieldsJSON struct {
	Root             int64     `json:"root"`
	Time             float64   `json:"time"`
	NEdge            int64     `json:"nedge"`
	TEPS             jsonFloat `json:"TEPS"`
	ValidateTime     float64   `json:"validate_time"`
	Validated        bool      `json:"validated"`
	ValidateBytes    int64     `json:"validate_bytes"`
	ValidateMessages int64     `json:"validate_messages"`
}

// searchFields is search s of run r in the run JSON.
func (r *Graph500Run) searchFields(s Search) searchFieldsJSON {
	return searchFieldsJSON{Root: s.Root, Time: s.Time, NEdge: s.NEdge, TEPS: jsonFloat(s.TEPS()),
		ValidateTime: r.validateTime(s), Validated: s.Validated, ValidateBytes: s.ValidateBytes,
		ValidateMessages: s.ValidateMessages}
}

// search is the Search the fields hold, without levels.
func (f searchFieldsJSON) search() Search {
	return Search{Root: f.Root, Time: f.Time, ValidateTime: f.ValidateTime, NEdge: f.NEdge, Validated: f.Validated,
		ValidateBytes: f.ValidateBytes, ValidateMessages: f.ValidateMessages}
}

type searchJSON struct {
	searchFieldsJSON
	Levels []Level `json:"levels"`
}

// runJSON is the run JSON document; the package doc lists its keys.
type runJSON struct {
	Envelope
	Scale               int          `json:"SCALE"`
	EdgeFactor          int          `json:"edgefactor"`
	NBFS                int          `json:"NBFS"`
	NumRanks            int          `json:"num_ranks"`
	Threads             int          `json:"threads"`
	Seed                uint64       `json:"seed"`
	Exchange            string       `json:"exchange"`
	ExchangeDefaulted   bool         `json:"exchange_defaulted,omitempty"`
	Direction           string       `json:"direction"`
	Codec               string       `json:"codec"`
	GenerationTime      float64      `json:"graph_generation"`
	ConstructionTime    float64      `json:"construction_time"`
	HarmonicMeanTEPS    jsonFloat    `json:"harmonic_mean_TEPS"`
	Validated           bool         `json:"validated"`
	ValidationSkipped   bool         `json:"validation_skipped"`
	CommBytes           int64        `json:"comm_bytes"`
	CommMessages        int64        `json:"comm_messages"`
	Statistics          summaryJSON  `json:"statistics"`
	Searches            []searchJSON `json:"searches"`
	Partition           string       `json:"partition,omitempty"`
	Grid                string       `json:"grid,omitempty"`
	BlocksPerRank       int          `json:"blocks_per_rank,omitempty"`
	Placement           string       `json:"placement,omitempty"`
	Fused               string       `json:"fused,omitempty"`
	Unpermuted          bool         `json:"unpermuted_labels,omitempty"`
	Adjacency           string       `json:"adjacency,omitempty"`
	AdjacencyBytes      float64      `json:"adjacency_bytes_per_arc,omitempty"`
	ValidationSetupTime float64      `json:"validation_setup_time"`
	ValidateBytes       int64        `json:"validate_bytes"`
	ValidateMessages    int64        `json:"validate_messages"`
	RankLoads           []RankLoad   `json:"rank_loads,omitempty"`
	LoadImbalance       *Imbalance   `json:"load_imbalance,omitempty"`
	PeakMemoryBytes     int64        `json:"peak_memory_bytes,omitempty"`
	JobPeakMemoryBytes  int64        `json:"job_peak_memory_bytes,omitempty"`
	Processes           int          `json:"processes,omitempty"`
	ConstructionBytes   int64        `json:"construction_bytes"`
	ConstructionMsgs    int64        `json:"construction_messages"`
	Input               string       `json:"input,omitempty"`
	Vertices            int64        `json:"vertices,omitempty"`
	Tuples              int64        `json:"tuples,omitempty"`
	SSSP                *ssspJSON    `json:"sssp,omitempty"`
}

// WriteJSON writes r to w as the indented run JSON described in the package
// documentation, followed by a newline.
func (r *Graph500Run) WriteJSON(w io.Writer) error {
	if err := r.Check(); err != nil {
		return err
	}
	sum := r.Summary()
	doc := runJSON{
		Envelope: Envelope{Command: "bfs", Version: r.Version, Revision: r.Revision,
			StartedAt: r.StartedAt, CommandLine: orEmpty(r.CommandLine)},
		Scale:               r.Scale,
		EdgeFactor:          r.EdgeFactor,
		NBFS:                r.NBFS(),
		NumRanks:            r.NumRanks,
		Threads:             r.Threads,
		Seed:                r.Seed,
		Exchange:            r.Exchange,
		ExchangeDefaulted:   r.ExchangeDefaulted,
		Direction:           r.Direction,
		Codec:               r.Codec,
		GenerationTime:      r.GenerationTime,
		ConstructionTime:    r.ConstructionTime,
		HarmonicMeanTEPS:    jsonFloat(sum.TEPS.HarmonicMean),
		Validated:           r.Validated(),
		ValidationSkipped:   r.ValidationSkipped,
		CommBytes:           r.CommBytes,
		CommMessages:        r.CommMessages,
		Statistics:          toSummaryJSON(sum),
		Searches:            make([]searchJSON, len(r.Searches)),
		Partition:           r.Partition,
		Grid:                r.Grid,
		BlocksPerRank:       r.BlocksPerRank,
		Placement:           r.Placement,
		Fused:               r.Fused,
		Unpermuted:          r.Unpermuted,
		Adjacency:           r.Adjacency,
		AdjacencyBytes:      r.AdjacencyBytesPerArc,
		ValidationSetupTime: r.ValidationSetupTime,
		ValidateBytes:       r.ValidateBytes,
		ValidateMessages:    r.ValidateMessages,
		RankLoads:           r.RankLoads,
		PeakMemoryBytes:     r.PeakMemoryBytes,
		JobPeakMemoryBytes:  r.JobPeakMemoryBytes,
		Processes:           r.Processes,
		ConstructionBytes:   r.ConstructionBytes,
		ConstructionMsgs:    r.ConstructionMessages,
		Input:               r.Input,
		Vertices:            r.Vertices,
		Tuples:              r.Tuples,
	}
	if r.SSSP != nil {
		doc.SSSP = r.SSSP.toJSON(r)
	}
	if len(r.RankLoads) > 0 {
		im := LoadImbalance(r.RankLoads)
		doc.LoadImbalance = &im
	}
	for i, s := range r.Searches {
		levels := s.Levels
		if levels == nil {
			levels = []Level{}
		}
		doc.Searches[i] = searchJSON{searchFieldsJSON: r.searchFields(s), Levels: levels}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("results: write JSON: %w", err)
	}
	return nil
}

// ReadRunJSON reads a run JSON document written by WriteJSON. The derived
// fields (statistics, TEPS, "validated") are not read back: recompute them
// with Summary and Validated. Unknown keys are ignored, so files written by
// later versions still load. The run must pass Check, and "NBFS" must equal
// the number of searches.
func ReadRunJSON(rd io.Reader) (*Graph500Run, error) {
	var doc runJSON
	if err := json.NewDecoder(rd).Decode(&doc); err != nil {
		return nil, fmt.Errorf("results: read run JSON: %w", err)
	}
	if doc.NBFS != len(doc.Searches) {
		return nil, fmt.Errorf("results: read run JSON: NBFS is %d but %d searches are listed", doc.NBFS, len(doc.Searches))
	}
	r := &Graph500Run{
		Scale:                doc.Scale,
		EdgeFactor:           doc.EdgeFactor,
		NumRanks:             doc.NumRanks,
		Threads:              doc.Threads,
		Seed:                 doc.Seed,
		Exchange:             doc.Exchange,
		ExchangeDefaulted:    doc.ExchangeDefaulted,
		Direction:            doc.Direction,
		Codec:                doc.Codec,
		GenerationTime:       doc.GenerationTime,
		ConstructionTime:     doc.ConstructionTime,
		Searches:             make([]Search, len(doc.Searches)),
		ValidationSkipped:    doc.ValidationSkipped,
		CommBytes:            doc.CommBytes,
		CommMessages:         doc.CommMessages,
		Version:              doc.Version,
		Revision:             doc.Revision,
		StartedAt:            doc.StartedAt,
		CommandLine:          doc.CommandLine,
		Partition:            doc.Partition,
		Grid:                 doc.Grid,
		BlocksPerRank:        doc.BlocksPerRank,
		Placement:            doc.Placement,
		Fused:                doc.Fused,
		Unpermuted:           doc.Unpermuted,
		Adjacency:            doc.Adjacency,
		AdjacencyBytesPerArc: doc.AdjacencyBytes,
		ValidationSetupTime:  doc.ValidationSetupTime,
		ValidateBytes:        doc.ValidateBytes,
		ValidateMessages:     doc.ValidateMessages,
		RankLoads:            doc.RankLoads,
		PeakMemoryBytes:      doc.PeakMemoryBytes,
		JobPeakMemoryBytes:   doc.JobPeakMemoryBytes,
		Processes:            doc.Processes,

		ConstructionBytes:    doc.ConstructionBytes,
		ConstructionMessages: doc.ConstructionMsgs,
		Input:                doc.Input,
		Vertices:             doc.Vertices,
		Tuples:               doc.Tuples,
		SSSP:                 doc.SSSP.fromJSON(),
	}
	if len(r.CommandLine) == 0 {
		r.CommandLine = nil // [] in the file: no command line
	}
	for i, s := range doc.Searches {
		r.Searches[i] = s.search()
		r.Searches[i].Levels = s.Levels
	}
	if err := r.Check(); err != nil {
		return nil, fmt.Errorf("results: read run JSON: %w", err)
	}
	return r, nil
}
