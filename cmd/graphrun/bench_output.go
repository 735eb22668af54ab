package main

// Where a bench matrix records itself (--dir, --doc) and how its table
// names a multi-process job.

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/results"
)

// benchOutput is where a benchmark matrix records itself: one JSON per run
// and summary.json in --dir, and its table regenerated in --doc between the
// marker comments of its key (results.ReplaceMarkedSection), so that a
// rerun of the same command replaces its own table.
type benchOutput struct {
	dir, doc string

	dirOut *output.Dir  // --dir, once declared
	docOut *output.File // --doc, nil when ""

	matrix  string // "allreduce-dense"
	key     string // the marker key: the matrix and its parameters
	command string // the command line that regenerates the table
	title   string // the heading of a section appended to --doc

	startedAt, finishedAt time.Time
	loadStart, loadEnd    *results.LoadAverage // nil where unknown
}

// benchMeta is the part of summary.json every matrix shares.
type benchMeta struct {
	Version    string               `json:"graphrun_version"`
	Matrix     string               `json:"matrix"`
	Key        string               `json:"key"`
	Command    string               `json:"command"`
	StartedAt  time.Time            `json:"started_at"`
	FinishedAt time.Time            `json:"finished_at"`
	LoadStart  *results.LoadAverage `json:"load_average_start,omitempty"`
	LoadEnd    *results.LoadAverage `json:"load_average_end,omitempty"`
}

// register adds --dir and --doc. Neither has a default: a matrix writes
// files only where it is asked to (it prints its table either way).
func (o *benchOutput) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.dir, "dir", "", "also write one JSON per run and summary.json into this folder")
	fl.StringVar(&o.doc, "doc", "", "also regenerate this matrix's table in this Markdown file (e.g. BENCHMARKS.md), between marker comments named after its parameters")
}

// declare adds --dir and --doc, when given, to the command's outputs;
// outs.Check then checks them with the others, before the matrix runs.
func (o *benchOutput) declare(outs *output.Set) error {
	if o.doc == output.Stdout {
		return flagError("doc", "the table is regenerated inside a Markdown file, which standard output is not")
	}
	o.dirOut = outs.Dir("dir", o.dir)
	o.docOut = outs.File("doc", o.doc)
	return nil
}

// start records the matrix's identity, its start time and the load
// average. command is the command line of the table's heading; key names
// its marked section. The outputs must be declared and checked.
func (o *benchOutput) start(matrix, key, command string) {
	o.matrix, o.key, o.command = matrix, key, command
	if o.title == "" {
		o.title = "### `" + command + "`"
	}
	o.startedAt = time.Now().UTC()
	if l, err := results.ReadLoadAverage(); err == nil {
		o.loadStart = &l
	}
}

// finish records the end time and load average, for the summary and the
// table's provenance line.
func (o *benchOutput) finish() {
	o.finishedAt = time.Now().UTC()
	if l, err := results.ReadLoadAverage(); err == nil {
		o.loadEnd = &l
	}
}

func (o *benchOutput) meta() benchMeta {
	return benchMeta{Version: version, Matrix: o.matrix, Key: o.key, Command: o.command, StartedAt: o.startedAt, FinishedAt: o.finishedAt,
		LoadStart: o.loadStart, LoadEnd: o.loadEnd}
}

// writeJSON writes v as indented JSON to the file name in --dir (nothing
// without --dir).
func (o *benchOutput) writeJSON(name string, v any) error {
	_, err := o.dirOut.WriteFile(name, func(w io.Writer) error { return writeIndentedJSON(w, v) })
	return err
}

// writeSummary writes summary.json, the last file of --dir: the folder is
// then complete (a failure after it does not remove it). Nothing without
// --dir.
func (o *benchOutput) writeSummary(v any) error {
	if err := o.writeJSON("summary.json", v); err != nil {
		return err
	}
	o.dirOut.Done()
	return nil
}

// regenerate replaces the matrix's table in --doc (nothing if --doc is
// ""): a provenance line saying what ran (what) with the date and load,
// an optional caption after it, and the table.
func (o *benchOutput) regenerate(stderr io.Writer, what, caption, table string) error {
	if o.docOut == nil {
		return nil
	}
	if o.finishedAt.IsZero() {
		o.finish()
	}
	body := results.BenchProvenance(o.startedAt.Format("2006-01-02"), what, o.loadStart, o.loadEnd, o.dirOut != nil)
	if caption != "" {
		body += " " + caption
	}
	body += "\n\n" + table
	if err := results.RegenerateMarkedFile(o.docOut, o.key, o.title, body); err != nil {
		return fmt.Errorf("bench %s: %w", o.matrix, err)
	}
	fmt.Fprintf(stderr, "graphrun: bench %s: table regenerated in %s\n", o.matrix, o.doc)
	return nil
}

// benchJobSpec is how a bench table names a multi-process job: the
// transport and logical rank count for its marker key, the flags that start
// the job again for its command line, and the suffix of its heading. A job
// started by hand (--rank R --size N, N counting every replica process)
// differs from one started by --procs (fromProcs). multi is false for an
// in-process run, whose rank counts each matrix names itself.
func benchJobSpec(plan jobPlan, fromProcs bool) (keys, flags []string, suffix string, multi bool) {
	p := plan.TotalRanks()
	switch {
	case plan.MPI():
		return []string{"transport=mpi", fmt.Sprintf("procs=%d", p)}, []string{"--transport mpi"}, fmt.Sprintf(" on %d MPI processes", p), true
	case plan.TCP() && fromProcs:
		return []string{fmt.Sprintf("procs=%d", p)}, []string{fmt.Sprintf("--procs %d", p)}, "", true
	case plan.TCP():
		n := p * plan.Replication()
		return []string{fmt.Sprintf("procs=%d", p)}, []string{fmt.Sprintf("--rank R --size %d", n)}, fmt.Sprintf(", R = 0 … %d", n-1), true
	}
	return nil, nil, "", false
}
