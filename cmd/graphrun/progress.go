package main

import (
	"fmt"
	"io"

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
