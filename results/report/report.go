package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/graphrun/graphrun/results"
	"html/template"
	"io"
	"strings"
	"time"
)

// A report is one self-contained HTML file (`graphrun report`): for every
// run JSON given, its parameters, its Graph500 block or PageRank summary,
// and its charts as inline SVG each followed by the table of the numbers it
// draws; with several BFS runs, the level and breakdown charts compare them.
// Nothing is loaded from the network: no scripts, fonts or style sheets
// beyond the inline ones.

// Input is one run of a report: a BFS run or a PageRank run.
type Input struct {
	Path     string // file the run was read from, shown as its title
	BFS      *results.Graph500Run
	PageRank *results.PageRankRun
}

// ReadRunFile decodes a run JSON of either kind, telling them apart by their
// keys (a BFS run has "SCALE" and "searches", a PageRank run "iterations"
// and "layers").
func ReadRunFile(path string, data []byte) (Input, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return Input{}, fmt.Errorf("%s: not a run JSON: %w", path, err)
	}
	in := Input{Path: path}
	_, scale := keys["SCALE"]
	_, searches := keys["searches"]
	_, iterations := keys["iterations"]
	_, layers := keys["layers"]
	var err error
	switch {
	case scale && searches:
		in.BFS, err = results.ReadRunJSON(bytes.NewReader(data))
	case iterations && layers:
		in.PageRank, err = results.ReadPageRankJSON(bytes.NewReader(data))
	default:
		return Input{}, fmt.Errorf("%s: neither a bfs run (SCALE, searches) nor a pagerank run (iterations, layers)", path)
	}
	if err != nil {
		return Input{}, fmt.Errorf("%s: %w", path, err)
	}
	return in, nil
}

// Charts returns the charts of one input: for a BFS run its frontier and
// bytes per level, time breakdown and TEPS per search; for a PageRank run
// its convergence, time per iteration and per-layer volume, as far as the
// run recorded them (a run on one rank has no allreduce layers; runs
// before graphrun 0.2 have no per-iteration figures).
func (in Input) Charts() ([]Chart, error) {
	var charts []Chart
	var errs []error
	add := func(c Chart, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		charts = append(charts, c)
	}
	switch {
	case in.BFS != nil:
		runs := []LabeledRun{{Label: RunLabels([]*results.Graph500Run{in.BFS}, nil)[0], Run: in.BFS}}
		add(FrontierChart(runs))
		add(BytesChart(runs))
		add(BreakdownChart(runs))
		add(TEPSChart(in.BFS))
	case in.PageRank != nil:
		pr := in.PageRank
		if len(pr.L1Changes) > 0 {
			add(ConvergenceChart(pr))
		}
		if len(pr.IterationTimes) > 0 {
			add(IterationTimeChart(pr))
		}
		if len(pr.Layers) > 0 {
			add(LayerChart(fmt.Sprintf("Allreduce traffic per layer (%s, %s)", pr.Allreduce, results.RankCount(pr.NumRanks)), pr.LayerVolumes()))
		}
	}
	return charts, errors.Join(errs...)
}

// labeledRuns returns the runs of one kind among inputs (pick returns nil
// for the others), labelled by label (from the runs and their file names)
// through labeled.
func labeledRuns[R comparable, L any](inputs []Input, pick func(Input) R, label func([]R, []string) []string, labeled func(string, R) L) []L {
	var zero R
	var runs []R
	var names []string
	for _, in := range inputs {
		if r := pick(in); r != zero {
			runs = append(runs, r)
			names = append(names, in.Path)
		}
	}
	labels := label(runs, names)
	out := make([]L, len(runs))
	for i, r := range runs {
		out[i] = labeled(labels[i], r)
	}
	return out
}

// bfsRuns returns the BFS runs among inputs, labelled by what differs
// between them (RunLabels, with the file names).
func bfsRuns(inputs []Input) []LabeledRun {
	return labeledRuns(inputs, func(in Input) *results.Graph500Run { return in.BFS }, RunLabels,
		func(label string, r *results.Graph500Run) LabeledRun { return LabeledRun{Label: label, Run: r} })
}

