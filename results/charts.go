package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Charts: the papers' pictures drawn from graphrun's own runs, with gonum's
// plot package — the per-level frontier and bytes of a BFS (paper 004
// Fig. 3), the stacked time breakdown per algorithm (Fig. 7 and 10), the TEPS
// of the searches, the per-layer volume of a Kylix allreduce (paper 000
// Fig. 5) and allreduce time against vector length (Fig. 2 and 8). Each
// builder returns a Chart: the plot plus the table of the numbers drawn, so a
// report can show both.

// Chart is a plot and the numbers behind it.
type Chart struct {
	Name  string // file-name stem: "bfs-levels", "breakdown", ...
	Plot  *plot.Plot
	Table Table
}

// Table is a small table of the numbers a chart draws.
type Table struct {
	Header []string
	Rows   [][]string
}

// Chart size in the SVG and PNG files.
const (
	ChartWidth  = 16 * vg.Centimeter
	ChartHeight = 10 * vg.Centimeter
)

// LabeledRun is a BFS run with the name a chart gives it (for example
// "sieve/wah"); RunLabel gives the usual one.
type LabeledRun struct {
	Label string
	Run   *Graph500Run
}

// RunLabel names a run by its exchange, codec and direction, and its grid
// when it ran on the 2D partition.
func RunLabel(r *Graph500Run) string {
	label := r.Exchange + "/" + r.Codec + "/" + r.Direction
	if r.Partition == "2d" {
		label += "/2d " + r.Grid
	}
	return label
}

// meanLevels averages, level by level, the frontier and bytes over a run's
// searches (a search shorter than another counts zero for the missing
// levels).
func meanLevels(r *Graph500Run) (frontier, sent []float64) {
	for _, s := range r.Searches {
		for _, l := range s.Levels {
			for len(frontier) <= l.Level {
				frontier, sent = append(frontier, 0), append(sent, 0)
			}
			frontier[l.Level] += float64(l.Frontier)
			sent[l.Level] += float64(l.Bytes)
		}
	}
	n := float64(max(1, len(r.Searches)))
	for i := range frontier {
		frontier[i] /= n
		sent[i] /= n
	}
	return frontier, sent
}

// LevelChart draws, per BFS level, the mean frontier size (vertices) of the
// first run and the mean bytes every run sent, on a log scale (paper 004
// Fig. 3 and Table II).
func LevelChart(runs []LabeledRun) (Chart, error) {
	if len(runs) == 0 {
		return Chart{}, errors.New("results: level chart of no run")
	}
	p := plot.New()
	p.Title.Text = "BFS frontier and bytes sent per level (mean over searches)"
	p.X.Label.Text = "level"
	p.Y.Label.Text = "vertices / bytes"
	useLogY(p)
	t := Table{Header: []string{"run", "level", "frontier (vertices)", "bytes sent"}}
	frontier, _ := meanLevels(runs[0].Run)
	if err := addLine(p, "frontier (vertices)", frontier, 0, true); err != nil {
		return Chart{}, err
	}
	for i, lr := range runs {
		f, sent := meanLevels(lr.Run)
		if err := addLine(p, "bytes: "+lr.Label, sent, i+1, false); err != nil {
			return Chart{}, err
		}
		for lvl := range sent {
			t.Rows = append(t.Rows, []string{lr.Label, fmt.Sprint(lvl), formatFloat(f[lvl]), formatFloat(sent[lvl])})
		}
	}
	p.Legend.Top = true
	p.X.Tick.Marker = integerTicks{}
	p.Y.Max *= math.Pow(10, 0.6*float64(len(runs)+1)) // room for the legend above the lines
	return Chart{Name: "bfs-levels", Plot: p, Table: t}, nil
}

