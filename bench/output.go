package bench

// Where a bench matrix records itself: a folder of JSON. Its table goes to
// the caller's text writer, for a person to paste.

import (
	"fmt"
	"io"
	"time"

	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/internal/progress"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/results/report"
)

// Output is where a benchmark matrix records itself: one JSON per run and
// summary.json in Dir. Dir has no default: a matrix writes files only
// where it is asked to (it prints its table either way).
type Output struct {
	Dir string // the folder ("" for none)
	// Version is graphrun's version, recorded in summary.json.
	Version string

	dirOut *output.Dir // Dir, once declared

	matrix  string // "allreduce-dense"
	key     string // the matrix and its parameters
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

// Declare takes Dir as the caller's output set declares it (the set's
// Check checks it with its other outputs before the matrix runs).
func (o *Output) Declare(dir *output.Dir) {
	o.dirOut = dir
}

// Start records the matrix's identity, its start time and the load
// average, for summary.json. command is the command line that
// regenerates the table; key names the matrix and its parameters. The
// outputs must be declared and checked.
func (o *Output) Start(matrix, key, command string) {
	o.matrix, o.key, o.command = matrix, key, command
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

// Complete ends a matrix that ran in this process: its progress bar and
// its end time, the table printed on text followed by its note (how the
// runs were made; none when ""), and summary.json (summary gets the
// matrix's Meta).
func (o *Output) Complete(bar *progress.Matrix, text io.Writer, table, note string, summary func(Meta) any) error {
	bar.Finish()
	o.Finish()
	if note != "" {
		table += "\n" + note + "\n"
	}
	if _, err := io.WriteString(text, table); err != nil {
		return fmt.Errorf("bench %s: %w", o.matrix, err)
	}
	return o.WriteSummary(summary(o.Meta()))
}
