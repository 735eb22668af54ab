package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphrun/graphrun/internal/output"
	"github.com/graphrun/graphrun/results"
	"github.com/graphrun/graphrun/results/report"
)

type reportFlags struct {
	out   string
	plots string
	model string
	dpi   int
}

func newReportCommand() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report RUN.json... -o report.html",
		Short: "Write one self-contained HTML report (charts, tables) of bfs and pagerank runs",
		Long: `Reads the JSON of graphrun bfs and graphrun pagerank runs (--json) and writes
one HTML file with each run's parameters, its Graph500 block or PageRank
summary, and its charts (inline SVG, with the numbers behind each) — and, for
several bfs runs or several pagerank runs, charts comparing them, each run
named by what differs between the runs (scale, ranks, exchange, allreduce,
..., or the file name). The file loads nothing from the network.`,
		Example: `  graphrun bfs -s 16 -j bfs.json && graphrun report bfs.json -o report.html
  graphrun pagerank testdata/soc-Slashdot0902.txt.gz -j pr.json
  graphrun report bfs.json pr.json -o report.html --plots charts`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(cmd, &f, args) },
	}
	cmd.Flags().StringVarP(&f.out, "out", "o", "", "the HTML file to write (required)")
	cmd.Flags().StringVar(&f.plots, "plots", "", "also write every chart as SVG, PDF and PNG into this directory")
	addDPIFlag(cmd.Flags(), &f.dpi)
	cmd.Flags().StringVar(&f.model, "model", "", `re-estimate bfs communication on a cluster, e.g. "bw=10Gbit/s,lat=50us,min-packet=5MB"`)
	return cmd
}

func runReport(cmd *cobra.Command, f *reportFlags, args []string) error {
	if f.out == "" {
		return flagError("out", "required: the HTML file to write")
	}
	if err := checkDPI(f.dpi); err != nil {
		return err
	}
	var opts report.Options
	if f.model != "" {
		m, err := results.ParseClusterModel(f.model)
		if err != nil {
			return flagError("model", "%v", err)
		}
		opts.Model, opts.ModelSpec = &m, f.model
	}
	outs := outputsOf(cmd)
	html, plots := outs.File("out", f.out), outs.Dir("plots", f.plots)
	for _, path := range args {
		outs.Input(path)
	}
	if err := outs.Check(); err != nil {
		return err
	}
	inputs, err := report.ReadRunFiles(args)
	if err != nil {
		return usageError{err}
	}
	if plots != nil {
		if err := writeCharts(plots, inputs, f.dpi); err != nil {
			return err
		}
	}
	err = html.WriteAll(func(w io.Writer) error {
		return report.WriteHTML(w, inputs, time.Now(), opts)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(textOut(cmd, outs), "wrote %s (%d runs)\n", f.out, len(inputs))
	return nil
}

// runOutputFlags are --json, --plots and --dpi of a command that reports
// one run (bfs, pagerank), and the outputs they declare.
type runOutputFlags struct {
	json, plots string
	dpi         int
	jsonOut     *output.File // nil until declared, or without --json
	plotsOut    *output.Dir
}

// register adds the flags; text is what goes to stderr when the JSON goes
// to stdout, charts the run's charts.
func (r *runOutputFlags) register(fl *pflag.FlagSet, text, charts string) {
	fl.StringVarP(&r.json, "json", "j", "", `write the run as JSON to this file ("-" for stdout; `+text+` then goes to stderr)`)
	fl.StringVar(&r.plots, "plots", "", "write the run's charts ("+charts+") as SVG, PDF and PNG into this directory")
	addDPIFlag(fl, &r.dpi)
}

func (r *runOutputFlags) checkDPI() error { return checkDPI(r.dpi) }

// declare adds --json and --plots to the command's outputs.
func (r *runOutputFlags) declare(outs *output.Set) {
	r.jsonOut, r.plotsOut = outs.File("json", r.json), outs.Dir("plots", r.plots)
}

// declareRun declares, on the processes that may report (rank 0's and its
// replicas', or the --procs launcher: plan.MayReport), the run's input file, its --out file (out) and
// --json and --plots, and checks them before any work. It returns the
// command's outputs and the --out file (nil without one, and on the
// other processes).
func (r *runOutputFlags) declareRun(cmd *cobra.Command, plan jobPlan, input, out string) (*output.Set, *output.File, error) {
	outs := outputsOf(cmd)
	if !plan.MayReport() {
		return outs, nil, nil
	}
	outs.Input(input)
	file := outs.File("out", out)
	r.declare(outs)
	return outs, file, outs.Check()
}

// writeJSON writes the run's JSON with write (nothing without --json).
func (r *runOutputFlags) writeJSON(write func(io.Writer) error) error {
	if r.jsonOut == nil {
		return nil
	}
	return r.jsonOut.WriteAll(write)
}

// writePlots writes the run's charts (nothing without --plots).
func (r *runOutputFlags) writePlots(run report.Input) error {
	if r.plotsOut == nil {
		return nil
	}
	return writeCharts(r.plotsOut, []report.Input{run}, r.dpi)
}

// addDPIFlag adds --dpi, the resolution of the PNG charts --plots writes
// (bfs, pagerank and report share it).
func addDPIFlag(fl *pflag.FlagSet, dpi *int) {
	fl.IntVar(dpi, "dpi", report.DefaultDPI, "resolution of the --plots PNG files, in dots per inch")
}

// checkDPI refuses a --dpi outside [1, 2400].
func checkDPI(dpi int) error {
	if dpi < 1 || dpi > 2400 {
		return flagError("dpi", "%d is outside [1, 2400]", dpi)
	}
	return nil
}

// writeCharts writes the charts of the inputs (report.WriteCharts) at
// dpi into dir and marks the folder complete.
func writeCharts(dir *output.Dir, inputs []report.Input, dpi int) error {
	if err := report.WriteCharts(dir, inputs, dpi); err != nil {
		return err
	}
	dir.Done()
	return nil
}