// pageRankRuns returns the PageRank runs among inputs, labelled by what
// differs between them (PageRankLabels, with the file names).
func pageRankRuns(inputs []Input) []LabeledPageRank {
	return labeledRuns(inputs, func(in Input) *results.PageRankRun { return in.PageRank }, PageRankLabels,
		func(label string, r *results.PageRankRun) LabeledPageRank {
			return LabeledPageRank{Label: label, Run: r}
		})
}

// Comparison is the comparison of the runs of one kind in a report: their
// names (what differs between them) and the charts drawing them all.
type Comparison struct {
	Kind   string // "BFS", "PageRank"
	Labels []string
	Charts []Chart
}

// Comparisons returns the comparisons of the runs among inputs: of the BFS
// runs when there are at least two (every run's frontier and bytes per
// level, time breakdown and harmonic mean TEPS), and of the PageRank runs
// when there are at least two (convergence and time per iteration). Their
// charts' names start with "compare-".
func Comparisons(inputs []Input) ([]Comparison, error) {
	var out []Comparison
	if runs := bfsRuns(inputs); len(runs) > 1 {
		labels := make([]string, len(runs))
		for i, r := range runs {
			labels[i] = r.Label
		}
		cmp, err := compare("BFS", runs, labels, FrontierChart, BytesChart, BreakdownChart, RunsTEPSChart)
		if err != nil {
			return nil, err
		}
		out = append(out, cmp)
	}
	if runs := pageRankRuns(inputs); len(runs) > 1 {
		labels := make([]string, len(runs))
		for i, r := range runs {
			labels[i] = r.Label
		}
		cmp, err := compare("PageRank", runs, labels, PageRankConvergenceChart, PageRankIterationTimeChart)
		if err != nil {
			return nil, err
		}
		out = append(out, cmp)
	}
	return out, nil
}

// compare builds the comparison of runs (named labels) by every chart of
// builds, the charts' names prefixed with "compare-".
func compare[L any](kind string, runs []L, labels []string, builds ...func([]L) (Chart, error)) (Comparison, error) {
	cmp := Comparison{Kind: kind, Labels: labels}
	for _, build := range builds {
		c, err := build(runs)
		if err != nil {
			return Comparison{}, err
		}
		c.Name = "compare-" + c.Name
		cmp.Charts = append(cmp.Charts, c)
	}
	return cmp, nil
}

// ComparisonCharts returns the charts of every comparison (Comparisons).
func ComparisonCharts(inputs []Input) ([]Chart, error) {
	comparisons, err := Comparisons(inputs)
	var charts []Chart
	for _, cmp := range comparisons {
		charts = append(charts, cmp.Charts...)
	}
	return charts, err
}

// WriteCharts writes the charts comparing the inputs (ComparisonCharts)
// and every input's own charts in every format of ChartFormats at dpi into
// dir, each run's file names prefixed with its position ("run2-...") when
// there are several.
func WriteCharts(dir results.FileWriter, inputs []Input, dpi int) error {
	charts, err := ComparisonCharts(inputs)
	if err != nil {
		return fmt.Errorf("comparison plots: %w", err)
	}
	for i, in := range inputs {
		own, err := in.Charts()
		if err != nil {
			return fmt.Errorf("plots of %s: %w", in.Path, err)
		}
		for _, c := range own {
			if len(inputs) > 1 {
				c.Name = fmt.Sprintf("run%d-%s", i+1, c.Name)
			}
			charts = append(charts, c)
		}
	}
	for _, c := range charts {
		if _, err := c.WriteFilesDPI(dir, dpi); err != nil {
			return fmt.Errorf("plots: %w", err)
		}
	}
	return nil
}

// reportChart is a chart as the template shows it.
type reportChart struct {
	Title string
	SVG   template.HTML
	Table Table
	Notes []string
}

