package results

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// SchemaVersion is the layout of the run records this package writes, the
// value of their "schema_version" key. Version 2 is the layout the package
// documentation lists for the BFS run and PageRankRun documents for
// PageRank; version 1 is every earlier record (they carry no
// schema_version), which had keys version 2 no longer has: a BFS run's
// "validation_csr_time" and a PageRank run's "version" (graphrun_version
// before the Envelope). Keys are added to a version without changing it;
// a key removed or a value whose meaning changes makes the next version.
const SchemaVersion = 2

// Schema is a run record's "schema_version". A record is written in this
// package's layout whatever it was read from, so it is always written as
// SchemaVersion; read, it is the file's (0 for a version 1 file, which has
// none). A file of a later version than SchemaVersion is refused: its keys
// may not mean what this package reads them as.
type Schema int

// MarshalJSON writes SchemaVersion.
func (Schema) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, SchemaVersion, 10), nil
}

// UnmarshalJSON reads a schema_version, refusing one later than
// SchemaVersion or not a positive integer.
func (s *Schema) UnmarshalJSON(b []byte) error {
	var v int
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("schema_version %s: %w", b, err)
	}
	if v < 1 || v > SchemaVersion {
		return fmt.Errorf("schema_version %d: this graphrun reads versions 1 to %d", v, SchemaVersion)
	}
	*s = Schema(v)
	return nil
}

// Envelope is what every graphrun JSON document says about the command that
// wrote it, under the same keys whatever the command (the bfs and pagerank
// run records): the layout's version, the command, graphrun's version and
// VCS revision, when the command started and its command line. The bfs run
// JSON and PageRankRun embed it, so its keys come first in both.
type Envelope struct {
	Schema      Schema    `json:"schema_version"`         // always written as SchemaVersion
	Command     string    `json:"command"`                // "bfs", "pagerank"
	Version     string    `json:"graphrun_version"`       // the graphrun binary's version
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
