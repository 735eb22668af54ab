package graph500

import (
	"github.com/graphrun/graphrun/comm"
	"github.com/graphrun/graphrun/results"
)

// Stage is a stage of a run, as Config.Progress reports it.
type Stage int

// The stages of a run, in the order the Graph500 spec runs them.
const (
	StageGenerate  Stage = iota // kernel 0: generating the tuples, or loading a file
	StageConstruct              // kernel 1: building the graph
	StageSearch                 // kernel 2: a timed search
	StageValidate               // a search's validation
	StageSSSP                   // kernel 3: a timed shortest path search and its validation
)

// String is the stage's name: "generate", "construct", "search",
// "validate" or "sssp".
func (s Stage) String() string {
	switch s {
	case StageGenerate:
		return "generate"
	case StageConstruct:
		return "construct"
	case StageSearch:
		return "search"
	case StageValidate:
		return "validate"
	case StageSSSP:
		return "sssp"
	}
	return "unknown"
}

// Event is a step of a run starting or ending, as rank 0 reports it to
// Config.Progress. Generation and construction are one step each; the
// searches are Steps steps, and a search's validation starts within its
// step, which ends once the search is validated. A generated graph's
// generation runs within kernel 1, so its end is reported with
// construction's. Kernel 3's searches (Config.SSSP) follow as Steps steps
// of StageSSSP, each ending with its Search once validated.
type Event struct {
	Stage Stage
	// Step is the step of the stage, from 0 (the search's index), of
	// Steps.
	Step, Steps int
	// End reports the step ended; it starts otherwise.
	End bool
	// Seconds is an ended step's time: the slowest rank's.
	Seconds float64
	// Search is an ended search: its time, its edges traversed and its
	// validation's time and verdict, as the report records them; nil
	// otherwise.
	Search *results.Search
}

// start reports on rank 0 that step of steps of stage starts.
func (cfg *Config) start(c comm.Comm, stage Stage, step, steps int) {
	cfg.report(c, Event{Stage: stage, Step: step, Steps: steps})
}

// end reports on rank 0 that stage, a single step, ended after seconds.
func (cfg *Config) end(c comm.Comm, stage Stage, seconds float64) {
	cfg.report(c, Event{Stage: stage, Steps: 1, End: true, Seconds: seconds})
}

func (cfg *Config) report(c comm.Comm, e Event) {
	if cfg.Progress != nil && c.Rank() == 0 {
		cfg.Progress(e)
	}
}