// reportSection is one run (or the comparison of the BFS runs).
type reportSection struct {
	Title  string
	Runs   []string // the runs a comparison compares, as its charts name them
	Params Table
	Block  string // Graph500 text block or PageRank summary
	Charts []reportChart
	// Model is the cluster-model table of a BFS run (Options.Model).
	Model     Table
	ModelSpec string
}

// modelTable is a BFS run's searches under a cluster model, with the
// harmonic mean of the predicted TEPS as the last row.
func modelTable(m results.ClusterModel, r *results.Graph500Run) Table {
	t := Table{Header: []string{"search", "nedge", "measured compute s", "modelled communication s", "predicted TEPS"}}
	searches := m.Model(r, 1)
	for i, s := range searches {
		t.Rows = append(t.Rows, []string{fmt.Sprint(i), fmt.Sprint(s.NEdge), formatFloat(s.Compute), formatFloat(s.Communication), results.FormatCount(s.TEPS())})
	}
	if len(searches) > 0 {
		t.Rows = append(t.Rows, []string{"harmonic mean", "", "", "", results.FormatCount(results.HarmonicTEPS(searches))})
	}
	return t
}

// Options are the optional parts of a report.
type Options struct {
	// Model, if not nil, adds to every BFS run the table of its searches
	// under this cluster model: measured compute, modelled communication,
	// predicted TEPS.
	Model *results.ClusterModel
	// ModelSpec is the model as the user wrote it, shown in the report.
	ModelSpec string
}

