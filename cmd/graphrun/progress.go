package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/graphrun/graphrun/gen/kronecker"
)

// progress draws one bar on stderr over generation, construction and the
// searches, and only when stderr is a terminal.
type progress struct {
	bar   *progressbar.ProgressBar
	steps int
}

func newProgress(stderr io.Writer, p kronecker.Params, roots int, single bool) *progress {
	if !isTerminal(stderr) {
		return &progress{}
	}
	if single {
		roots = 1
	}
	total := 2 + roots
	return &progress{steps: total, bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(fmt.Sprintf("scale %d", p.Scale)),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(true),
	)}
}

// isTerminal reports whether w writes to a terminal (an *os.File, or
// runMain's gate on one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// update is the graph500.Config.Progress callback.
func (p *progress) update(stage string, done, total int) {
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

func (p *progress) clear() {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}

// iterationProgress draws PageRank's progress on stderr, when it is a
// terminal: the last iteration's number and L1 change, with a bar over
// --iterations when the run has a fixed count, else beside a spinner and
// the tolerance it runs to (most runs converge long before --max-iter).
// Every in-process rank reports each iteration; the display moves once per
// iteration.
type iterationProgress struct {
	mu   sync.Mutex
	bar  *progressbar.ProgressBar
	tol  float64 // > 0: the run stops below this L1 change
	last int
}

// newIterationProgress returns the progress of a run of iterations
// iterations, or (iterations 0) of one that runs until its L1 change falls
// below tol; it draws only if stderr is a terminal.
func newIterationProgress(stderr io.Writer, iterations int, tol float64) *iterationProgress {
	if !isTerminal(stderr) {
		return &iterationProgress{}
	}
	return newIterationBar(stderr, iterations, tol)
}

// newIterationBar draws on w whatever it is.
func newIterationBar(w io.Writer, iterations int, tol float64) *iterationProgress {
	p := &iterationProgress{}
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

// update is the spmv.PageRankConfig.Progress callback.
func (p *iterationProgress) update(iteration int, l1 float64) {
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

// clear removes the bar before the results are printed.
func (p *iterationProgress) clear() {
	if p.bar != nil {
		p.mu.Lock()
		_ = p.bar.Clear()
		p.mu.Unlock()
	}
}

// matrixProgress reports a benchmark matrix run by run: a bar on a terminal,
// one line per finished run otherwise (so logs show the progress too).
type matrixProgress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	name  string
	count int
	total int
}

func newMatrixProgress(stderr io.Writer, name string, total int) *matrixProgress {
	p := &matrixProgress{w: stderr, name: name, total: total}
	if isTerminal(stderr) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription(name),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
		)
	}
	return p
}

// step records a finished run and its one-line result.
func (p *matrixProgress) step(result string) {
	p.count++
	if p.bar != nil {
		p.bar.Describe(result)
		_ = p.bar.Add(1)
		return
	}
	fmt.Fprintf(p.w, "graphrun: bench %s [%d/%d] %s\n", p.name, p.count, p.total, result)
}

func (p *matrixProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}
