package progress

import (
	"fmt"
	"io"

	"github.com/graphrun/graphrun/graph500"
	"github.com/schollz/progressbar/v3"
)

// Stages is the progress of a Graph500 run: on a terminal one bar over
// generation, construction and the searches; elsewhere a line as each of
// them ends:
//
//	graphrun: generation: 0.0831 s
//	graphrun: construction: 0.412 s
//	graphrun: BFS 0: 0.0143 s, 1.17e9 TEPS, validated in 0.0512 s
//	graphrun: SSSP 0: 0.0521 s, 3.21e8 TEPS, validated in 0.0733 s
//
// (a search not validated ends after its TEPS; one that fails its
// validation says "validation failed in").
type Stages struct {
	w     io.Writer // the lines' writer, off a terminal
	bar   *progressbar.ProgressBar
	steps int
	pos   int
}

// NewStages returns the progress on w of a run of the Kronecker graph of
// scale with roots searches (1 if single: a given root).
func NewStages(w io.Writer, scale, roots int, single bool) *Stages {
	if !IsTerminal(w) {
		return &Stages{w: w}
	}
	if single {
		roots = 1
	}
	total := 2 + roots
	return &Stages{steps: total, bar: newStagesBar(w, scale, total)}
}

// newStagesBar draws on w whatever it is.
func newStagesBar(w io.Writer, scale, total int) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(fmt.Sprintf("scale %d", scale)),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(true),
	)
}

// Update is the graph500.Config.Progress callback.
func (p *Stages) Update(e graph500.Event) {
	if p.bar == nil {
		p.line(e)
		return
	}
	pos := e.Step
	switch e.Stage {
	case graph500.StageConstruct:
		pos++
	case graph500.StageSearch, graph500.StageValidate:
		pos += 2
	case graph500.StageSSSP:
		// Kernel 3's searches follow the BFS's, as many.
		pos += 2 + e.Steps
		if total := 2 + 2*e.Steps; total > p.steps {
			p.steps = total
			p.bar.ChangeMax(total)
		}
	}
	if e.End {
		pos++
		if pos <= p.pos {
			return // a generated graph's generation, ended with kernel 1
		}
	}
	p.pos = min(pos, p.steps)
	p.bar.Describe(e.Stage.String())
	_ = p.bar.Set(p.pos)
}

// line prints the line of an ended step.
func (p *Stages) line(e graph500.Event) {
	if !e.End {
		return
	}
	switch s := e.Search; {
	case s != nil:
		verdict := ""
		if s.ValidateTime >= 0 {
			verdict = ", validated in "
			if !s.Validated {
				verdict = ", validation failed in "
			}
			verdict += seconds(s.ValidateTime) + " s"
		}
		kernel := "BFS"
		if e.Stage == graph500.StageSSSP {
			kernel = "SSSP"
		}
		fmt.Fprintf(p.w, "graphrun: %s %d: %s s, %s TEPS%s\n", kernel, e.Step, seconds(s.Time), number(s.TEPS()), verdict)
	case e.Stage == graph500.StageGenerate:
		fmt.Fprintf(p.w, "graphrun: generation: %s s\n", seconds(e.Seconds))
	case e.Stage == graph500.StageConstruct:
		fmt.Fprintf(p.w, "graphrun: construction: %s s\n", seconds(e.Seconds))
	}
}

// Clear removes the bar (before a warning or the results).
func (p *Stages) Clear() {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}