// WriteHTML writes the HTML report of inputs to w. generated is printed as
// the report's date.
func WriteHTML(w io.Writer, inputs []Input, generated time.Time, opts Options) error {
	if len(inputs) == 0 {
		return errors.New("results: report of no run")
	}
	var sections []reportSection
	for _, in := range inputs {
		s := reportSection{Title: in.Path}
		switch {
		case in.BFS != nil:
			r := in.BFS
			s.Params = keyValues(
				"SCALE", fmt.Sprint(r.Scale), "edgefactor", fmt.Sprint(r.EdgeFactor),
				"ranks", fmt.Sprint(r.NumRanks), "threads", fmt.Sprint(r.Threads),
				"exchange", r.Exchange, "codec", r.Codec, "direction", r.Direction,
				"searches", fmt.Sprint(r.NBFS()), "bytes sent (all ranks, timed searches)", fmt.Sprint(r.CommBytes),
				"messages", fmt.Sprint(r.CommMessages), "graphrun", r.Version)
			var block strings.Builder
			if err := r.WriteText(&block); err != nil {
				return fmt.Errorf("results: report of %s: %w", in.Path, err)
			}
			s.Block = block.String()
			if opts.Model != nil {
				s.Model = modelTable(*opts.Model, r)
				s.ModelSpec = opts.ModelSpec
			}
		case in.PageRank != nil:
			r := in.PageRank
			s.Params = keyValues(
				"input", r.Input, "ranks", fmt.Sprint(r.NumRanks), "threads", fmt.Sprint(r.Threads),
				"vertices", fmt.Sprint(r.Vertices), "edges", fmt.Sprint(r.Edges),
				"allreduce", r.Allreduce, "partition", r.Partition, "alpha", formatFloat(r.Alpha),
				"graphrun", r.Version)
			s.Block = pageRankSummary(r)
		default:
			return fmt.Errorf("results: report input %s holds no run", in.Path)
		}
		charts, err := in.Charts()
		if err != nil {
			return fmt.Errorf("results: report of %s: %w", in.Path, err)
		}
		if s.Charts, err = embed(charts); err != nil {
			return err
		}
		sections = append(sections, s)
	}
	comparisons, err := Comparisons(inputs)
	if err != nil {
		return err
	}
	var head []reportSection
	for _, cmp := range comparisons {
		embedded, err := embed(cmp.Charts)
		if err != nil {
			return err
		}
		head = append(head, reportSection{Title: fmt.Sprintf("Comparison of the %d %s runs", len(cmp.Labels), cmp.Kind), Runs: cmp.Labels, Charts: embedded})
	}
	sections = append(head, sections...)
	var buf bytes.Buffer
	err = reportTemplate.Execute(&buf, struct {
		Generated string
		Sections  []reportSection
	}{generated.UTC().Format(time.RFC3339), sections})
	if err != nil {
		return fmt.Errorf("results: report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// embed renders charts as inline SVG.
func embed(charts []Chart) ([]reportChart, error) {
	out := make([]reportChart, 0, len(charts))
	for _, c := range charts {
		svg, err := c.SVG()
		if err != nil {
			return nil, err
		}
		out = append(out, reportChart{Title: c.Plot.Title.Text, SVG: template.HTML(inlineSVG(svg)), Table: c.Table, Notes: c.Notes})
	}
	return out, nil
}

// inlineSVG drops the XML declaration and doctype of a standalone SVG
// document, which HTML does not allow inside a page.
func inlineSVG(svg []byte) string {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	return s
}

// keyValues makes a two-column table from alternating keys and values.
func keyValues(kv ...string) Table {
	t := Table{Header: []string{"parameter", "value"}}
	for i := 0; i+1 < len(kv); i += 2 {
		t.Rows = append(t.Rows, []string{kv[i], kv[i+1]})
	}
	return t
}

// pageRankSummary is the text summary of a PageRank run.
func pageRankSummary(r *results.PageRankRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "iterations:            %d (converged: %v)\n", r.Iterations, r.Converged)
	fmt.Fprintf(&b, "residual (L1 change):  %g\n", r.Residual)
	fmt.Fprintf(&b, "total rank:            %.12g\n", r.TotalRank)
	fmt.Fprintf(&b, "set-up:                %.6f s (allreduce configuration %.6f s)\n", r.Setup.Total, r.Setup.Configuration)
	fmt.Fprintf(&b, "time per iteration:    %.6f s compute, %.6f s communication\n", r.TimePerIteration.Compute, r.TimePerIteration.Communication)
	fmt.Fprintf(&b, "traffic:               %d bytes, %d messages (all ranks, all iterations)\n", r.CommBytes, r.CommMessages)
	if len(r.Top) > 0 {
		b.WriteString("top vertices:\n")
		for i, v := range r.Top {
			fmt.Fprintf(&b, "  %2d  %-12d %.12g\n", i+1, v.ID, v.Score)
		}
	}
	return b.String()
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>graphrun report</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 70em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: .5em 0 1.5em; font-size: .9em; }
th, td { border: 1px solid #ccc; padding: .2em .6em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
pre { background: #f8f8f8; padding: .8em; overflow-x: auto; font-size: .85em; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
details { margin-bottom: 1em; }
</style>
</head>
<body>
<h1>graphrun report</h1>
<p>Generated {{.Generated}}.</p>
{{range .Sections}}
<section>
<h2>{{.Title}}</h2>
{{if .Runs}}<p>Runs compared, named by what differs between them:</p>
<ul>{{range .Runs}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Params.Rows}}<table>
<tr>{{range .Params.Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Params.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{if .Block}}<pre>{{.Block}}</pre>{{end}}
{{if .Model.Rows}}<h3>Cluster model: {{.ModelSpec}}</h3>
<p>Communication time re-estimated from the counted bytes and messages of every level (α–β model with a minimum efficient packet); compute is the measured traversing and compression &amp; sieve time.</p>
<table>
<tr>{{range .Model.Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Model.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{range .Charts}}
<figure class="chart">
<h3>{{.Title}}</h3>
{{.SVG}}
{{if .Notes}}<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
</figure>
<details><summary>Numbers behind the chart</summary>
<table>
<tr>{{range .Table.Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Table.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
</details>
{{end}}
</section>
{{end}}
</body>
</html>
`))
