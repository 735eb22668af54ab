package report

import (
	"bytes"
	"fmt"
	"github.com/graphrun/graphrun/results"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The drawing conventions every chart of this package follows, so that a
// chart can go into a paper as it is: one quantity per axis, named with its
// unit and with whether it counts all ranks, one rank or the slowest one;
// tick labels in one style per axis (SI prefixes: 100 k, 1 M, 10 ms — never
// 1e+06 beside 100000); the legend in a strip below the plot, never over the
// data; bars clear of the frame and of the title; and what a chart could not
// draw (a series of zeros on a log axis, a run without levels) said in its
// legend and in its notes rather than silently left out.

// Chart is a plot and the numbers behind it.
type Chart struct {
	Name string // file-name stem: "bfs-bytes", "breakdown", ...
	Plot *plot.Plot
	// Legend is drawn below the plot (Plot.Legend stays empty, so no
	// legend covers the data).
	Legend plot.Legend
	Table  Table
	// Notes say what the chart does not draw and why.
	Notes []string

	// logX and logY: the axis shows log10 of the values, on a linear
	// scale with logTicks (gonum's LogScale misplaces the axis label's
	// glyph box and leaves a gap above the plot).
	logX, logY bool
}

// Table is a small table of the numbers a chart draws.
type Table struct {
	Header []string
	Rows   [][]string
}

// Chart size in the output files: the plot's area, to which the legend
// strip below it adds its height.
const (
	ChartWidth  = 16 * vg.Centimeter
	ChartHeight = 10 * vg.Centimeter
)

// DefaultDPI is the resolution of PNG charts unless a caller asks for
// another (the dpi of WriteCharts and Chart.WriteFilesDPI).
const DefaultDPI = 150

// ChartFormats are the file formats WriteFiles writes: SVG and PDF (vector,
// for papers) and PNG.
var ChartFormats = []string{"svg", "pdf", "png"}

// newChart starts a chart with the package's title and legend styles and
// its axis labels.
func newChart(name, title, xLabel, yLabel string) Chart {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Title.Padding = vg.Points(8)
	leg := plot.NewLegend()
	leg.Left = true
	leg.Top = true
	leg.TextStyle.Font.Size = vg.Points(10)
	leg.Padding = vg.Points(2)
	leg.ThumbnailWidth = vg.Points(18)
	return Chart{Name: name, Plot: p, Legend: leg}
}

// newChartOf is newChart for a chart of n things (runs, searches, layers,
// timings): with none it returns an error, "results: " and empty.
func newChartOf(n int, empty, name, title, xLabel, yLabel string) (Chart, error) {
	if n == 0 {
		return Chart{}, fmt.Errorf("results: %s", empty)
	}
	return newChart(name, title, xLabel, yLabel), nil
}

// note records something the chart does not draw, in its notes and as a
// legend entry without a symbol.
func (c *Chart) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.Notes = append(c.Notes, msg)
	c.Legend.Add(msg)
}

// legendHeight is the height of the strip the legend takes below the plot.
func (c Chart) legendHeight() vg.Length {
	var canvas draw.Canvas
	r := c.Legend.Rectangle(canvas)
	if h := r.Size().Y; h > 0 {
		return h + vg.Points(12)
	}
	return 0
}

// draw draws the plot above and the legend below on a canvas of
// ChartWidth × (ChartHeight + the legend's height).
func (c Chart) draw(dc draw.Canvas) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	lh := c.legendHeight()
	c.Plot.Draw(draw.Crop(dc, 0, 0, lh, 0))
	if lh == 0 {
		return
	}
	strip := dc
	strip.Max.Y = strip.Min.Y + lh - vg.Points(4)
	strip.Min.X += vg.Points(12)
	c.Legend.Draw(strip)
}

// size is the chart's full size, legend included.
func (c Chart) size() (vg.Length, vg.Length) {
	return ChartWidth, ChartHeight + c.legendHeight()
}

// Render writes the chart in format "svg", "pdf" or "png" (at DefaultDPI).
func (c Chart) Render(w io.Writer, format string) error {
	return c.RenderDPI(w, format, DefaultDPI)
}

