package report

import (
	"errors"
	"fmt"
	"github.com/graphrun/graphrun/results"
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Charts of PageRank runs and allreduce benchmarks: the per-layer volume of
// a Kylix allreduce (Kylix Fig. 5), allreduce time against vector length
// (Kylix Fig. 2 and 8), and PageRank's convergence (L1 change per
// iteration) and time per iteration.

// LayerChart draws the bytes of each butterfly layer of a sparse allreduce,
// the "Kylix shape" of Kylix Fig. 5: with a well-designed degree vector
// the volume falls layer by layer. The axis is linear (bars start at zero);
// the table gives the bytes and the messages.
func LayerChart(title string, layers []results.LayerVolume) (Chart, error) {
	c, err := newChartOf(len(layers), "layer chart with no layer", "layers", title,
		"butterfly layer", "bytes sent per iteration, all ranks (B)")
	if err != nil {
		return Chart{}, err
	}
	p := c.Plot
	useSIY(p, "B")
	c.Table = Table{Header: []string{"layer", "bytes", "messages"}}
	b := make(plotter.Values, len(layers))
	names := make([]string, len(layers))
	top := 0.0
	for i, l := range layers {
		b[i] = l.Bytes
		top = max(top, l.Bytes)
		names[i] = fmt.Sprint(i + 1)
		c.Table.Rows = append(c.Table.Rows, []string{names[i], formatFloat(l.Bytes), formatFloat(l.Messages)})
	}
	if _, err := addBars(&c, b, 0, "bytes (messages in the table)", nil); err != nil {
		return Chart{}, err
	}
	nameBars(p, names)
	padBars(p, len(layers), top)
	return c, nil
}

// AllreduceTiming is one measured allreduce: a method, a vector length and
// the seconds one reduction took.
type AllreduceTiming struct {
	Method  string  `json:"method"`
	Length  int64   `json:"length"`
	Seconds float64 `json:"seconds"`
}

// AllreduceChart draws allreduce time against vector length, one line per
// method, on log–log axes (Kylix Fig. 8; Zhang and Qiu's dense allreduce).
func AllreduceChart(timings []AllreduceTiming) (Chart, error) {
	c, err := newChartOf(len(timings), "allreduce chart with no timing", "allreduce", "Allreduce time against vector length",
		"vector length (elements, log scale)", "time per allreduce, slowest rank (s, log scale)")
	if err != nil {
		return Chart{}, err
	}
	useLogX(&c, "")
	useLogY(&c, "s")
	c.Table = Table{Header: []string{"method", "length", "seconds"}}
	var methods []string
	byMethod := map[string][2][]float64{}
	for _, tm := range timings {
		c.Table.Rows = append(c.Table.Rows, []string{tm.Method, fmt.Sprint(tm.Length), formatFloat(tm.Seconds)})
		if tm.Length <= 0 || tm.Seconds <= 0 {
			c.note("%s at length %d: %s s not drawn", tm.Method, tm.Length, formatFloat(tm.Seconds))
			continue
		}
		if _, ok := byMethod[tm.Method]; !ok {
			methods = append(methods, tm.Method)
		}
		xy := byMethod[tm.Method]
		byMethod[tm.Method] = [2][]float64{append(xy[0], float64(tm.Length)), append(xy[1], tm.Seconds)}
	}
	if len(methods) == 0 {
		return c, showEmpty(&c, "no positive timing")
	}
	for i, m := range methods {
		if _, err := addLine(&c, m, byMethod[m][0], byMethod[m][1], i); err != nil {
			return Chart{}, err
		}
	}
	return c, nil
}

// LabeledPageRank is a PageRank run with the name a chart gives it;
// PageRankLabels gives runs the names that tell them apart.
type LabeledPageRank struct {
	Label string
	Run   *results.PageRankRun
}

// pageRankFields are the parameters that may tell PageRank runs apart.
var pageRankFields = []func(r *results.PageRankRun) string{
	func(r *results.PageRankRun) string { return r.Input },
	func(r *results.PageRankRun) string { return results.RankCount(r.NumRanks) },
	func(r *results.PageRankRun) string { return results.AllreduceLabel(r.Allreduce, r.NumRanks) },
	func(r *results.PageRankRun) string { return r.Partition + " partition" },
	func(r *results.PageRankRun) string { return fmt.Sprintf("alpha %g", r.Alpha) },
	func(r *results.PageRankRun) string { return fmt.Sprintf("tolerance %s", expLabel(r.Tol)) },
	func(r *results.PageRankRun) string { return fmt.Sprintf("%d threads", r.Threads) },
}

// PageRankLabels names each PageRank run by what differs between the runs
// compared (input, ranks, allreduce, partition, alpha, tolerance, threads),
// and by its file name where that is not enough. A single run is named by
// its input and ranks.
func PageRankLabels(runs []*results.PageRankRun, names []string) []string {
	switch len(runs) {
	case 0:
		return nil
	case 1:
		return []string{fmt.Sprintf("%s, %s", runs[0].Input, results.RankCount(runs[0].NumRanks))}
	}
	return labelsByDifference(runs, pageRankFields, names)
}

// expLabel writes a small number as 1e-10 rather than 1e-10's %g, 1e-10.
func expLabel(v float64) string {
	return strings.Replace(fmt.Sprintf("%.3g", v), "e-0", "e-", 1)
}

// iterationXs are 1..n.
func iterationXs(n int) []float64 { return levelXs(n + 1)[1:] }

// ConvergenceChart draws a PageRank run's L1 change after each iteration
// on a log scale, with the tolerance it stops below.
func ConvergenceChart(r *results.PageRankRun) (Chart, error) {
	return PageRankConvergenceChart([]LabeledPageRank{{"L1 change", r}})
}

// PageRankConvergenceChart draws every run's L1 change after each
// iteration on a log scale, one line per run, and each tolerance the runs
// stop below.
func PageRankConvergenceChart(runs []LabeledPageRank) (Chart, error) {
	if len(runs) == 0 {
		return Chart{}, errors.New("results: convergence chart of no run")
	}
	if len(runs) == 1 && len(runs[0].Run.L1Changes) == 0 {
		return Chart{}, errors.New("results: convergence chart of a run without per-iteration L1 changes")
	}
	c := newChart("pagerank-convergence", "PageRank convergence",
		"iteration", "L1 change of the rank vector (log scale)")
	useLogY(&c, "e")
	drawn, last, err := perIteration(&c, runs, "L1 change", func(r *results.PageRankRun) []float64 { return r.L1Changes },
		func(v float64) string { return fmt.Sprintf("%.6e", v) })
	if err != nil {
		return Chart{}, err
	}
	if len(drawn) == 0 {
		return c, showEmpty(&c, "no L1 change to draw")
	}
	var tols []float64
	for _, r := range drawn {
		if zeros := zeroLevels(append([]float64{1}, r.Run.L1Changes...)); zeros != "" {
			c.note("%s: L1 change 0 at %s, not drawn (log scale)", r.Label, strings.Replace(zeros, "level", "iteration", 1))
		}
		if r.Run.Tol > 0 && !slices.Contains(tols, r.Run.Tol) {
			tols = append(tols, r.Run.Tol)
		}
	}
	for k, tol := range tols {
		line, err := plotter.NewLine(plotter.XYs{c.at(1, tol), c.at(float64(last), tol)})
		if err != nil {
			return Chart{}, fmt.Errorf("results: convergence: %w", err)
		}
		line.Color = color.Gray{Y: 100}
		line.Dashes = []vg.Length{vg.Points(4 + 2*float64(k)), vg.Points(3)}
		c.Plot.Add(line)
		c.Legend.Add("tolerance "+expLabel(tol), line)
	}
	c.Plot.X.Tick.Marker = integerTicks{}
	return c, nil
}

// perIteration draws one line per run of pick(run) against the iteration
// number and tabulates it (column what, values by format); it names the
// runs without such figures and those with nothing drawable, and returns
// the runs drawn and the last iteration.
func perIteration(c *Chart, runs []LabeledPageRank, what string, pick func(*results.PageRankRun) []float64, format func(float64) string) (drawn []LabeledPageRank, last int, err error) {
	c.Table = Table{Header: []string{"run", "iteration", what}}
	last = 1
	for i, lr := range runs {
		ys := pick(lr.Run)
		if len(ys) == 0 {
			c.note("%s: no per-iteration %s recorded (a run before graphrun 0.2)", lr.Label, what)
			continue
		}
		for it, y := range ys {
			c.Table.Rows = append(c.Table.Rows, []string{lr.Label, fmt.Sprint(it + 1), format(y)})
		}
		ok, err := addLine(c, lr.Label, iterationXs(len(ys)), ys, i)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			c.note("%s: every %s is 0, not drawn", lr.Label, what)
			continue
		}
		drawn = append(drawn, lr)
		last = max(last, len(ys))
	}
	return drawn, last, nil
}

