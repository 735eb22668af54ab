package results

import "time"

// Envelope is what every graphrun JSON document says about the command that
// wrote it, under the same keys whatever the command (bfs --json, pagerank
// --json): the command, graphrun's version and VCS revision, when the
// command started and its command line. The bfs run JSON and PageRankRun
// embed it, so its keys come first in both.
type Envelope struct {
	Command     string    `json:"command"`                // "bfs", "pagerank"
	Version     string    `json:"graphrun_version"`       // graphrun --version's version
	Revision    string    `json:"vcs_revision,omitempty"` // the VCS revision graphrun was built from, if recorded
	StartedAt   time.Time `json:"started_at"`             // when the command started
	CommandLine []string  `json:"command_line"`           // graphrun and its arguments, as given
}

// orEmpty is a command line as the JSON writes it: [] rather than null.
func orEmpty(args []string) []string {
	if args == nil {
		return []string{}
	}
	return args
}
