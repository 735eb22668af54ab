package results

import (
	"errors"
	"fmt"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Charts of PageRank runs and allreduce benchmarks: the per-layer volume of
// a Kylix allreduce (paper 000 Fig. 5), allreduce time against vector length
// (paper 000 Fig. 2 and 8), and PageRank's convergence (L1 change per
// iteration) and time per iteration.

// LayerVolume is one butterfly layer's traffic, all ranks, per iteration or
// in total.
type LayerVolume struct {
	Bytes    float64
	Messages float64
}

// LayerChart draws the bytes of each butterfly layer of a sparse allreduce,
// the "Kylix shape" of paper 000 Fig. 5: with a well-designed degree vector
// the volume falls layer by layer. The axis is linear (bars start at zero);
// the table gives the bytes and the messages.
func LayerChart(title string, layers []LayerVolume) (Chart, error) {
	if len(layers) == 0 {
		return Chart{}, errors.New("results: layer chart with no layer")
	}
	c := newChart("layers", title,
		"butterfly layer", "bytes sent per iteration, all ranks (B)")
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
// method, on log–log axes (paper 000 Fig. 8, paper 002).
func AllreduceChart(timings []AllreduceTiming) (Chart, error) {
	if len(timings) == 0 {
		return Chart{}, errors.New("results: allreduce chart with no timing")
	}
	c := newChart("allreduce", "Allreduce time against vector length",
		"vector length (elements, log scale)", "time per allreduce, slowest rank (s, log scale)")
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

// ConvergenceChart draws PageRank's L1 change after each iteration on a
// log scale, with the tolerance it stops below.
func ConvergenceChart(r *PageRankRun) (Chart, error) {
	if len(r.L1Changes) == 0 {
		return Chart{}, errors.New("results: convergence chart of a run without per-iteration L1 changes")
	}
	c := newChart("pagerank-convergence", "PageRank convergence",
		"iteration", "L1 change of the rank vector (log scale)")
	p := c.Plot
	c.Table = Table{Header: []string{"iteration", "L1 change"}}
	useLogY(&c, "e")
	xs := levelXs(len(r.L1Changes) + 1)[1:]
	for i, l1 := range r.L1Changes {
		c.Table.Rows = append(c.Table.Rows, []string{fmt.Sprint(i + 1), fmt.Sprintf("%.6e", l1)})
	}
	ok, err := addLine(&c, "L1 change", xs, r.L1Changes, 0)
	if err != nil {
		return Chart{}, err
	}
	if !ok {
		return c, showEmpty(&c, "every L1 change is zero")
	}
	if r.Tol > 0 {
		tol, err := plotter.NewLine(plotter.XYs{c.at(xs[0], r.Tol), c.at(xs[len(xs)-1], r.Tol)})
		if err != nil {
			return Chart{}, fmt.Errorf("results: convergence: %w", err)
		}
		tol.Color = plotutil.Color(1)
		tol.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(tol)
		c.Legend.Add("tolerance "+strings.Replace(fmt.Sprintf("%.3g", r.Tol), "e-0", "e-", 1), tol)
	}
	for i, l1 := range r.L1Changes {
		if l1 <= 0 {
			c.note("iteration %d: L1 change 0 not drawn (log scale)", i+1)
		}
	}
	p.X.Tick.Marker = integerTicks{}
	return c, nil
}

// IterationTimeChart draws the wall time of each PageRank iteration, each
// timed on the slowest rank.
func IterationTimeChart(r *PageRankRun) (Chart, error) {
	if len(r.IterationTimes) == 0 {
		return Chart{}, errors.New("results: iteration time chart of a run without per-iteration times")
	}
	c := newChart("pagerank-iteration-time", fmt.Sprintf("PageRank time per iteration (%s)", RankCount(r.NumRanks)),
		"iteration", "wall time, slowest rank (s)")
	p := c.Plot
	useSIY(p, "s")
	c.Table = Table{Header: []string{"iteration", "seconds"}}
	xs := levelXs(len(r.IterationTimes) + 1)[1:]
	top := 0.0
	for i, t := range r.IterationTimes {
		c.Table.Rows = append(c.Table.Rows, []string{fmt.Sprint(i + 1), formatFloat(t)})
		top = max(top, t)
	}
	ok, err := addLine(&c, "one iteration", xs, r.IterationTimes, 0)
	if err != nil {
		return Chart{}, err
	}
	if !ok {
		return c, showEmpty(&c, "every iteration took 0 s")
	}
	p.X.Tick.Marker = integerTicks{}
	p.X.Min, p.X.Max = 0.5, float64(len(xs))+0.5
	p.Y.Min, p.Y.Max = 0, top*1.12
	return c, nil
}