// addLine adds a line with points (level, y) for the positive ys (a log
// axis cannot show zero), styled by index; dashed lines mark vertex counts.
func addLine(p *plot.Plot, label string, ys []float64, index int, dashed bool) error {
	var xy plotter.XYs
	for x, y := range ys {
		if y > 0 {
			xy = append(xy, plotter.XY{X: float64(x), Y: y})
		}
	}
	if len(xy) == 0 {
		return nil
	}
	line, points, err := plotter.NewLinePoints(xy)
	if err != nil {
		return fmt.Errorf("results: %s: %w", label, err)
	}
	line.Color = plotutil.Color(index)
	points.Color = plotutil.Color(index)
	points.Shape = plotutil.Shape(index)
	if dashed {
		line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(line, points)
	p.Legend.Add(label, line, points)
	return nil
}

// breakdownLabels are paper 004's four times, bottom to top of a bar.
var breakdownLabels = [4]string{"traversing", "reducing", "communication", "compression & sieve"}

// meanBreakdown returns a run's four times per search, summed over levels
// and averaged over searches.
func meanBreakdown(r *Graph500Run) [4]float64 {
	var t [4]float64
	for _, s := range r.Searches {
		for _, l := range s.Levels {
			t[0] += l.Traverse
			t[1] += l.Reduce
			t[2] += l.Communicate
			t[3] += l.Compress
		}
	}
	for i := range t {
		t[i] /= float64(max(1, len(r.Searches)))
	}
	return t
}

// BreakdownChart draws one stacked bar per run: the seconds per search spent
// traversing, reducing, communicating and compressing & sieving (paper 004
// Fig. 7 and 10).
func BreakdownChart(runs []LabeledRun) (Chart, error) {
	if len(runs) == 0 {
		return Chart{}, errors.New("results: breakdown chart of no run")
	}
	p := plot.New()
	p.Title.Text = "Time per search by activity (paper 004's breakdown)"
	p.Y.Label.Text = "seconds per search"
	t := Table{Header: []string{"run", breakdownLabels[0] + " s", breakdownLabels[1] + " s", breakdownLabels[2] + " s", breakdownLabels[3] + " s"}}
	values := make([]plotter.Values, 4)
	names := make([]string, len(runs))
	for i, lr := range runs {
		b := meanBreakdown(lr.Run)
		row := []string{lr.Label}
		for k, v := range b {
			values[k] = append(values[k], v)
			row = append(row, formatFloat(v))
		}
		t.Rows = append(t.Rows, row)
		names[i] = lr.Label
	}
	width := vg.Points(max(6, min(40, 300/float64(len(runs)))))
	var below *plotter.BarChart
	for k, v := range values {
		bars, err := plotter.NewBarChart(v, width)
		if err != nil {
			return Chart{}, fmt.Errorf("results: breakdown: %w", err)
		}
		bars.Color = plotutil.Color(k)
		bars.LineStyle.Width = 0
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		p.Legend.Add(breakdownLabels[k], bars)
	}
	p.Legend.Top = true
	p.Y.Max *= 1.4 // room for the legend above the bars
	p.NominalX(names...)
	if len(runs) > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	return Chart{Name: "breakdown", Plot: p, Table: t}, nil
}

// TEPSChart draws the TEPS of every search of a run in search order, and
// their harmonic mean as a horizontal line (the Graph500 statistic).
func TEPSChart(r *Graph500Run) (Chart, error) {
	if len(r.Searches) == 0 {
		return Chart{}, errors.New("results: TEPS chart of a run with no search")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("TEPS of the %d searches (scale %d, %d ranks)", len(r.Searches), r.Scale, r.NumRanks)
	p.X.Label.Text = "search"
	p.Y.Label.Text = "TEPS"
	t := Table{Header: []string{"search", "root", "nedge", "time s", "TEPS"}}
	var xy plotter.XYs
	lo, hi := math.Inf(1), 0.0
	for i, s := range r.Searches {
		teps := s.TEPS()
		t.Rows = append(t.Rows, []string{fmt.Sprint(i), fmt.Sprint(s.Root), fmt.Sprint(s.NEdge), formatFloat(s.Time), formatFloat(teps)})
		if teps > 0 && !math.IsInf(teps, 0) {
			xy = append(xy, plotter.XY{X: float64(i), Y: teps})
			lo, hi = min(lo, teps), max(hi, teps)
		}
	}
	if len(xy) == 0 {
		return Chart{}, errors.New("results: no search has a finite positive TEPS")
	}
	if hi/lo > 100 {
		useLogY(p)
	}
	scatter, err := plotter.NewScatter(xy)
	if err != nil {
		return Chart{}, fmt.Errorf("results: TEPS: %w", err)
	}
	scatter.Color = plotutil.Color(0)
	p.Add(scatter)
	p.Legend.Add("search", scatter)
	hm := ComputeTEPS(r.Searches).HarmonicMean
	if hm > 0 && !math.IsInf(hm, 0) && !math.IsNaN(hm) {
		mean, err := plotter.NewLine(plotter.XYs{{X: 0, Y: hm}, {X: float64(len(r.Searches) - 1), Y: hm}})
		if err != nil {
			return Chart{}, fmt.Errorf("results: TEPS: %w", err)
		}
		mean.Color = plotutil.Color(1)
		mean.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(mean)
		p.Legend.Add("harmonic mean "+siLabel(hm), mean)
	}
	p.Legend.Top = true
	p.X.Tick.Marker = integerTicks{}
	if _, isLog := p.Y.Scale.(plot.LogScale); !isLog {
		p.Y.Tick.Marker = siTicks{}
	}
	return Chart{Name: "teps", Plot: p, Table: t}, nil
}

// LayerVolume is one butterfly layer's traffic, all ranks, per iteration or
// in total.
type LayerVolume struct {
	Bytes    float64
	Messages float64
}

// LayerChart draws the bytes and messages of each butterfly layer of a
// sparse allreduce side by side, the "Kylix shape" of paper 000 Fig. 5: with
// a well-designed degree vector the volume falls layer by layer. The axis is
// linear (bars start at zero); the table gives the exact numbers.
func LayerChart(title string, layers []LayerVolume) (Chart, error) {
	if len(layers) == 0 {
		return Chart{}, errors.New("results: layer chart with no layer")
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "butterfly layer"
	p.Y.Label.Text = "bytes / messages (all ranks)"
	t := Table{Header: []string{"layer", "bytes", "messages"}}
	b, m := make(plotter.Values, len(layers)), make(plotter.Values, len(layers))
	names := make([]string, len(layers))
	for i, l := range layers {
		b[i], m[i] = l.Bytes, l.Messages
		names[i] = fmt.Sprint(i + 1)
		t.Rows = append(t.Rows, []string{names[i], formatFloat(l.Bytes), formatFloat(l.Messages)})
	}
	width := vg.Points(max(6, min(24, 200/float64(len(layers)))))
	for k, v := range []plotter.Values{b, m} {
		bars, err := plotter.NewBarChart(v, width)
		if err != nil {
			return Chart{}, fmt.Errorf("results: layers: %w", err)
		}
		bars.Color = plotutil.Color(k)
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(2*k-1) * width / 2
		p.Add(bars)
		p.Legend.Add([]string{"bytes", "messages"}[k], bars)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	return Chart{Name: "layers", Plot: p, Table: t}, nil
}

// AllreduceTiming is one measured allreduce: a method, a vector length and
// the seconds one reduction took.
type AllreduceTiming struct {
	Method  string  `json:"method"`
	Length  int64   `json:"length"`
	Seconds float64 `json:"seconds"`
}

// AllreduceChart draws allreduce time against vector length, one line per
// method, on log–log axes (paper 000 Fig. 8, paper 002).
func AllreduceChart(timings []AllreduceTiming) (Chart, error) {
	if len(timings) == 0 {
		return Chart{}, errors.New("results: allreduce chart with no timing")
	}
	p := plot.New()
	p.Title.Text = "Allreduce time against vector length"
	p.X.Label.Text = "vector length (elements)"
	p.Y.Label.Text = "seconds per allreduce"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	useLogY(p)
	t := Table{Header: []string{"method", "length", "seconds"}}
	var methods []string
	byMethod := map[string]plotter.XYs{}
	for _, tm := range timings {
		t.Rows = append(t.Rows, []string{tm.Method, fmt.Sprint(tm.Length), formatFloat(tm.Seconds)})
		if tm.Length <= 0 || tm.Seconds <= 0 {
			continue
		}
		if _, ok := byMethod[tm.Method]; !ok {
			methods = append(methods, tm.Method)
		}
		byMethod[tm.Method] = append(byMethod[tm.Method], plotter.XY{X: float64(tm.Length), Y: tm.Seconds})
	}
	for i, m := range methods {
		line, points, err := plotter.NewLinePoints(byMethod[m])
		if err != nil {
			return Chart{}, fmt.Errorf("results: allreduce %s: %w", m, err)
		}
		line.Color, points.Color, points.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(m, line, points)
	}
	p.Legend.Top = true
	p.Y.Max *= math.Pow(10, 0.35*float64(len(methods))) // room for the legend above the lines
	return Chart{Name: "allreduce", Plot: p, Table: t}, nil
}

// useLogY puts the Y axis on a log scale with powers-of-ten ticks.
func useLogY(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
}

// integerTicks puts a tick on every integer of a short axis (levels,
// searches), and on round steps of a long one.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1.0
	for (hi-lo)/step > 16 {
		step *= 2
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprint(int64(v))})
	}
	return ticks
}

// siTicks are gonum's default ticks labelled with SI prefixes and three
// significant digits (640 M rather than 6.4e+08).
type siTicks struct{}

func (siTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = siLabel(t.Value)
		}
	}
	return ticks
}

