package report

import (
	"fmt"
	"github.com/graphrun/graphrun/results"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Charts: the papers' pictures drawn from graphrun's own runs, with gonum's
// plot package — the per-level frontier and bytes of a BFS (Lv et al.
// Fig. 3 and Table II), the stacked time breakdown per algorithm (Lv et al.
// Fig. 7 and 10), the TEPS of the searches and of whole runs (Lv et al.
// §VII), the per-layer volume of a Kylix allreduce (Kylix Fig. 5),
// allreduce time against vector length (Kylix Fig. 2 and 8), and PageRank's convergence and iteration
// times. Each builder returns a Chart: the plot plus the table of the
// numbers drawn, so a report can show both. chartkit.go holds the drawing
// conventions.

// LabeledRun is a BFS run with the name a chart gives it; RunLabels gives
// runs the names that tell them apart.
type LabeledRun struct {
	Label string
	Run   *results.Graph500Run
}

// RunLabel names a run by its exchange, codec and direction, and its grid
// when it ran on the 2D partition: "exchange packed, codec auto, direction
// auto".
func RunLabel(r *results.Graph500Run) string {
	label := fmt.Sprintf("exchange %s, codec %s, direction %s", r.Exchange, r.Codec, r.Direction)
	if r.Partition == "2d" {
		label += ", 2D grid " + r.Grid
	}
	return label
}

// runFields are the parameters that may tell BFS runs apart.
var runFields = []func(r *results.Graph500Run) string{
	func(r *results.Graph500Run) string { return fmt.Sprintf("scale %d", r.Scale) },
	func(r *results.Graph500Run) string { return fmt.Sprintf("edgefactor %d", r.EdgeFactor) },
	func(r *results.Graph500Run) string { return results.RankCount(r.NumRanks) },
	func(r *results.Graph500Run) string {
		if r.Partition == "2d" {
			return "2D grid " + r.Grid
		}
		return "1D"
	},
	func(r *results.Graph500Run) string { return "exchange " + r.Exchange },
	func(r *results.Graph500Run) string { return "codec " + r.Codec },
	func(r *results.Graph500Run) string { return "direction " + r.Direction },
	func(r *results.Graph500Run) string { return fmt.Sprintf("%d threads", r.Threads) },
	func(r *results.Graph500Run) string { return fmt.Sprintf("seed %d", r.Seed) },
}

// RunLabels names each run by what differs between the runs compared
// (scale, ranks, partition, exchange, codec, direction, threads, seed, in
// that order), and by its file name (names[i], may be empty) where that is
// not enough to tell two apart. A single run is named by its scale, ranks
// and exchange.
func RunLabels(runs []*results.Graph500Run, names []string) []string {
	labels := make([]string, len(runs))
	if len(runs) == 0 {
		return labels
	}
	if len(runs) == 1 {
		labels[0] = fmt.Sprintf("scale %d, %s, exchange %s", runs[0].Scale, results.RankCount(runs[0].NumRanks), runs[0].Exchange)
		return labels
	}
	return labelsByDifference(runs, runFields, names)
}

// labelsByDifference names each of several runs by the fields whose value
// differs between them, in the order of fields, then by its file name
// (names[i]) where that is not enough, then by its position.
func labelsByDifference[R any](runs []R, fields []func(R) string, names []string) []string {
	labels := make([]string, len(runs))
	parts := make([][]string, len(runs))
	for _, field := range fields {
		differs := false
		for _, r := range runs[1:] {
			differs = differs || field(r) != field(runs[0])
		}
		if differs {
			for i, r := range runs {
				parts[i] = append(parts[i], field(r))
			}
		}
	}
	for i := range runs {
		labels[i] = strings.Join(parts[i], ", ")
	}
	if unique(labels) {
		return labels
	}
	for i := range runs {
		name := ""
		if i < len(names) {
			name = filepath.Base(names[i])
		}
		if name == "" || name == "." {
			name = fmt.Sprintf("run %d", i+1)
		}
		labels[i] = strings.TrimPrefix(labels[i]+", "+name, ", ")
	}
	if !unique(labels) {
		for i := range labels {
			labels[i] = fmt.Sprintf("run %d: %s", i+1, labels[i])
		}
	}
	return labels
}

func unique(labels []string) bool {
	seen := make(map[string]bool, len(labels))
	for _, l := range labels {
		if seen[l] {
			return false
		}
		seen[l] = true
	}
	return true
}

// meanLevels averages, level by level, the frontier and bytes over a run's
// searches (a search shorter than another counts zero for the missing
// levels). A search's levels are in level order from the root's, so the
// position in the list is the level (whatever number a file claims).
func meanLevels(r *results.Graph500Run) (frontier, sent []float64) {
	for _, s := range r.Searches {
		for j, l := range s.Levels {
			if j == len(frontier) {
				frontier, sent = append(frontier, 0), append(sent, 0)
			}
			frontier[j] += float64(l.Frontier)
			sent[j] += float64(l.Bytes)
		}
	}
	n := float64(max(1, len(r.Searches)))
	for i := range frontier {
		frontier[i] /= n
		sent[i] /= n
	}
	return frontier, sent
}

// levelXs are 0..n-1.
func levelXs(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	return xs
}

// FrontierChart draws, per BFS level, every run's mean frontier size in
// vertices on a log scale (Lv et al. Fig. 3).
func FrontierChart(runs []LabeledRun) (Chart, error) {
	return levelChart(runs, "bfs-frontier", "BFS frontier size per level (mean over searches)",
		"frontier (vertices, log scale)", "", "frontier (vertices)", func(f, _ []float64) []float64 { return f }, "no level was recorded")
}

// BytesChart draws, per BFS level, the mean bytes every run's ranks sent in
// all on a log scale (Lv et al. Table II). A run that sent nothing (one
// rank) is named in the legend and the notes as not drawn.
func BytesChart(runs []LabeledRun) (Chart, error) {
	return levelChart(runs, "bfs-bytes", "Bytes sent per BFS level (mean over searches)",
		"bytes sent, all ranks (B, log scale)", "B", "bytes sent", func(_, s []float64) []float64 { return s }, "no bytes sent")
}

// levelChart draws one line per run of pick(frontier, sent) by level.
func levelChart(runs []LabeledRun, name, title, ylabel, unit, column string, pick func(f, s []float64) []float64, none string) (Chart, error) {
	if len(runs) == 0 {
		return Chart{}, fmt.Errorf("results: %s chart of no run", name)
	}
	c := newChart(name, title, "BFS level", ylabel)
	c.Table = Table{Header: []string{"run", "level", column}}
	useLogY(&c, unit)
	drawn := 0
	for i, lr := range runs {
		f, s := meanLevels(lr.Run)
		ys := pick(f, s)
		ok, err := addLine(&c, lr.Label, levelXs(len(ys)), ys, i)
		if err != nil {
			return Chart{}, err
		}
		if ok {
			drawn++
			if zeros := zeroLevels(ys); zeros != "" {
				c.note("%s: 0 at %s, not drawn (log scale)", lr.Label, zeros)
			}
		} else {
			why := none
			if lr.Run.NumRanks == 1 && len(ys) > 0 {
				why += ": it ran on 1 rank"
			}
			c.note("%s: not drawn (%s)", lr.Label, why)
		}
		for lvl, y := range ys {
			c.Table.Rows = append(c.Table.Rows, []string{lr.Label, fmt.Sprint(lvl), formatFloat(y)})
		}
	}
	if drawn == 0 {
		return c, showEmpty(&c, "nothing to draw: "+none)
	}
	c.Plot.X.Tick.Marker = integerTicks{}
	return c, nil
}

// breakdownLabels are the four times of Lv et al. Fig. 7, bottom to top of
// a bar, then the rest of the search's time.
var breakdownLabels = [5]string{"traversing", "reducing", "communication", "compression & sieve", "other (waiting, level setup)"}

// meanBreakdown returns a run's times per search, averaged over searches:
// the four phases, each summed over levels, then the rest of the search's
// time. A level records each phase's slowest rank, and at 2 ranks or more
// those maxima, taken on different ranks, add up to more than the search
// took; a search's phases are then scaled down together, keeping their
// shares, to its time, so that a bar is the search's time, never more;
// scaled says whether a search's were.
func meanBreakdown(r *results.Graph500Run) (t [5]float64, scaled bool) {
	for _, s := range r.Searches {
		var phases [4]float64
		for _, l := range s.Levels {
			phases[0] += l.Traverse
			phases[1] += l.Reduce
			phases[2] += l.Communicate
			phases[3] += l.Compress
		}
		sum := phases[0] + phases[1] + phases[2] + phases[3]
		scale := 1.0
		if sum > s.Time && s.Time > 0 {
			scale, scaled = s.Time/sum, true
		}
		for i, v := range phases {
			t[i] += v * scale
		}
		t[4] += max(0, s.Time-sum*scale)
	}
	for i := range t {
		t[i] /= float64(max(1, len(r.Searches)))
	}
	return t, scaled
}

// zeroLevels lists the levels whose value is 0: "level 0", "levels 0, 6".
func zeroLevels(ys []float64) string {
	var zeros []string
	for lvl, y := range ys {
		if y == 0 {
			zeros = append(zeros, fmt.Sprint(lvl))
		}
	}
	switch len(zeros) {
	case 0:
		return ""
	case 1:
		return "level " + zeros[0]
	}
	return "levels " + strings.Join(zeros, ", ")
}

// BreakdownChart draws one stacked bar per run: the seconds per search spent
// traversing, reducing, communicating and compressing & sieving (Lv et al.
// Fig. 7 and 10), each level's the slowest rank's, and the rest of the
// search: a bar is the mean search's time (meanBreakdown).
func BreakdownChart(runs []LabeledRun) (Chart, error) {
	c, err := newChartOf(len(runs), "breakdown chart of no run", "breakdown", "Time per search by activity (mean over searches)",
		"run", "time per search (s)")
	if err != nil {
		return Chart{}, err
	}
	p := c.Plot
	useSIY(p, "s")
	c.Table = Table{Header: []string{"run"}}
	for _, l := range breakdownLabels {
		c.Table.Header = append(c.Table.Header, l+" s")
	}
	values := make([]plotter.Values, len(breakdownLabels))
	names := make([]string, len(runs))
	top, scaled := 0.0, false
	for i, lr := range runs {
		b, sc := meanBreakdown(lr.Run)
		scaled = scaled || sc
		row := []string{lr.Label}
		for k, v := range b {
			values[k] = append(values[k], v)
			row = append(row, formatFloat(v))
		}
		top = max(top, b[0]+b[1]+b[2]+b[3]+b[4])
		c.Table.Rows = append(c.Table.Rows, row)
		names[i] = lr.Label
	}
	var below *plotter.BarChart
	for k, v := range values {
		bars, err := addBars(&c, v, k, breakdownLabels[k], below)
		if err != nil {
			return Chart{}, err
		}
		below = bars
	}
	if top == 0 {
		c.note("every time is zero: the runs recorded no level")
	}
	if scaled {
		c.note("each level's phases are its slowest rank's; where they add up to more than the search took (2 ranks or more), they are scaled down together to its time")
	}
	nameBars(p, names)
	padBars(p, len(runs), top)
	return c, nil
}

// nameBars names the bars of a bar chart, breaking a long name into lines
// at its commas so that the names fit side by side under their bars, and
// slanting them when there are too many bars for that.
func nameBars(p *plot.Plot, names []string) {
	width := max(12, 56/max(1, len(names)))
	wrapped := make([]string, len(names))
	for i, n := range names {
		wrapped[i] = wrapAtCommas(n, width)
	}
	p.NominalX(wrapped...)
	p.Y.Padding = vg.Points(5) // NominalX pads by half the first name, which padBars's range already leaves room for
	if len(names) > 6 {
		p.X.Tick.Label.Rotation = math.Pi / 8
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
}

// wrapAtCommas breaks s after commas into lines of at most width
// characters where it can.
func wrapAtCommas(s string, width int) string {
	var lines []string
	for _, part := range strings.Split(s, ", ") {
		if n := len(lines); n > 0 && len(lines[n-1])+2+len(part) <= width {
			lines[n-1] += ", " + part
		} else {
			lines = append(lines, part)
		}
	}
	return strings.Join(lines, ",\n")
}

// finiteTEPS reports whether a TEPS figure can be drawn on a log axis.
func finiteTEPS(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// TEPSChart draws the TEPS of every search of a run in search order, and
// their harmonic mean as a horizontal line (the Graph500 statistic).
func TEPSChart(r *results.Graph500Run) (Chart, error) {
	c, err := newChartOf(len(r.Searches), "TEPS chart of a run with no search", "teps",
		fmt.Sprintf("TEPS of each of the %d searches (scale %d, %s)", len(r.Searches), r.Scale, results.RankCount(r.NumRanks)),
		"search", "traversed edges per second (TEPS)")
	if err != nil {
		return Chart{}, err
	}
	p := c.Plot
	c.Table = Table{Header: []string{"search", "root", "nedge", "time s", "TEPS"}}
	var raw plotter.XYs
	lo, hi := math.Inf(1), 0.0
	for i, s := range r.Searches {
		teps := s.TEPS()
		c.Table.Rows = append(c.Table.Rows, []string{fmt.Sprint(i), fmt.Sprint(s.Root), fmt.Sprint(s.NEdge), formatFloat(s.Time), formatFloat(teps)})
		if finiteTEPS(teps) {
			raw = append(raw, plotter.XY{X: float64(i), Y: teps})
			lo, hi = min(lo, teps), max(hi, teps)
		} else {
			c.note("search %d: TEPS %s not drawn (nedge %d, time %s s)", i, formatFloat(teps), s.NEdge, formatFloat(s.Time))
		}
	}
	if len(raw) == 0 {
		return c, showEmpty(&c, "no search has a finite positive TEPS")
	}
	if hi/lo > 100 {
		useLogY(&c, "")
	} else {
		useSIY(p, "")
		p.Y.Min = 0
	}
	xy := make(plotter.XYs, len(raw))
	for i, pt := range raw {
		xy[i] = c.at(pt.X, pt.Y)
	}
	scatter, err := plotter.NewScatter(xy)
	if err != nil {
		return Chart{}, fmt.Errorf("results: TEPS: %w", err)
	}
	scatter.Color = plotutil.Color(0)
	p.Add(scatter)
	c.Legend.Add("one search", scatter)
	hm := results.ComputeTEPS(r.Searches).HarmonicMean
	if finiteTEPS(hm) {
		mean, err := plotter.NewLine(plotter.XYs{c.at(0, hm), c.at(float64(len(r.Searches)-1), hm)})
		if err != nil {
			return Chart{}, fmt.Errorf("results: TEPS: %w", err)
		}
		mean.Color = plotutil.Color(1)
		mean.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(mean)
		c.Legend.Add("harmonic mean (Graph500): "+results.FormatCount(hm)+" TEPS", mean)
	}
	p.X.Tick.Marker = integerTicks{}
	p.X.Min, p.X.Max = -0.5, float64(len(r.Searches))-0.5
	return c, nil
}

// RunsTEPSChart compares runs by their Graph500 figure of merit: one bar per
// run at the harmonic mean TEPS of its searches, with a whisker from its
// slowest to its fastest search.
func RunsTEPSChart(runs []LabeledRun) (Chart, error) {
	c, err := newChartOf(len(runs), "TEPS comparison of no run", "teps-runs", "Harmonic mean TEPS of each run",
		"run", "traversed edges per second (TEPS)")
	if err != nil {
		return Chart{}, err
	}
	p := c.Plot
	useSIY(p, "")
	c.Table = Table{Header: []string{"run", "searches", "min TEPS", "harmonic mean TEPS", "max TEPS"}}
	means := make(plotter.Values, len(runs))
	var whiskers plotterErrors
	names := make([]string, len(runs))
	top := 0.0
	for i, lr := range runs {
		st := results.ComputeTEPS(lr.Run.Searches)
		names[i] = lr.Label
		c.Table.Rows = append(c.Table.Rows, []string{lr.Label, fmt.Sprint(len(lr.Run.Searches)), results.FormatCount(st.Min), results.FormatCount(st.HarmonicMean), results.FormatCount(st.Max)})
		if !finiteTEPS(st.HarmonicMean) {
			c.note("%s: harmonic mean %s not drawn", lr.Label, formatFloat(st.HarmonicMean))
			continue
		}
		means[i] = st.HarmonicMean
		top = max(top, st.HarmonicMean)
		if finiteTEPS(st.Min) && finiteTEPS(st.Max) {
			whiskers.add(float64(i), st.HarmonicMean, st.Min, st.Max)
			top = max(top, st.Max)
		}
	}
	if _, err := addBars(&c, means, 0, "harmonic mean of the searches (Graph500)", nil); err != nil {
		return Chart{}, err
	}
	if len(whiskers.XYs) > 0 {
		eb, err := plotter.NewYErrorBars(whiskers)
		if err != nil {
			return Chart{}, fmt.Errorf("results: TEPS comparison: %w", err)
		}
		p.Add(eb)
		c.Legend.Add("slowest to fastest search", whiskerThumb(eb.LineStyle))
	}
	nameBars(p, names)
	padBars(p, len(runs), top)
	return c, nil
}

// whiskerThumb is a legend symbol for error bars: a vertical line.
type whiskerThumb draw.LineStyle

// Thumbnail implements plot.Thumbnailer.
func (w whiskerThumb) Thumbnail(c *draw.Canvas) {
	x := c.Center().X
	c.StrokeLine2(draw.LineStyle(w), x, c.Min.Y, x, c.Max.Y)
}

// plotterErrors are points with asymmetric Y error bars.
type plotterErrors struct {
	plotter.XYs
	plotter.YErrors
}

// Len is the number of points.
func (e plotterErrors) Len() int { return len(e.XYs) }

func (e *plotterErrors) add(x, y, lo, hi float64) {
	e.XYs = append(e.XYs, plotter.XY{X: x, Y: y})
	e.YErrors = append(e.YErrors, struct{ Low, High float64 }{y - lo, hi - y})
}