// IterationTimeChart draws the wall time of each PageRank iteration, each
// timed on the slowest rank.
func IterationTimeChart(r *results.PageRankRun) (Chart, error) {
	if len(r.IterationTimes) == 0 {
		return Chart{}, errors.New("results: iteration time chart of a run without per-iteration times")
	}
	c, err := PageRankIterationTimeChart([]LabeledPageRank{{"one iteration", r}})
	c.Plot.Title.Text = fmt.Sprintf("PageRank time per iteration (%s)", results.RankCount(r.NumRanks))
	return c, err
}

// PageRankIterationTimeChart draws the wall time of each iteration of
// every run, each timed on the slowest rank, one line per run.
func PageRankIterationTimeChart(runs []LabeledPageRank) (Chart, error) {
	c, err := newChartOf(len(runs), "iteration time chart of no run", "pagerank-iteration-time", "PageRank time per iteration",
		"iteration", "wall time, slowest rank (s)")
	if err != nil {
		return Chart{}, err
	}
	useSIY(c.Plot, "s")
	drawn, last, err := perIteration(&c, runs, "time", func(r *results.PageRankRun) []float64 { return r.IterationTimes }, formatFloat)
	if err != nil {
		return Chart{}, err
	}
	if len(drawn) == 0 {
		return c, showEmpty(&c, "no iteration time to draw")
	}
	top := 0.0
	for _, r := range drawn {
		top = max(top, slices.Max(r.Run.IterationTimes))
	}
	c.Plot.X.Tick.Marker = integerTicks{}
	c.Plot.X.Min, c.Plot.X.Max = 0.5, float64(last)+0.5
	c.Plot.Y.Min, c.Plot.Y.Max = 0, top*1.12
	return c, nil
}