// siLabel writes v with an SI prefix: 1.5 G, 640 M, 12 k, 0.5.
func siLabel(v float64) string {
	for _, p := range []struct {
		scale  float64
		suffix string
	}{{1e12, " T"}, {1e9, " G"}, {1e6, " M"}, {1e3, " k"}} {
		if math.Abs(v) >= p.scale {
			return fmt.Sprintf("%.3g%s", v/p.scale, p.suffix)
		}
	}
	return fmt.Sprintf("%.3g", v)
}

// formatFloat prints a number compactly for a table.
func formatFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%.4g", v)
}

// Render writes the chart in format "svg" or "png".
func (c Chart) Render(w io.Writer, format string) error {
	wt, err := c.Plot.WriterTo(ChartWidth, ChartHeight, format)
	if err != nil {
		return fmt.Errorf("results: chart %s: %w", c.Name, err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("results: chart %s: %w", c.Name, err)
	}
	return nil
}

// SVG returns the chart as an SVG document.
func (c Chart) SVG() ([]byte, error) {
	var buf bytes.Buffer
	if err := c.Render(&buf, "svg"); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// FileWriter writes whole files into an output folder; internal/output's
// Dir is the one graphrun uses (it never leaves a partial file).
type FileWriter interface {
	WriteFile(name string, write func(io.Writer) error) (string, error)
}

// WriteFiles writes the chart as NAME.svg and NAME.png into dir and returns
// the two paths.
func (c Chart) WriteFiles(dir FileWriter) ([]string, error) {
	var paths []string
	for _, format := range []string{"svg", "png"} {
		path, err := dir.WriteFile(c.Name+"."+format, func(w io.Writer) error { return c.Render(w, format) })
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