// RenderDPI writes the chart in format "svg", "pdf" or "png"; dpi is the
// PNG's resolution.
func (c Chart) RenderDPI(w io.Writer, format string, dpi int) error {
	width, height := c.size()
	var canvas vg.CanvasWriterTo
	switch format {
	case "svg":
		canvas = vgsvg.New(width, height)
	case "pdf":
		canvas = vgpdf.New(width, height)
	case "png":
		if dpi < 1 {
			return fmt.Errorf("results: chart %s: %d dpi", c.Name, dpi)
		}
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))}
	default:
		return fmt.Errorf("results: chart %s: unknown format %q (want svg, pdf or png)", c.Name, format)
	}
	c.draw(draw.New(canvas))
	if _, err := canvas.WriteTo(w); err != nil {
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

// WriteFiles writes the chart as NAME.svg, NAME.pdf and NAME.png (at
// DefaultDPI) into dir and returns the paths.
func (c Chart) WriteFiles(dir results.FileWriter) ([]string, error) {
	return c.WriteFilesDPI(dir, DefaultDPI)
}

// WriteFilesDPI is WriteFiles with the PNG at dpi.
func (c Chart) WriteFilesDPI(dir results.FileWriter, dpi int) ([]string, error) {
	var paths []string
	for _, format := range ChartFormats {
		path, err := dir.WriteFile(c.Name+"."+format, func(w io.Writer) error { return c.RenderDPI(w, format, dpi) })
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// useLogY puts the Y axis on a log scale: ys added after it are drawn as
// log10(y), ticks at the powers of ten labelled with SI prefixes and unit.
func useLogY(c *Chart, unit string) {
	c.logY = true
	c.Plot.Y.Tick.Marker = logTicks{unit: unit}
}

// useLogX is useLogY for the X axis.
func useLogX(c *Chart, unit string) {
	c.logX = true
	c.Plot.X.Tick.Marker = logTicks{unit: unit}
}

// at maps a data point to the chart's axes (log10 on a log axis).
func (c *Chart) at(x, y float64) plotter.XY {
	if c.logX {
		x = math.Log10(x)
	}
	if c.logY {
		y = math.Log10(y)
	}
	return plotter.XY{X: x, Y: y}
}

// useSIY labels a linear Y axis's ticks with SI prefixes and unit.
func useSIY(p *plot.Plot, unit string) {
	p.Y.Tick.Marker = siTicks{unit: unit}
}

// padBars puts n bars at 0..n-1 clear of the frame, and the tallest bar
// (or stack) top clear of the title.
func padBars(p *plot.Plot, n int, top float64) {
	p.X.Min, p.X.Max = -0.7, float64(n-1)+0.7
	p.Y.Min = 0
	if top > 0 {
		p.Y.Max = top * 1.12
	}
}

// showEmpty gives a chart with nothing to draw a plain axis range and a
// message in the middle, so that it still shows its labelled axes.
func showEmpty(c *Chart, msg string) error {
	p := c.Plot
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Y.Scale, p.Y.Tick.Marker = plot.LinearScale{}, plot.ConstantTicks{}
	p.X.Tick.Marker = plot.ConstantTicks{}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: 0.5, Y: 0.5}}, Labels: []string{msg}})
	if err != nil {
		return fmt.Errorf("results: chart %s: %w", c.Name, err)
	}
	labels.TextStyle[0].XAlign = draw.XCenter
	p.Add(labels)
	c.Notes = append(c.Notes, msg)
	return nil
}

// addLine adds a line with points (x, y) for the positive ys (a log axis
// cannot show zero), styled by index; it reports whether anything was
// drawn. Call useLogY first for a log axis.
func addLine(c *Chart, label string, xs, ys []float64, index int) (bool, error) {
	var xy plotter.XYs
	for i, y := range ys {
		if y > 0 && !math.IsInf(y, 0) {
			xy = append(xy, c.at(xs[i], y))
		}
	}
	if len(xy) == 0 {
		return false, nil
	}
	line, points, err := plotter.NewLinePoints(xy)
	if err != nil {
		return false, fmt.Errorf("results: %s: %w", label, err)
	}
	line.Color = plotutil.Color(index)
	points.Color = plotutil.Color(index)
	points.Shape = plotutil.Shape(index)
	c.Plot.Add(line, points)
	c.Legend.Add(label, line, points)
	return true, nil
}

// addBars adds one bar per value, styled by index and stacked on below
// if not nil, their width set by the number of bars.
func addBars(c *Chart, values plotter.Values, index int, label string, below *plotter.BarChart) (*plotter.BarChart, error) {
	bars, err := plotter.NewBarChart(values, vg.Points(max(8, min(40, 300/float64(len(values))))))
	if err != nil {
		return nil, fmt.Errorf("results: chart %s: %s: %w", c.Name, label, err)
	}
	bars.Color = plotutil.Color(index)
	bars.LineStyle.Width = 0
	if below != nil {
		bars.StackOn(below)
	}
	c.Plot.Add(bars)
	c.Legend.Add(label, bars)
	return bars, nil
}

// integerTicks puts a tick on every integer of a short axis (levels,
// searches, iterations), and on round steps of a long one.
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

// siTicks are gonum's default ticks labelled with SI prefixes, three
// significant digits and the unit: 640 M, 100 kB, 15 ms.
type siTicks struct{ unit string }

func (t siTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, tk := range ticks {
		if tk.Label != "" {
			ticks[i].Label = results.FormatSI(tk.Value, t.unit)
		}
	}
	return ticks
}

// logTicks are the ticks of an axis drawn in log10 of its values: a
// labelled tick at each power of ten (every second or third one on a long
// axis), unlabelled ones at 2..9 times it, and labelled ones at 2 and 5
// times it on an axis spanning less than two decades. Labels carry SI
// prefixes and the unit (1 k, 100 kB, 10 ms), or read 1e-6 when unit is
// "e" (dimensionless quantities far below 1).
type logTicks struct{ unit string }

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	label := func(exp float64) string {
		v := math.Pow(10, exp)
		if t.unit == "e" {
			return fmt.Sprintf("1e%d", int(math.Round(exp)))
		}
		return results.FormatSI(v, t.unit)
	}
	step := 1
	for (hi-lo)/float64(step) > 8 {
		step++
	}
	var ticks []plot.Tick
	for k := math.Floor(lo); k <= math.Ceil(hi); k++ {
		for m := 1; m < 10; m++ {
			v := k + math.Log10(float64(m))
			if v < lo-1e-9 || v > hi+1e-9 {
				continue
			}
			tk := plot.Tick{Value: v}
			switch {
			case m == 1 && int(k)%step == 0:
				tk.Label = label(v)
			case hi-lo < 2 && (m == 2 || m == 5) && t.unit != "e":
				tk.Label = results.FormatSI(float64(m)*math.Pow(10, k), t.unit)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// formatFloat prints a number compactly for a table.
func formatFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%.4g", v)
}
