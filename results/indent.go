package results

// Indented JSON, as the documents a command writes whole (a matrix's
// summary.json, pagerank --json).

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
