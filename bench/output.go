package bench

// Where a bench matrix records itself: a folder of JSON and a Markdown
// file its table is regenerated in.

import (
	"fmt"
	"io"
	"time"

	"github.com/graphrun/graphrun/internal/fielderr"
	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/results/report"
)

// Output is where a benchmark matrix records itself: one JSON per run and
// summary.json in Dir, and its table regenerated in Doc between the marker
// comments of its key (report.ReplaceMarkedSection), so that a rerun of
// the same command replaces its own table. Neither has a default: a matrix
// writes files only where it is asked to (it prints its table either way).
type Output struct {
	Dir, Doc string // the folder and the Markdown file ("" for none)
	// Title is the heading of a section appended to Doc; Start sets
	// "### `command`" when it is empty.
	Title string
	// Version is graphrun's version, recorded in summary.json.
	Version string

	dirOut *output.Dir  // Dir, once declared
	docOut *output.File // Doc, nil when ""

	matrix  string // "allreduce-dense"
	key     string // the marker key: the matrix and its parameters
	command string // the command line that regenerates the table

	startedAt, finishedAt time.Time
	loadStart, loadEnd    *report.LoadAverage // nil where unknown
}

// Meta is the part of summary.json every matrix shares.
type Meta struct {
	Version    string              `json:"graphrun_version"`
	Matrix     string              `json:"matrix"`
	Key        string              `json:"key"`
	Command    string              `json:"command"`
	StartedAt  time.Time           `json:"started_at"`
	FinishedAt time.Time           `json:"finished_at"`
	LoadStart  *report.LoadAverage `json:"load_average_start,omitempty"`
	LoadEnd    *report.LoadAverage `json:"load_average_end,omitempty"`
}

// Declare takes Dir and Doc as the caller's output set declares them
// (dir and doc; the set's Check checks them with its other outputs before
// the matrix runs). Doc cannot be standard output (a fielderr.Error of
// "Doc").
func (o *Output) Declare(dir *output.Dir, doc *output.File) error {
	if o.Doc == output.Stdout {
		return fielderr.New("Doc", "the table is regenerated inside a Markdown file, which standard output is not")
	}
	o.dirOut, o.docOut = dir, doc
	return nil
}

// Start records the matrix's identity, its start time and the load
// average. command is the command line of the table's heading; key names
// its marked section. The outputs must be declared and checked.
func (o *Output) Start(matrix, key, command string) {
	o.matrix, o.key, o.command = matrix, key, command
	if o.Title == "" {
		o.Title = "### `" + command + "`"
	}
	o.startedAt = time.Now().UTC()
	if l, err := report.ReadLoadAverage(); err == nil {
		o.loadStart = &l
	}
}

// Finish records the end time and load average, for the summary and the
// table's provenance line.
func (o *Output) Finish() {
	o.finishedAt = time.Now().UTC()
	if l, err := report.ReadLoadAverage(); err == nil {
		o.loadEnd = &l
	}
}

// Meta is the matrix's identity and times, for its summary.json.
func (o *Output) Meta() Meta {
	return Meta{Version: o.Version, Matrix: o.matrix, Key: o.key, Command: o.command, StartedAt: o.startedAt, FinishedAt: o.finishedAt,
		LoadStart: o.loadStart, LoadEnd: o.loadEnd}
}

// WriteFile writes the file name into Dir with write and returns its path
// (nothing and "" without Dir): an Output is a results.FileWriter.
func (o *Output) WriteFile(name string, write func(io.Writer) error) (string, error) {
	return o.dirOut.WriteFile(name, write)
}

// WriteJSON writes v as indented JSON to the file name in Dir (nothing
// without Dir).
func (o *Output) WriteJSON(name string, v any) error {
	_, err := o.WriteFile(name, func(w io.Writer) error { return results.WriteIndentedJSON(w, v) })
	return err
}

// WriteSummary writes summary.json, the last file of Dir: the folder is
// then complete (a failure after it does not remove it). Nothing without
// Dir.
func (o *Output) WriteSummary(v any) error {
	if err := o.WriteJSON("summary.json", v); err != nil {
		return err
	}
	o.dirOut.Done()
	return nil
}

// Regenerate replaces the matrix's table in Doc (nothing without Doc): a
// provenance line saying what ran (what) with the date and load, an
// optional caption after it, and the table. It says so on stderr.
func (o *Output) Regenerate(stderr io.Writer, what, caption, table string) error {
	if o.docOut == nil {
		return nil
	}
	if o.finishedAt.IsZero() {
		o.Finish()
	}
	body := report.BenchProvenance(o.startedAt.Format("2006-01-02"), what, o.loadStart, o.loadEnd, o.dirOut != nil)
	if caption != "" {
		body += " " + caption
	}
	body += "\n\n" + table
	if err := report.RegenerateMarkedFile(o.docOut, o.key, o.Title, body); err != nil {
		return fmt.Errorf("bench %s: %w", o.matrix, err)
	}
	fmt.Fprintf(stderr, "graphrun: bench %s: table regenerated in %s\n", o.matrix, o.Doc)
	return nil
}

// Complete ends a matrix that ran in this process: its progress bar and
// its end time, the table printed on text, summary.json (summary gets the
// matrix's Meta) and the table regenerated in Doc after a provenance line
// saying what ran and an optional caption.
func (o *Output) Complete(bar *progress.Matrix, text, stderr io.Writer, table string, summary func(Meta) any, what, caption string) error {
	bar.Finish()
	o.Finish()
	fmt.Fprint(text, table)
	if err := o.WriteSummary(summary(o.Meta())); err != nil {
		return err
	}
	return o.Regenerate(stderr, what, caption, table)
}
