// Package progress draws graphrun's progress bars on a terminal: the
// stages of a Graph500 run (generation, construction, each search; the
// Graph500 spec's benchmark, REFERENCES.md), PageRank's iterations and
// their L1 change (Kylix §VII-D), and a benchmark matrix run by run. A bar is
// drawn only when its writer is a terminal, so that logs and pipes stay
// clean; a matrix prints one line per finished run there instead.
package progress

import (
	"fmt"
	"io"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// IsTerminal reports whether w writes to a terminal (an *os.File, or a
// writer that passes on the file descriptor of one).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// Stages is one bar over a Graph500 run: generation, construction and the
// searches.
type Stages struct {
	bar   *progressbar.ProgressBar
	steps int
}

// NewStages returns the bar of a run of the Kronecker graph of scale with
// roots searches (1 if single: a given root); it draws only if w is a
// terminal.
func NewStages(w io.Writer, scale, roots int, single bool) *Stages {
	if !IsTerminal(w) {
		return &Stages{}
	}
	if single {
		roots = 1
	}
	total := 2 + roots
	return &Stages{steps: total, bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(fmt.Sprintf("scale %d", scale)),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(true),
	)}
}

// Update is the graph500.Config.Progress callback.
func (p *Stages) Update(stage string, done, total int) {
	if p.bar == nil {
		return
	}
	pos := 0
	switch stage {
	case "generate":
		pos = done
	case "construct":
		pos = 1 + done
	case "search", "validate":
		pos = 2 + done
	}
	p.bar.Describe(stage)
	_ = p.bar.Set(min(pos, p.steps))
}

// Clear removes the bar (before a warning or the results).
func (p *Stages) Clear() {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}

// Iterations draws PageRank's progress: the last iteration's number and
// L1 change, with a bar over the iterations when the run has a fixed
// count, else beside a spinner and the tolerance it runs to (most runs
// converge long before their maximum). Every in-process rank reports each
// iteration; the display moves once per iteration.
type Iterations struct {
	mu   sync.Mutex
	bar  *progressbar.ProgressBar
	tol  float64 // > 0: the run stops below this L1 change
	last int
}

// NewIterations returns the progress of a run of iterations iterations,
// or (iterations 0) of one that runs until its L1 change falls below tol;
// it draws only if w is a terminal.
func NewIterations(w io.Writer, iterations int, tol float64) *Iterations {
	if !IsTerminal(w) {
		return &Iterations{}
	}
	return newIterationBar(w, iterations, tol)
}

// newIterationBar draws on w whatever it is.
func newIterationBar(w io.Writer, iterations int, tol float64) *Iterations {
	p := &Iterations{}
	total := iterations
	if total <= 0 {
		total, p.tol = -1, tol // a spinner: the count is not known
	}
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("pagerank"),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionThrottle(0),
	)
	return p
}

// Update is the pagerank.Config.Progress callback.
func (p *Iterations) Update(iteration int, l1 float64) {
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if iteration <= p.last {
		return // another rank's report of the same iteration
	}
	p.last = iteration
	desc := fmt.Sprintf("iteration %d, L1 change %.3g", iteration, l1)
	if p.tol > 0 {
		desc += fmt.Sprintf(" (runs to %.3g)", p.tol)
	}
	p.bar.Describe(desc)
	if m := p.bar.GetMax(); m > 0 {
		iteration = min(iteration, m)
	}
	_ = p.bar.Set(iteration)
}

// Clear removes the bar before the results are printed.
func (p *Iterations) Clear() {
	if p.bar != nil {
		p.mu.Lock()
		_ = p.bar.Clear()
		p.mu.Unlock()
	}
}

// Matrix reports a benchmark matrix run by run: a bar on a terminal, one
// line per finished run otherwise (so logs show the progress too).
type Matrix struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	name  string
	count int
	total int
}

// NewMatrix returns the progress of the matrix name of total runs on w.
func NewMatrix(w io.Writer, name string, total int) *Matrix {
	p := &Matrix{w: w, name: name, total: total}
	if IsTerminal(w) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(name),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
		)
	}
	return p
}

// Step records a finished run and its one-line result.
func (p *Matrix) Step(result string) {
	p.count++
	if p.bar != nil {
		p.bar.Describe(result)
		_ = p.bar.Add(1)
		return
	}
	fmt.Fprintf(p.w, "graphrun: bench %s [%d/%d] %s\n", p.name, p.count, p.total, result)
}

// Finish ends the bar, if one is drawn.
func (p *Matrix) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}
