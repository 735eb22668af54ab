package results

// Indented JSON, as the documents a command writes whole (a matrix's
// summary.json, a PageRank run), and the folders that hold such files.

import (
	"encoding/json"
	"io"
)

// WriteIndentedJSON writes v as JSON indented by two spaces, one value and
// a newline.
func WriteIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// FileWriter writes whole files into an output folder; internal/output's
// Dir is the one graphrun uses (it never leaves a partial file).
type FileWriter interface {
	WriteFile(name string, write func(io.Writer) error) (string, error)
}
